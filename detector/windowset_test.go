package detector

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestWindowSetRoutes: a record goes to the table's window and to the
// window of each index it wrote, opened in the order the indexes first
// wrote; the reports are those of windows fed by hand.
func TestWindowSetRoutes(t *testing.T) {
	cfg := DefaultConfig()
	set := NewWindowSet(cfg, "", t0, t0.Add(time.Minute))
	table, err := NewWindow(cfg.Sketch, "Logs", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	byHand := map[string]*Window{"": table}
	for i := range 90 {
		at := t0.Add(time.Duration(i%60) * time.Second)
		r := withIndex(rec("Logs", fmt.Sprintf("K%d", i%7), fmt.Sprint(i), 2, at), "GSI2", fmt.Sprintf("L%d", i%3), 1, "", 0)
		if i%3 == 1 {
			r = withIndex(r, "GSI1", "OPS_LOG", 1, "", 0)
		}
		if err := set.Add(r); err != nil {
			t.Fatal(err)
		}
		table.Add(r)
		for k := range r.Indexes {
			iw := &r.Indexes[k]
			if byHand[iw.Index] == nil {
				if byHand[iw.Index], err = NewIndexWindow(cfg.IndexSketchConfig(), "Logs", iw.Index, t0, t0.Add(time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
			byHand[iw.Index].AddIndex(r, iw)
		}
	}
	var want []report.Report
	for _, index := range []string{"", "GSI2", "GSI1"} {
		want = append(want, byHand[index].Report(cfg))
	}
	if diff := cmp.Diff(want, set.Reports()); diff != "" {
		t.Errorf("reports (-by hand +set):\n%s", diff)
	}
}

// TestWindowSetCountsBeforeItsTable: what a set counts before any record
// or count names its table waits aside (Unplaced), and goes into the
// table's window when it opens; a set that knows its table opens it for a
// malformed record that names none.
func TestWindowSetCountsBeforeItsTable(t *testing.T) {
	cfg := DefaultConfig()
	set := NewWindowSet(cfg, "", t0, t0.Add(time.Minute))
	set.AddMalformed("")
	set.AddMalformed("")
	set.AddInternal("")
	if err := set.Add(rec("", "k", "", 1, t0)); !errors.Is(err, errNoTable) {
		t.Errorf("a record of no table into a set of none: %v, want errNoTable", err)
	}
	if m, i := set.Unplaced(); m != 2 || i != 1 || set.Windows() != nil {
		t.Fatalf("unplaced %d malformed, %d internal, windows %v; want 2, 1 and none", m, i, set.Windows())
	}
	set.AddInternal("Logs")
	if m, i := set.Unplaced(); m != 0 || i != 0 || len(set.Windows()) != 1 {
		t.Fatalf("after the table is named: unplaced %d, %d, %d windows", m, i, len(set.Windows()))
	}
	if rep := set.Reports()[0]; rep.Table != "Logs" || rep.Malformed != 2 || rep.InternalErrors != 2 || rep.Records != 0 {
		t.Errorf("report %s: %d malformed, %d internal, %d records; want Logs: 2, 2, 0", rep.Table, rep.Malformed, rep.InternalErrors, rep.Records)
	}

	named := NewWindowSet(cfg, "Orders", t0, t0.Add(time.Minute))
	named.AddMalformed("")
	if rep := named.Reports(); len(rep) != 1 || rep[0].Table != "Orders" || rep[0].Malformed != 1 {
		t.Errorf("a set of Orders after one malformed record: %+v", rep)
	}
}

// TestAddAllocatesNothing: once its windows are open, counting a record in
// a set, with the index windows it wrote, allocates nothing, and neither
// does counting it through a Detector: the per-record path stays the hot
// path it was.
func TestAddAllocatesNothing(t *testing.T) {
	cfg := DefaultConfig()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sink Sink
	}{
		{"WindowSet", NewWindowSet(cfg, "Logs", t0, t0.Add(15*time.Minute))},
		{"Detector", d},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seconds [][]*record.Record
			for s := range 20 {
				at := t0.Add(time.Duration(s) * time.Second)
				var recs []*record.Record
				for i := range 50 {
					r := withIndex(rec("Logs", fmt.Sprintf("U%d", i), "", 1, at), "GSI1", "OPS_LOG", 1, "", 0)
					recs = append(recs, withIndex(r, "GSI2", fmt.Sprintf("L%d", i%4), 1, "", 0))
				}
				seconds = append(seconds, recs)
			}
			add := func(s int) {
				for _, r := range seconds[s] {
					if err := tc.sink.Add(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			for s := range 3 { // the windows open, the scratch buffers grow
				add(s)
			}
			s := 3
			if n := testing.AllocsPerRun(10, func() { add(s); s++ }); n != 0 {
				t.Errorf("Add of a second's records allocated %v times", n)
			}
		})
	}
}
