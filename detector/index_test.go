package detector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// withIndex gives r one index write: put WCU under key, and, if old != "",
// a delete of oldWCU under old.
func withIndex(r *record.Record, index, key string, wcu uint64, old string, oldWCU uint64) *record.Record {
	iw := record.IndexWrite{Index: index, Exact: true, WCU: wcu + oldWCU}
	if key != "" {
		iw.Put = ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: []byte(key)}, WCU: wcu}
	}
	if old != "" {
		iw.Delete = ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: []byte(old)}, WCU: oldWCU}
	}
	r.Indexes = append(r.Indexes, iw)
	return r
}

// TestIndexWindows: the daily-bucket fix. The table's keys are spread over
// days and items, so the table is healthy; every write also puts GSI1PK =
// "OPS_LOG" in index GSI1, which gets its own window, with the index's
// hot key, its diagnosis and the back-pressure it puts on the table.
func TestIndexWindows(t *testing.T) {
	d, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var tableWCU, indexWCU uint64
	for s := range 60 {
		for k := range 300 {
			at := t0.Add(time.Duration(s) * time.Second)
			r := rec("Logs", fmt.Sprintf("OPS_LOG#2026-06-%02d", 1+k%30), fmt.Sprintf("%d-%d", s, k), 1, at)
			withIndex(r, "GSI1", "OPS_LOG", 3, "", 0)
			// A second index that this write moves from one key to another.
			withIndex(r, "byStatus", "STATUS#ACTIVE", 1, "STATUS#PENDING", 1)
			r.Indexes = append(r.Indexes, record.IndexWrite{Index: "untouched", Exact: true})
			tableWCU += r.WCU
			indexWCU += 3
			if err := d.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	reps := d.FlushAll()
	type summary struct {
		Table, Index    string
		Records, WCU    uint64
		Hot             []string
		Patterns        []report.Pattern
		HasBackPressure bool
	}
	var got []summary
	for _, rep := range reps {
		s := summary{Table: rep.Table, Index: rep.Index, Records: rep.Records, WCU: rep.WCU}
		for _, k := range rep.HotKeys {
			s.Hot = append(s.Hot, fmt.Sprintf("%s=%d/%v", k.Key, k.WCU, k.Severity))
			s.Patterns = append(s.Patterns, k.Pattern)
			s.HasBackPressure = s.HasBackPressure || strings.Contains(k.Diagnosis, "throttles the base table's writes")
		}
		got = append(got, s)
	}
	want := []summary{
		{Table: "Logs", Records: 18000, WCU: tableWCU},
		{Table: "Logs", Index: "GSI1", Records: 18000, WCU: indexWCU,
			Hot: []string{"OPS_LOG=54000/critical"}, Patterns: []report.Pattern{report.PatternConstantKey}, HasBackPressure: true},
		{Table: "Logs", Index: "byStatus", Records: 18000, WCU: 36000,
			Hot: []string{"STATUS#ACTIVE=18000/warning", "STATUS#PENDING=18000/warning"}, Patterns: []report.Pattern{report.PatternLowCardinality, report.PatternLowCardinality}, HasBackPressure: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, rep := range reps {
		if rep.Index == "GSI1" && (len(rep.HotKeys) == 0 || !strings.Contains(rep.HotKeys[0].Diagnosis, "VALUE#SHARD#n, n from 0 to 1 picked by a hash of the item id) and query the 2 shards")) {
			t.Errorf("no write-sharding recommendation: %s", rep.HotKeys[0].Diagnosis)
		}
	}
}

func TestIndexWindowEncodes(t *testing.T) {
	cfg := DefaultConfig()
	w := testIndexWindow(t)
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	w2, err := UnmarshalWindow(b, cfg.Sketch)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w.Report(cfg), w2.Report(cfg)); diff != "" {
		t.Errorf("after a round trip (-want +got):\n%s", diff)
	}
	rep := w2.Report(cfg)
	if rep.Index != "GSI1" || rep.WCU != 3 || rep.TTLWCU != 2 || rep.TTLDeletes != 1 || rep.Records != 2 {
		t.Errorf("report %+v", rep)
	}
	table, _ := NewWindow(cfg.Sketch, "Logs", t0, t0.Add(time.Minute))
	if err := table.Merge(w2); err == nil {
		t.Error("a table window merged an index window")
	}
}
