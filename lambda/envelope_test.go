package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/record"
)

// TestReadEnvelope: readEnvelope's event is the one the decoder delivers,
// and it counts every record, good or malformed, of a tumbling batch, a
// plain one and one with malformed records.
func TestReadEnvelope(t *testing.T) {
	for _, name := range []string{"tumbling-window-1.json", "tumbling-window-final.json", "plain-batch.json", "malformed-record.json"} {
		t.Run(name, func(t *testing.T) {
			payload := readSample(t, name)
			d, err := record.NewDecoder(record.Config{PartitionKey: "PK"})
			if err != nil {
				t.Fatal(err)
			}
			var events []record.Event
			records := 0
			err = d.Decode(payload, record.Visitor{
				Event:     func(ev *record.Event) error { events = append(events, *ev); return nil },
				Record:    func(*record.Record) error { records++; return nil },
				Malformed: func(m *record.Malformed) error { records++; return nil },
			})
			if err != nil || len(events) != 1 {
				t.Fatalf("Decode: %v, %d events", err, len(events))
			}
			ev, n, err := readEnvelope(payload)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(events[0], ev); diff != "" {
				t.Errorf("envelope (-the decoder's +readEnvelope's):\n%s", diff)
			}
			if n != records {
				t.Errorf("%d records, the decoder found %d, malformed included", n, records)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `{"Records":{}}`, `{"window":{"start":"yesterday"}}`, `{"Records":[]`} {
		if _, _, err := readEnvelope([]byte(bad)); err == nil {
			t.Errorf("readEnvelope(%q) read an envelope", bad)
		}
	}
}
