package detector

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// admit runs a demand (in WCU per second for each key, 10 WCU a write,
// the keys' writes interleaved as they arrive) through the admission model
// of one partition (ddb.Admission). It returns the admitted records, on
// shard, in time order: what the stream shows.
func admit(limit int, seconds int, shard string, demand map[string]func(sec int) int) []*record.Record {
	var out []*record.Record
	a := ddb.NewAdmission(uint64(limit))
	for s := range seconds {
		at := t0.Add(time.Duration(s) * time.Second)
		left := map[string]int{}
		for k, d := range demand {
			left[k] = d(s) / 10
		}
		for more := true; more; {
			more = false
			for _, k := range slices.Sorted(maps.Keys(left)) {
				if left[k] == 0 {
					continue
				}
				left[k]--
				more = true
				if a.Admit(int64(s), 10) {
					r := rec("Orders", k, "", 10, at)
					r.Shard = shard
					out = append(out, r)
				}
			}
		}
	}
	return out
}

func constant(n int) func(int) int { return func(int) int { return n } }

// saturationReport runs records through a detector and returns the
// window's report.
func saturationReport(t *testing.T, recs []*record.Record) report.Report {
	t.Helper()
	d, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := d.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	reps := d.FlushAll()
	if len(reps) != 1 {
		t.Fatalf("%d reports", len(reps))
	}
	return reps[0]
}

// keyOf returns the report's figures of key, flagged or in the top.
func keyOf(rep report.Report, key string) report.KeyReport {
	for _, ks := range [][]report.KeyReport{rep.HotKeys, rep.TopKeys} {
		for _, k := range ks {
			if k.Key == key {
				return k
			}
		}
	}
	return report.KeyReport{}
}

type saturation struct {
	Severity                    report.Severity
	SaturatedSeconds            int
	Saturated, LowerBoundShards bool
	SaturatedDiagnosis          bool
	ShardSeconds                int
	ShardSaturated              bool
}

func saturationOf(rep report.Report, key string) saturation {
	k := keyOf(rep, key)
	s := saturation{Severity: k.Severity, SaturatedSeconds: k.SaturatedSeconds, Saturated: k.Saturated,
		LowerBoundShards: k.RecommendedShardsIsLowerBound, SaturatedDiagnosis: strings.HasPrefix(k.Diagnosis, "Saturated: ")}
	if len(rep.Shards) > 0 {
		s.ShardSeconds, s.ShardSaturated = rep.Shards[0].SaturatedSeconds, rep.Shards[0].Saturated
	}
	return s
}

// TestSaturation: a key is saturated exactly where the admission model
// throttles it for at least 3 seconds, and nowhere else.
func TestSaturation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		demand map[string]func(int) int
		key    string
		want   saturation
	}{{
		name:   "pinned at the cap",
		demand: map[string]func(int) int{"HOT": constant(2500)},
		key:    "HOT",
		want:   saturation{report.Critical, 10, true, true, true, 10, true},
	}, {
		name:   "steady at 700",
		demand: map[string]func(int) int{"WARM": constant(700)},
		key:    "WARM",
		want:   saturation{Severity: report.Warning},
	}, {
		name: "1,000 for a single second",
		demand: map[string]func(int) int{"BURST": func(s int) int {
			if s == 4 {
				return 1000
			}
			return 100
		}},
		key:  "BURST",
		want: saturation{Severity: report.Critical, SaturatedSeconds: 1, ShardSeconds: 1},
	}, {
		name: "at the cap for 2 seconds, then 3",
		demand: map[string]func(int) int{"HOT": func(s int) int {
			if s == 1 || s == 2 || s >= 6 {
				return 2500
			}
			return 300
		}},
		key:  "HOT",
		want: saturation{report.Critical, 6, true, true, true, 6, true},
	}, {
		// Two keys share a partition: neither alone reaches 90 % of the
		// limit, but together they are pinned at it. The stream shard,
		// about one partition, shows it.
		name:   "pinned at the cap on a shared partition",
		demand: map[string]func(int) int{"A": constant(1500), "B": constant(1000)},
		key:    "A",
		want:   saturation{Severity: report.Warning, ShardSeconds: 10, ShardSaturated: true},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rep := saturationReport(t, admit(1000, 10, "shardId-1", tc.demand))
			if diff := cmp.Diff(tc.want, saturationOf(rep, tc.key)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSaturationShardedAndIndex: a physical shard of a write-sharded key
// pinned at the cap is saturated, and so is its logical key; an index
// key pinned at an index partition's cap is too.
func TestSaturationShardedAndIndex(t *testing.T) {
	demand := map[string]func(int) int{}
	for i := range 4 {
		d := 400
		if i == 2 {
			d = 3000
		}
		demand[fmt.Sprintf("ORDERS#SHARD_%d", i)] = constant(d)
	}
	var recs []*record.Record
	for k, d := range demand { // one partition each
		recs = append(recs, admit(1000, 5, "", map[string]func(int) int{k: d})...)
	}
	slices.SortStableFunc(recs, func(a, b *record.Record) int { return a.Time.Compare(b.Time) })
	rep := saturationReport(t, recs)
	hot := keyOf(rep, "ORDERS#SHARD_2")
	logical := keyOf(rep, "ORDERS#<shard>")
	if !hot.Saturated || hot.SaturatedSeconds != 5 || !logical.Saturated || !logical.RecommendedShardsIsLowerBound ||
		!strings.HasPrefix(logical.Diagnosis, "Saturated: ") || keyOf(rep, "ORDERS#SHARD_0").Saturated {
		t.Errorf("shard %+v\nlogical %+v", hot.KeyFigures, logical.KeyFigures)
	}

	// An index key: every item written carries GSI1PK = OPS_LOG, at the
	// cap of its index partition.
	cfg := DefaultConfig()
	w, _ := NewIndexWindow(cfg.IndexSketchConfig(), "Orders", "GSI1", t0, t0.Add(time.Minute))
	w.Watch(cfg)
	for s := range 4 {
		for i := range 100 {
			r := withIndex(rec("Orders", fmt.Sprintf("LOG#%d", i), "", 10, t0.Add(time.Duration(s)*time.Second)), "GSI1", "OPS_LOG", 10, "", 0)
			w.AddIndex(r, &r.Indexes[0])
		}
	}
	k := keyOf(w.Report(cfg), "OPS_LOG")
	if !k.Saturated || k.SaturatedSeconds != 4 || k.Severity != report.Critical || !strings.HasPrefix(k.Diagnosis, "Saturated: ") {
		t.Errorf("index key %+v", k.KeyFigures)
	}
}
