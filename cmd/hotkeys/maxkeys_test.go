package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/maxkeys"
	"github.com/hotkeys-dev/hotkeys/record"
)

// TestReplayMaximumLengthKeys: a replay of keys at DynamoDB's limits reports
// every one byte for byte, with its own WCU, in the JSON report and in the
// table (whose footer gives in full the keys a column had to cut).
func TestReplayMaximumLengthKeys(t *testing.T) {
	records, keyOf := maxkeys.Records("Orders", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	file := filepath.Join(t.TempDir(), "maxkeys.json")
	if err := os.WriteFile(file, maxkeys.Event(records), 0o600); err != nil {
		t.Fatal(err)
	}
	// The WCU of each key, from the records one by one.
	dec, err := record.NewDecoder(record.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	keys := maxkeys.Keys()
	type figures struct {
		Key, Type string
		WCU       uint64
	}
	var want []figures
	for i, k := range keys {
		want = append(want, figures{k.Printed, k.Type, 0})
		for j, r := range records {
			if keyOf[j] != i {
				continue
			}
			if err := dec.Decode([]byte(r), record.Visitor{Record: func(r *record.Record) error {
				want[i].WCU += r.WCU
				return nil
			}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	byKey := func(a, b figures) int { return strings.Compare(a.Type+a.Key, b.Type+b.Key) }
	slices.SortFunc(want, byKey)

	code, out, errs := hotkeys(t, "", "replay", "--partition-key", "pk", "--top", "40", "--format", "json", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := decodeReport(t, out)
	if len(rep.Windows) != 1 {
		t.Fatalf("%d windows, want 1", len(rep.Windows))
	}
	var got []figures
	for _, k := range rep.Windows[0].TopKeys {
		if k.WCULower != k.WCUUpper {
			t.Errorf("%.20s…: bounds [%d, %d], want exact with %d keys", k.Key, k.WCULower, k.WCUUpper, len(keys))
		}
		got = append(got, figures{k.Key, k.Type, k.WCU})
	}
	slices.SortFunc(got, byKey)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON report (-want +got):\n%s", diff)
	}

	code, out, errs = hotkeys(t, "", "replay", "--partition-key", "pk", "--top", "40", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, footer, ok := strings.Cut(out, "CUT ABOVE, IN FULL\n")
	if !ok {
		t.Fatalf("the table gives no key in full:\n%.2000s", out)
	}
	full := map[string]bool{}
	for _, line := range strings.Split(footer, "\n") {
		if _, key, ok := strings.Cut(line, "] "); ok {
			full[key] = true
		}
	}
	for _, k := range keys {
		if len(k.Printed) > 40 && !full[k.Printed] {
			t.Errorf("%s is not in the table's footer in full", k.Name)
		}
	}
}
