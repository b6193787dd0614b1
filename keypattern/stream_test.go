package keypattern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// rec is one record of a generated stream.
type rec struct {
	key     []byte // typed
	wcu     uint64
	second  int64
	pattern string // the pattern it must land in
}

// typed returns the typed key of a String value.
func typed(s string) []byte { return append([]byte{byte(ddb.String)}, s...) }

// t0 is the generated window's start: 2026-06-22T10:00:00Z.
const t0 = 1782122400

// kind is one known pattern of the generated stream: its name, the
// verdict it must get, and a generator of its keys.
type kind struct {
	pattern string
	verdict Verdict
	records int
	key     func(r *rand.Rand) []byte
	wcu     func(r *rand.Rand) uint64
}

func uuidFrom(r *rand.Rand, pool int) string {
	x := r.IntN(pool)
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", x*2654435761%(1<<32), x%65536, x%4096, (x*7)%4096, x*40503)
}

func oneOf[T any](r *rand.Rand, vs []T, weights []int) T {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	n := r.IntN(sum)
	for i, w := range weights {
		if n < w {
			return vs[i]
		}
		n -= w
	}
	return vs[len(vs)-1]
}

func w1to3(r *rand.Rand) uint64 { return 1 + uint64(r.IntN(3)) }

// streamKinds are the known patterns: the article's three hot spots at a
// few writes a minute (OPS_LOG, BRAND_INDEX, THREAT#<brand> with one brand
// under attack), a date bucket, an enumeration, too few write shards, and
// the healthy designs that must never be flagged.
func streamKinds() []kind {
	brands := []string{"acme", "globex", "initech", "umbrella", "hooli"}
	statuses := []string{"ACTIVE", "PENDING", "CLOSED"}
	return []kind{
		{"OPS_LOG", SingleKey, 4, func(*rand.Rand) []byte { return typed("OPS_LOG") }, w1to3},
		{"BRAND_INDEX", SingleKey, 3, func(*rand.Rand) []byte { return typed("BRAND_INDEX") }, w1to3},
		{"THREAT#<*>", DominantKey, 12, func(r *rand.Rand) []byte {
			return typed("THREAT#" + oneOf(r, brands, []int{8, 1, 1, 1, 1}))
		}, w1to3},
		{"OPS_LOG#<date>", TimeBucket, 5, func(*rand.Rand) []byte { return typed("OPS_LOG#2026-06-22") }, w1to3},
		{"STATUS#<*>", LowCardinality, 300, func(r *rand.Rand) []byte {
			return typed("STATUS#" + oneOf(r, statuses, []int{40, 35, 25}))
		}, w1to3},
		{"EVENTS#SHARD_<n>", LowCardinality, 500, func(r *rand.Rand) []byte {
			return typed(fmt.Sprintf("EVENTS#SHARD_%d", r.IntN(10)))
		}, w1to3},
		{"USER#<uuid>", Healthy, 5000, func(r *rand.Rand) []byte { return typed("USER#" + uuidFrom(r, 3000)) }, w1to3},
		{"TENANT#<*>", Healthy, 2000, func(r *rand.Rand) []byte {
			return typed(fmt.Sprintf("TENANT#tenant-%s", string(rune('a'+r.IntN(20)))+fmt.Sprint(r.IntN(20))))
		}, w1to3},
		{"ORDER#<datetime>", Healthy, 1000, func(r *rand.Rand) []byte {
			return typed(fmt.Sprintf("ORDER#2026-06-22T10:%02d:%02d.%03dZ", r.IntN(60), r.IntN(60), r.IntN(1000)))
		}, func(r *rand.Rand) uint64 { return 1 + uint64(r.IntN(5)) }},
		{"<n>", Healthy, 1000, func(r *rand.Rand) []byte {
			return append([]byte{byte(ddb.Number)}, fmt.Sprint(100000+r.IntN(800))...)
		}, w1to3},
		{"<bytes>", Healthy, 500, func(r *rand.Rand) []byte {
			b := []byte{byte(ddb.Binary)}
			x := r.IntN(400)
			for i := range 16 {
				b = append(b, byte(x>>(i%3*8)+i*31))
			}
			return b
		}, w1to3},
	}
}

// stream returns the records of kinds, shuffled, in one 60-second window.
func stream(seed uint64, kinds []kind) []rec {
	r := rand.New(rand.NewPCG(seed, seed))
	var out []rec
	for _, k := range kinds {
		for range k.records {
			out = append(out, rec{key: k.key(r), wcu: k.wcu(r), second: t0 + int64(r.IntN(60)), pattern: k.pattern})
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// oracle is the exact truth of a stream, per pattern.
type oracle struct {
	records, wcu uint64
	keys         map[string]uint64 // key -> WCU
}

func truth(recs []rec) map[string]*oracle {
	out := map[string]*oracle{}
	for _, r := range recs {
		o := out[r.pattern]
		if o == nil {
			o = &oracle{keys: map[string]uint64{}}
			out[r.pattern] = o
		}
		o.records++
		o.wcu += r.wcu
		o.keys[string(r.key)] += r.wcu
	}
	return out
}

func tableOf(tb testing.TB, recs []rec) *Table {
	tb.Helper()
	t, err := New(DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs {
		t.Add(r.key, sketch.Hash(r.key), r.wcu, r.second)
	}
	return t
}

// relErr is the HyperLogLog's standard error at precision 10.
const relErr = 1.04 / 22.627417 // 1.04/√512

// TestStreamAgainstOracle checks every guarantee of the figures and every
// verdict on the generated stream against its exact truth.
func TestStreamAgainstOracle(t *testing.T) {
	kinds := streamKinds()
	recs := stream(1, kinds)
	tb := tableOf(t, recs)
	checkAgainst(t, tb, kinds, truth(recs))
}

func checkAgainst(t *testing.T, tb *Table, kinds []kind, want map[string]*oracle) {
	t.Helper()
	figs := tb.Patterns(nil)
	if len(figs) != len(kinds) {
		t.Errorf("%d patterns, want %d: %v", len(figs), len(kinds), names(figs))
	}
	if r, w := tb.Other(); r != 0 || w != 0 {
		t.Errorf("other: %d records, %d WCU, want none", r, w)
	}
	verdicts := map[string]Verdict{}
	for _, k := range kinds {
		verdicts[k.pattern] = k.verdict
	}
	for i := range figs {
		f := &figs[i]
		o := want[f.Pattern]
		if o == nil {
			t.Errorf("pattern %q is none of the stream's", f.Pattern)
			continue
		}
		checkFigures(t, f, o, tb.Config().TopKeys)
		if got := Judge(f, DefaultThresholds()); got != verdicts[f.Pattern] {
			t.Errorf("%s: verdict %s, want %s (figures %+v)", f.Pattern, got, verdicts[f.Pattern], *f)
		}
	}
}

func names(figs []Figures) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Pattern)
	}
	return out
}

// checkFigures holds one pattern's figures to the truth: totals exact,
// distinct keys exact up to 128 and within 3 standard errors past it,
// every heavy key's bounds around its WCU, no other key over Bound, and
// the ceiling's bounds around limit ÷ the true top share.
func checkFigures(t *testing.T, f *Figures, o *oracle, k int) {
	t.Helper()
	if f.Records != o.records || f.WCU != o.wcu {
		t.Errorf("%s: %d records, %d WCU, want %d, %d", f.Pattern, f.Records, f.WCU, o.records, o.wcu)
	}
	d := uint64(len(o.keys))
	switch {
	case d <= exactKeys && (!f.DistinctExact || f.Distinct != d):
		t.Errorf("%s: %d distinct keys (exact %v), want exactly %d", f.Pattern, f.Distinct, f.DistinctExact, d)
	case d > exactKeys && math.Abs(float64(f.Distinct)-float64(d)) > 3*relErr*float64(d):
		t.Errorf("%s: %d distinct keys, want %d ± %.1f %%", f.Pattern, f.Distinct, d, 300*relErr)
	}
	listed := map[string]bool{}
	for _, kb := range f.TopKeys {
		w := o.keys[string(kb.Key)]
		listed[string(kb.Key)] = true
		if kb.Lower > w || w > kb.Upper || kb.Upper-kb.Lower > f.WCU/uint64(k) {
			t.Errorf("%s: key %q bounds [%d, %d], true %d, W/k %d", f.Pattern, kb.Key, kb.Lower, kb.Upper, w, f.WCU/uint64(k))
		}
	}
	var top uint64
	for key, w := range o.keys {
		top = max(top, w)
		if !listed[key] && w > f.Bound {
			t.Errorf("%s: unlisted key %q weighs %d, over the bound %d", f.Pattern, key, w, f.Bound)
		}
	}
	if o.wcu == 0 {
		return
	}
	ceiling := 1000 / (float64(top) / float64(o.wcu))
	if lo, hi := f.Ceiling(1000); ceiling < lo*(1-1e-9) || ceiling > hi*(1+1e-9) {
		t.Errorf("%s: ceiling [%.0f, %.0f], true %.0f", f.Pattern, lo, hi, ceiling)
	}
}

func hashTyped(k []byte) uint64 { return sketch.Hash(k) }

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

// TestTightenWithSummary: given the window's sketch.Summary of the same
// records, every bound stays true, and a pattern of many keys gets the
// summary's finer ones: USER#<uuid>'s ceiling, bounded below by 8 × the
// limit from its own counters alone, rises far above.
func TestTightenWithSummary(t *testing.T) {
	kinds := streamKinds()
	recs := stream(12, kinds)
	want := truth(recs)
	tb := tableOf(t, recs)
	s, _ := sketch.NewSummary(sketch.DefaultConfig())
	for _, r := range recs {
		s.Add(r.key, r.wcu, r.second, 0)
	}
	loose := map[string]float64{}
	for _, f := range tb.Patterns(nil) {
		loose[f.Pattern], _ = f.Ceiling(1000)
	}
	for _, f := range tb.Patterns(s) {
		checkFigures(t, &f, want[f.Pattern], tb.Config().TopKeys)
		lo, _ := f.Ceiling(1000)
		if lo < loose[f.Pattern] {
			t.Errorf("%s: ceiling from %.0f down to %.0f with the summary", f.Pattern, loose[f.Pattern], lo)
		}
		if f.Pattern == "USER#<uuid>" {
			t.Logf("USER#<uuid>: ceiling ≥ %.0f WCU/s with the summary, ≥ %.0f without", lo, loose[f.Pattern])
		}
		if f.Pattern == "USER#<uuid>" && lo < 20*loose[f.Pattern] {
			t.Errorf("USER#<uuid>: ceiling at least %.0f with the summary, %.0f without", lo, loose[f.Pattern])
		}
	}
}
