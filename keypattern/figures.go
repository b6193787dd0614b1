package keypattern

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// KeyBounds is one of a pattern's heaviest keys and bounds on its WCU.
type KeyBounds struct {
	Key          []byte // the typed key, as added
	Lower, Upper uint64 // Lower ≤ the key's true WCU ≤ Upper
}

// Figures is what a table knows of one pattern: the input of Judge.
type Figures struct {
	Pattern string      // "USER#<uuid>"; a literal's '<' and '\' are escaped with '\'
	Type    ddb.KeyType // the keys' type
	// Vars are the classes of the pattern's variable parts, in order:
	// none for a pattern that is one key.
	Vars []Class

	Records, WCU uint64  // exact
	Share        float64 // of the table's WCU, other included
	// PeakWCU is a lower bound on the pattern's most WCU in one second.
	PeakWCU uint64

	Distinct      uint64 // distinct keys; see DistinctExact
	DistinctExact bool   // exact (up to 128 keys), else HyperLogLog, ±4.6 % (one standard error)

	// TopKeys are the heaviest keys, heaviest first, each with bounds;
	// any key of the pattern not among them weighs at most Bound.
	TopKeys []KeyBounds
	Bound   uint64

	// MaxDigits is the most digits of a <n> part (or Number key) seen.
	MaxDigits int
	// The time part, the pattern's first <date> or <datetime>, if any:
	// TimeResolution is the finest unit its values were aligned to
	// (time.Second for a record's own timestamp; time.Hour or 24 h for
	// buckets; 0 without a time part). NewestWCU is the WCU of the records
	// whose value was the newest seen, CurrentWCU that of the records whose
	// value was current when written (the record's time within the value's
	// bucket, ±60 s).
	TimeResolution        time.Duration
	NewestWCU, CurrentWCU uint64
}

// TopShare returns bounds on the heaviest key's share of the pattern's
// WCU: a pattern that is one key has a share of 1, and one without WCU
// (TTL deletes only) a share anywhere in [0, 1].
func (f *Figures) TopShare() (lower, upper float64) {
	switch {
	case len(f.Vars) == 0:
		return 1, 1
	case f.WCU == 0:
		return 0, 1
	}
	var lo, hi uint64
	for _, k := range f.TopKeys {
		lo, hi = max(lo, k.Lower), max(hi, k.Upper)
	}
	w := float64(f.WCU)
	return float64(lo) / w, min(1, float64(max(hi, f.Bound))/w)
}

// Ceiling returns bounds on the pattern's ceiling: the rate of the pattern
// (WCU/s) at which its heaviest key reaches limit, the partition limit
// (ddb's 1,000 WCU/s), if the mix of its keys stays as observed:
// limit ÷ the heaviest key's share. The lower bound comes from the share's
// upper bound: the pattern is safe below it whatever the truth within the
// bounds. The upper bound is +Inf when no key is known to weigh anything.
// For a pattern that is one key both are limit.
func (f *Figures) Ceiling(limit float64) (lower, upper float64) {
	lo, hi := f.TopShare()
	if lo == 0 {
		return limit / hi, math.Inf(1)
	}
	return limit / hi, limit / lo
}

// Patterns returns the figures of every pattern kept, heaviest (by WCU)
// first. With s, a sketch.Summary of the very same records (the window's
// table-level summary), each heavy key's bounds are intersected with s's,
// and Bound tightened by what s knows of the pattern's other keys: a
// pattern of a million keys has its top share bounded by 1/k of its WCU
// alone, but by s's far finer floor with it. s may be nil.
func (t *Table) Patterns(s *sketch.Summary) []Figures {
	var outside []uint64 // per pattern: s's largest upper bound on a key not in its top
	if s != nil {
		outside = t.outsideBounds(s)
	}
	out := make([]Figures, len(t.patterns))
	for i, p := range t.patterns {
		out[i] = p.figures(t.wcu)
		if s != nil {
			out[i].tighten(s, outside[i])
		}
	}
	slices.SortFunc(out, func(a, b Figures) int {
		return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(b.Records, a.Records), cmp.Compare(a.Pattern, b.Pattern))
	})
	return out
}

func (p *pattern) figures(total uint64) Figures {
	f := Figures{
		Pattern: p.String(), Type: ddb.KeyType(p.typ),
		Records: p.records, WCU: p.wcu, PeakWCU: p.peakWCU,
		Distinct: p.keys.count(), DistinctExact: p.keys.exact(),
		Bound:     p.top.bound(),
		MaxDigits: int(p.maxDigits),
		NewestWCU: p.newestWCU, CurrentWCU: p.currentWCU,
		TimeResolution: time.Duration(unitSeconds[p.minUnit]) * time.Second,
	}
	if total > 0 {
		f.Share = float64(p.wcu) / float64(total)
	}
	for _, tok := range p.tokens {
		if tok.class != Literal {
			f.Vars = append(f.Vars, tok.class)
		}
	}
	for _, e := range p.top.sorted() {
		f.TopKeys = append(f.TopKeys, KeyBounds{Key: e.key, Lower: e.count - e.err, Upper: e.count})
	}
	return f
}

// tighten intersects f's bounds with s's: per key, and for the keys not in
// f.TopKeys, with the larger of s's floor and bound (the largest upper
// bound s holds for such a key of the pattern).
func (f *Figures) tighten(s *sketch.Summary, bound uint64) {
	for i := range f.TopKeys {
		k := &f.TopKeys[i]
		lo, hi := s.Estimate(k.Key)
		k.Lower, k.Upper = max(k.Lower, lo), min(k.Upper, hi)
	}
	f.Bound = min(f.Bound, max(s.Floor(), bound))
	slices.SortFunc(f.TopKeys, func(a, b KeyBounds) int {
		return cmp.Or(cmp.Compare(b.Upper, a.Upper), cmp.Compare(b.Lower, a.Lower), bytes.Compare(a.Key, b.Key))
	})
}

// outsideBounds returns, per pattern, the largest upper bound s holds for a
// key of the pattern that the pattern's own top keys do not track. Any
// other key of the pattern is untracked in s too, and weighs at most
// s.Floor().
func (t *Table) outsideBounds(s *sketch.Summary) []uint64 {
	out := make([]uint64, len(t.patterns))
	for _, e := range s.Top(s.Config().Counters) {
		i := t.lookup(e.Key)
		if i < 0 {
			continue
		}
		p := t.patterns[i]
		if p.top.find(sketch.Hash(e.Key), e.Key) < 0 {
			out[i] = max(out[i], e.Upper)
		}
	}
	return out
}

// lookup returns the index of key's pattern, or -1 if no kept pattern
// holds it, without learning anything.
func (t *Table) lookup(key []byte) int32 {
	t.ready()
	if len(key) > sketch.MaxKeyLen {
		key = key[:sketch.MaxKeyLen]
	}
	typ, parts := t.parts(key)
	h, _ := t.walk(typ, key, parts, nil)
	return t.find(h)
}

// PatternOf returns the pattern a key belongs to under what t has learnt,
// and false if no kept pattern holds it (it would count as other). It
// learns nothing.
func (t *Table) PatternOf(key []byte) (string, bool) {
	if i := t.lookup(key); i >= 0 {
		return t.patterns[i].String(), true
	}
	return "", false
}
