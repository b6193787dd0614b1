package keypattern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func addAll(tb *Table, keys ...string) {
	for _, k := range keys {
		tb.Add(typed(k), hashOf(k), 1, t0)
	}
}

func figuresOf(t *testing.T, tb *Table, pattern string) Figures {
	t.Helper()
	for _, f := range tb.Patterns(nil) {
		if f.Pattern == pattern {
			return f
		}
	}
	t.Fatalf("no pattern %q among %v", pattern, names(tb.Patterns(nil)))
	return Figures{}
}

// TestLearnVariableParts: a literal stays literal while its prefix holds
// one value, and becomes <*> at the second, with the figures of both
// folded: an enumeration becomes one pattern whose cardinality shows.
func TestLearnVariableParts(t *testing.T) {
	tb, _ := New(DefaultConfig())
	addAll(tb, "STATUS#ACTIVE", "STATUS#ACTIVE", "OPS_LOG")
	if got := names(tb.Patterns(nil)); !cmp.Equal(sorted(got), []string{"OPS_LOG", "STATUS#ACTIVE"}) {
		t.Fatalf("patterns %v", got)
	}
	addAll(tb, "STATUS#PENDING", "STATUS#CLOSED", "STATUS#ACTIVE", "OPS_LOG")
	if got := names(tb.Patterns(nil)); !cmp.Equal(sorted(got), []string{"OPS_LOG", "STATUS#<*>"}) {
		t.Fatalf("patterns %v", got)
	}
	f := figuresOf(t, tb, "STATUS#<*>")
	if f.Records != 5 || f.WCU != 5 || f.Distinct != 3 || !f.DistinctExact || !cmp.Equal(f.Vars, []Class{Any}) {
		t.Errorf("STATUS#<*>: %+v, want 5 records, 5 WCU, 3 distinct keys", f)
	}
	if f := figuresOf(t, tb, "OPS_LOG"); f.Records != 2 || f.Distinct != 1 || len(f.Vars) != 0 {
		t.Errorf("OPS_LOG: %+v", f)
	}
}

// TestLearnFirstPart: a first part is learnt to vary only at 32 values
// of one letter case and shape (a design may have as many entity types),
// and the constants of another case stay.
func TestLearnFirstPart(t *testing.T) {
	tb, _ := New(DefaultConfig())
	addAll(tb, "OPS_LOG", "BRAND_INDEX")
	for i := range rootVariable - 1 {
		addAll(tb, fmt.Sprintf("user%c%c", 'a'+i%26, 'a'+i/26))
	}
	if n := tb.Len(); n != rootVariable+1 {
		t.Fatalf("%d patterns before the 32nd name, want %d", n, rootVariable+1)
	}
	addAll(tb, "zed")
	if got := names(tb.Patterns(nil)); !cmp.Equal(sorted(got), []string{"<*>", "BRAND_INDEX", "OPS_LOG"}) {
		t.Errorf("patterns %v, want <*>, BRAND_INDEX, OPS_LOG", got)
	}
	for i := range 40 {
		addAll(tb, fmt.Sprintf("TYPE%c#x", 'A'+i%26))
	}
	if got := tb.Len(); got > 3+rootVariable {
		t.Errorf("%d patterns", got)
	}
}

// TestLearnAnyOrder: the patterns learnt are the same whatever the order
// of the keys, and a prefix learnt under a literal that later varies
// carries over to the generalised prefix.
func TestLearnAnyOrder(t *testing.T) {
	keys := []string{
		"TENANT#acme#USER#bob", "TENANT#acme#USER#carol", "TENANT#globex#USER#dave",
		"TENANT#globex#ORDER#2026-06-22", "OPS_LOG", "STATUS#ACTIVE", "STATUS#CLOSED", "CONFIG#global",
	}
	want := []string{"CONFIG#global", "OPS_LOG", "STATUS#<*>", "TENANT#<*>#<*>#<date>", "TENANT#<*>#<*>#<*>"}
	r := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		tb, _ := New(DefaultConfig())
		addAll(tb, keys...)
		if got := sorted(names(tb.Patterns(nil))); !cmp.Equal(got, sorted(want)) {
			t.Fatalf("keys %v: patterns %v, want %v", keys, got, sorted(want))
		}
	}
}

// TestFullTable: once Config.Patterns are kept, a key of a new pattern
// counts as other, unless it teaches the table a variable part, which
// folds patterns and makes room.
func TestFullTable(t *testing.T) {
	tb, _ := New(Config{Patterns: 3, TopKeys: 4, Cache: 64})
	addAll(tb, "OPS_LOG", "BRAND_INDEX", "TENANT#acme")
	addAll(tb, "CONFIG")
	if r, w := tb.Other(); r != 1 || w != 1 {
		t.Errorf("other %d, %d, want the one CONFIG record", r, w)
	}
	addAll(tb, "TENANT#globex", "TENANT#initech", "CONFIG")
	if got := sorted(names(tb.Patterns(nil))); !cmp.Equal(got, []string{"BRAND_INDEX", "OPS_LOG", "TENANT#<*>"}) {
		t.Errorf("patterns %v", got)
	}
	if f := figuresOf(t, tb, "TENANT#<*>"); f.Records != 3 || f.Distinct != 3 {
		t.Errorf("TENANT#<*>: %d records, %d keys, want 3, 3", f.Records, f.Distinct)
	}
	if r, _ := tb.Other(); r != 2 {
		t.Errorf("other %d records, want 2 (CONFIG twice: the table was full before TENANT folded)", r)
	}
}

// TestPathologicalKeys: every key a new shape, random separators and
// random bytes: the table stays within its bounds, the totals exact, and
// what found no room counted as other.
func TestPathologicalKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	tb, _ := New(DefaultConfig())
	const seps = "#:|/.@_-"
	var records, wcu uint64
	for range 20000 {
		b := []byte{'S'}
		for range 1 + r.IntN(40) {
			if r.IntN(4) == 0 {
				b = append(b, seps[r.IntN(len(seps))])
			} else {
				b = append(b, byte(r.IntN(256)))
			}
		}
		w := uint64(r.IntN(4))
		tb.Add(b, hashTyped(b), w, t0)
		records, wcu = records+1, wcu+w
	}
	or, ow := tb.Other()
	var pr, pw uint64
	for _, f := range tb.Patterns(nil) {
		pr, pw = pr+f.Records, pw+f.WCU
	}
	if tb.Len() > DefaultConfig().Patterns || tb.rules.n > MaxRules || tb.Records() != records || tb.WCU() != wcu || pr+or != records || pw+ow != wcu {
		t.Errorf("%d patterns, %d rules; records %d+%d of %d, WCU %d+%d of %d", tb.Len(), tb.rules.n, pr, or, records, pw, ow, wcu)
	}
	t.Logf("%d patterns, %d rules, other %d of %d records", tb.Len(), tb.rules.n, or, records)
}
