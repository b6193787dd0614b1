package record

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadEnvelope: ReadEnvelope's event is the one Decode delivers, and
// it counts every record, good or malformed.
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
			ev, n, err := ReadEnvelope(payload)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g.events[0], ev); diff != "" {
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
