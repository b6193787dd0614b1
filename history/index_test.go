package history

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// withoutNewPatterns returns a copy of s whose keys have no pattern
// versions 1 to 3 lack: what those versions held of it.
func withoutNewPatterns(s *Summary) *Summary {
	c := *s
	c.Keys = slices.Clone(s.Keys)
	for i := range c.Keys {
		if slices.Index(patterns, c.Keys[i].Pattern) >= oldPatterns {
			c.Keys[i].Pattern = ""
		}
	}
	return &c
}

// indexSummaries returns the stored summaries of index GSI1 of table
// Orders for one minute on shards stream shards, as the Lambda makes them
// (detector.NewIndexWindow), through their encoding: on every shard, 30
// log lines a second go to the GSI key OPS_LOG (2 WCU each), a user's
// entry moves from STATUS#NEW to STATUS#ACTIVE (a key change: a delete and
// a put), and a TTL delete removes an entry of 3 WCU for free.
func indexSummaries(t testing.TB, shards int) []*Summary {
	t.Helper()
	cfg := detector.DefaultConfig()
	cfg.MinWCUPerSecond = 50 // OPS_LOG's 60 WCU/s flagged: only a flagged key has a pattern to store
	var out []*Summary
	for sh := range shards {
		w, err := detector.NewIndexWindow(cfg.IndexSketchConfig(), "Orders", "GSI1", t0, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		key := func(s string) ddb.Key { return ddb.Key{Type: ddb.String, Value: []byte(s)} }
		for sec := range 60 {
			r := record.Record{Table: "Orders", Time: t0.Add(time.Duration(sec) * time.Second)}
			for range 30 {
				iw := record.IndexWrite{Index: "GSI1", WCU: 2, Exact: true, Put: ddb.IndexEntry{Key: key("OPS_LOG"), WCU: 2}}
				w.AddIndex(&r, &iw)
			}
			move := record.IndexWrite{Index: "GSI1", WCU: 2, Exact: true,
				Delete: ddb.IndexEntry{Key: key("STATUS#NEW"), WCU: 1}, Put: ddb.IndexEntry{Key: key("STATUS#ACTIVE"), WCU: 1}}
			w.AddIndex(&r, &move)
		}
		ttl := record.IndexWrite{Index: "GSI1", Exact: true, TTLWCU: 3, Delete: ddb.IndexEntry{Key: key(fmt.Sprintf("EXPIRED#%d", sh))}}
		w.AddIndex(&record.Record{Table: "Orders", Time: t0}, &ttl)
		hll, err := w.AppendDistinct(nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := roundTrip(t, FromReport(w.Report(cfg), fmt.Sprintf("shardId-%02d", sh), hll))
		out = append(out, s)
	}
	return out
}

// TestIndexSummaries: an index's window is stored as version 2, with its
// index and TTL WCU, and round-trips whole; one whose key has the pattern
// constant_key, which versions 1 to 3 cannot hold, as version 4, pattern
// kept; a table's is still version 1, byte for byte what builds from
// before indexes wrote and read.
func TestIndexSummaries(t *testing.T) {
	s := indexSummaries(t, 1)[0]
	if s.Index != "GSI1" || s.TTLWCU != 3 || s.WCU != 60*(60+2) || s.Records != 60*31+1 {
		t.Errorf("index summary: index %q, TTL WCU %d, WCU %d, records %d; want GSI1, 3, %d, %d",
			s.Index, s.TTLWCU, s.WCU, s.Records, 60*(60+2), 60*31+1)
	}
	got, b := roundTrip(t, s)
	if b[2] != 4 || s.Version() != 4 {
		t.Errorf("index summary with a constant key encoded as version %d (Version %d), want 4", b[2], s.Version())
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if i := slices.IndexFunc(got.Keys, func(k report.KeyReport) bool { return k.Key == "OPS_LOG" }); i < 0 || got.Keys[i].Pattern != report.PatternConstantKey {
		t.Errorf("OPS_LOG's pattern was not kept: %v", got.Keys)
	}
	plain := withoutNewPatterns(s)
	if _, pb := roundTrip(t, plain); pb[2] != 2 || plain.Version() != 2 {
		t.Errorf("index summary without a constant key encoded as version %d (Version %d), want 2", pb[2], plain.Version())
	}
	// docs/deploy.md's cost of an index of a constant key comes from this:
	// go test ./history -run TestIndexSummaries -v
	t.Logf("an index window of a constant key, with three keys beside it: %d bytes encoded", len(b))
	table := newStream(t, 1, 1, 1).summaries[0]
	_, tb := roundTrip(t, table)
	if tb[2] != 1 || table.Version() != 1 {
		t.Errorf("table summary encoded as version %d (Version %d), want 1", tb[2], table.Version())
	}
}

// TestMergeIndexWindows merges two shards' windows of index GSI1: the
// report is the index's (Index, TTLWCU summed), its keys bracket the
// truth, and apart from those two fields it is exactly what the same
// summaries give merged as a table's.
func TestMergeIndexWindows(t *testing.T) {
	sums := indexSummaries(t, 2)
	m, err := NewMerger("Orders", "GSI1", time.Minute, 5)
	if err != nil {
		t.Fatal(err)
	}
	asTable, _ := NewMerger("Orders", "", time.Minute, 5)
	for _, s := range sums {
		if err := m.Add(s); err != nil {
			t.Fatal(err)
		}
		plain := *s
		plain.Index, plain.TTLWCU = "", 0
		if err := asTable.Add(&plain); err != nil {
			t.Fatal(err)
		}
	}
	reps := m.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	rep := reps[0]
	if rep.Index != "GSI1" || rep.TTLWCU != 6 || rep.WCU != 2*60*62 {
		t.Errorf("merged: index %q, TTL WCU %d, WCU %d; want GSI1, 6, %d", rep.Index, rep.TTLWCU, rep.WCU, 2*60*62)
	}
	truth := map[string]uint64{"OPS_LOG": 2 * 60 * 60, "STATUS#NEW": 2 * 60, "STATUS#ACTIVE": 2 * 60}
	found := 0
	for _, k := range rep.TopKeys {
		if w, ok := truth[k.Key]; ok {
			found++
			if k.WCULower > w || w > k.WCUUpper {
				t.Errorf("%s: [%d, %d] does not bracket %d", k.Key, k.WCULower, k.WCUUpper, w)
			}
		}
	}
	if found != len(truth) {
		t.Errorf("top keys %v: want all of %v", rep.TopKeys, truth)
	}
	want := asTable.Reports()[0]
	want.Index, want.TTLWCU = "GSI1", 6
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("index merge differs from the same summaries merged as a table's (-want +got):\n%s", diff)
	}
}
