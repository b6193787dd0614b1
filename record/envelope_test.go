package record

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadEnvelope: ReadEnvelope's event is the one Decode delivers, but
// for EventSourceARN, which falls back to the first record's, and it counts
// every record, good or malformed.
func TestReadEnvelope(t *testing.T) {
	for _, name := range []string{"dynamodb-event.json", "dynamodb-time-window-event.json"} {
		t.Run(name, func(t *testing.T) {
			payload, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewDecoder(Config{})
			if err != nil {
				t.Fatal(err)
			}
			var g got
			if err := d.Decode(payload, g.visitor()); err != nil || len(g.events) != 1 {
				t.Fatalf("Decode: %v, %d events", err, len(g.events))
			}
			want := g.events[0]
			ev, n, err := ReadEnvelope(payload)
			if err != nil {
				t.Fatal(err)
			}
			if want.EventSourceARN == "" { // the event has none of its own: its first record's
				if table := d.tableName([]byte(ev.EventSourceARN)); table == "" || table != g.records[0].Table {
					t.Errorf("EventSourceARN %q, the first record's table is %q", ev.EventSourceARN, g.records[0].Table)
				}
				want.EventSourceARN = ev.EventSourceARN
			}
			if diff := cmp.Diff(want, ev); diff != "" {
				t.Errorf("envelope (-Decode's +ReadEnvelope's):\n%s", diff)
			}
			if n != len(g.records)+len(g.bad) {
				t.Errorf("%d records, Decode found %d and %d malformed", n, len(g.records), len(g.bad))
			}
		})
	}
	for _, bad := range []string{``, `[]`, `{"Records":{}}`, `{"window":{"start":"yesterday"}}`, `{"Records":[]`} {
		if _, _, err := ReadEnvelope([]byte(bad)); !errors.Is(err, ErrEnvelope) {
			t.Errorf("ReadEnvelope(%q) = %v, want ErrEnvelope", bad, err)
		}
	}
}
