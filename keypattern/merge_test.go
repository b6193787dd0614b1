package keypattern

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summary is what must be equal between a table of all the records and
// the merge of tables of parts of them: every figure but the heavy keys'
// bounds (Space-Saving merges keep them true, not equal) and the peak (a
// lower bound), and every verdict.
type summary struct {
	Pattern                         string
	Records, WCU, Distinct          uint64
	DistinctExact                   bool
	MaxDigits                       int
	NewestWCU, CurrentWCU           uint64
	Verdict                         Verdict
	TimeResolutionSeconds, Variable int
}

func summarise(tb *Table) (out []summary, records, wcu, otherRecords, otherWCU uint64) {
	for _, f := range tb.Patterns(nil) {
		out = append(out, summary{
			Pattern: f.Pattern, Records: f.Records, WCU: f.WCU, Distinct: f.Distinct, DistinctExact: f.DistinctExact,
			MaxDigits: f.MaxDigits, NewestWCU: f.NewestWCU, CurrentWCU: f.CurrentWCU,
			Verdict: Judge(&f, DefaultThresholds()), TimeResolutionSeconds: int(f.TimeResolution.Seconds()), Variable: len(f.Vars),
		})
	}
	otherRecords, otherWCU = tb.Other()
	return out, tb.Records(), tb.WCU(), otherRecords, otherWCU
}

// shards deals recs at random to n tables, as parallel batches of a
// stream's shards do (one key's records may land in several).
func shards(t *testing.T, recs []rec, n int, seed uint64) []*Table {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	parts := make([][]rec, n)
	for _, x := range recs {
		i := r.IntN(n)
		parts[i] = append(parts[i], x)
	}
	out := make([]*Table, n)
	for i := range parts {
		out[i] = tableOf(t, parts[i])
	}
	return out
}

// TestMergeEqualsOneTable merges the tables of 2 to 7 shards, in a random
// order and through their encodings, and compares the result with one
// table of every record: totals, other, patterns, distinct keys, time
// figures and verdicts equal, and the figures still true to the oracle.
func TestMergeEqualsOneTable(t *testing.T) {
	kinds := streamKinds()
	recs := stream(2, kinds)
	want := truth(recs)
	one := tableOf(t, recs)
	wantSum, r, w, or, ow := summarise(one)
	for _, n := range []int{2, 4, 7} {
		parts := shards(t, recs, n, uint64(n))
		rand.New(rand.NewPCG(uint64(n), 1)).Shuffle(n, func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		merged, _ := New(DefaultConfig())
		for _, p := range parts {
			enc, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var d Table
			if err := d.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
			if err := merged.Merge(&d); err != nil {
				t.Fatal(err)
			}
		}
		gotSum, gr, gw, gor, gow := summarise(merged)
		if diff := cmp.Diff(wantSum, gotSum); diff != "" || gr != r || gw != w || gor != or || gow != ow {
			t.Errorf("%d shards merged differ from one table (-one +merged):\n%s\ntotals %d/%d/%d/%d, want %d/%d/%d/%d", n, diff, gr, gw, gor, gow, r, w, or, ow)
		}
		checkAgainst(t, merged, kinds, want)
	}
}

// TestMergeLearnsAcrossShards: what each shard saw alone teaches nothing
// (one tenant, one user each), yet merged the tables learn what one table
// of all the records learns, whatever the order.
func TestMergeLearnsAcrossShards(t *testing.T) {
	keys := []string{"TENANT#acme#USER#bob", "TENANT#acme#USER#carol", "TENANT#globex#USER#dave", "OPS_LOG"}
	want := []string{"TENANT#<*>#USER#<*>", "OPS_LOG"}
	for _, order := range [][]int{{0, 1, 2, 3}, {2, 0, 3, 1}, {3, 2, 1, 0}, {1, 3, 0, 2}} {
		one, _ := New(DefaultConfig())
		var merged *Table
		for _, i := range order {
			one.Add(typed(keys[i]), hashOf(keys[i]), 1, t0)
			shard, _ := New(DefaultConfig())
			shard.Add(typed(keys[i]), hashOf(keys[i]), 1, t0)
			if merged == nil {
				merged = shard
			} else if err := merged.Merge(shard); err != nil {
				t.Fatal(err)
			}
		}
		for _, tb := range []*Table{one, merged} {
			if got := names(tb.Patterns(nil)); !cmp.Equal(sorted(got), sorted(want)) {
				t.Errorf("order %v: patterns %v, want %v", order, got, want)
			}
		}
	}
}

// TestMergeKeepsTheHeaviest: merged tables holding more patterns than
// Config.Patterns keep the heaviest, and count the rest, exactly, as other.
func TestMergeKeepsTheHeaviest(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Patterns = 2
	a, _ := New(cfg)
	b, _ := New(cfg)
	add := func(tb *Table, k string, w uint64) { tb.Add(typed(k), hashOf(k), w, t0) }
	add(a, "OPS_LOG", 5)
	add(a, "BRAND_INDEX", 1)
	add(b, "CONFIG", 3)
	add(b, "OPS_LOG", 1)
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if got := names(a.Patterns(nil)); !cmp.Equal(got, []string{"OPS_LOG", "CONFIG"}) {
		t.Errorf("patterns %v, want OPS_LOG, CONFIG", got)
	}
	if r, w := a.Other(); r != 1 || w != 1 || a.Records() != 4 || a.WCU() != 10 {
		t.Errorf("other %d records, %d WCU of %d, %d; want 1, 1 of 4, 10", r, w, a.Records(), a.WCU())
	}
	other, _ := New(Config{Patterns: 3, TopKeys: 8, Cache: 1024})
	if err := a.Merge(other); err == nil {
		t.Error("merged tables of different configs")
	}
}

func hashOf(k string) uint64 { return hashTyped(typed(k)) }
