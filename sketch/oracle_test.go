package sketch

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// This file holds the exact oracle the sketches are checked against, and
// the streams fed to both.

// rec is one record of a test stream: key is an index into a universe.
type rec struct {
	key    int32
	weight uint64
	tick   int64
	item   uint64
}

// universe is a set of distinct keys of 16 to 64 bytes.
type universe struct {
	keys  [][]byte
	index map[string]int32
}

func newUniverse(n int, seed uint64) *universe {
	r := rand.New(rand.NewPCG(seed, 1))
	u := &universe{keys: make([][]byte, n), index: make(map[string]int32, n)}
	for i := range u.keys {
		k := fmt.Appendf(nil, "USER#%08d#", i)
		for len(k) < 16+r.IntN(49) {
			k = append(k, 'a'+byte(r.IntN(26)))
		}
		u.keys[i] = k
		u.index[string(k)] = int32(i)
	}
	return u
}

// zipf draws ranks 0..n-1 with probability ∝ 1/(rank+1)^s, for any s > 0
// (math/rand/v2's Zipf needs s > 1), from the cumulative distribution.
type zipf struct {
	cdf  []float64
	perm []int32 // rank → key, so that heavy keys are not the first ones
}

func newZipf(n int, s float64, r *rand.Rand) *zipf {
	z := &zipf{cdf: make([]float64, n), perm: make([]int32, n)}
	sum := 0.0
	for i := range z.cdf {
		sum += math.Pow(float64(i+1), -s)
		z.cdf[i] = sum
	}
	for i := range z.perm {
		z.perm[i] = int32(i)
	}
	r.Shuffle(n, func(i, j int) { z.perm[i], z.perm[j] = z.perm[j], z.perm[i] })
	return z
}

func (z *zipf) draw(r *rand.Rand) int32 {
	x := r.Float64() * z.cdf[len(z.cdf)-1]
	return z.perm[sort.SearchFloat64s(z.cdf, x)]
}

// zipfStream returns n records over u with exponent s and weights 1-400,
// 1,000 records per tick, and 2 % of records up to 5 ticks late. Items: a
// third of the keys always write one item, a third one of four, a third
// none.
func zipfStream(u *universe, n int, s float64, seed uint64) []rec {
	r := rand.New(rand.NewPCG(seed, 2))
	z := newZipf(len(u.keys), s, r)
	out := make([]rec, n)
	for i := range out {
		k := z.draw(r)
		tick := int64(1_800_000_000 + i/1000)
		if r.IntN(50) == 0 {
			tick -= int64(1 + r.IntN(5))
		}
		out[i] = rec{key: k, weight: 1 + uint64(r.IntN(400)), tick: tick, item: itemOf(k, r)}
	}
	return out
}

func itemOf(k int32, r *rand.Rand) uint64 {
	switch k % 3 {
	case 0:
		return uint64(k)<<8 | 1
	case 1:
		return uint64(k)<<8 | uint64(2+r.IntN(4))
	}
	return 0
}

// truth is the exact answer for a stream.
type truth struct {
	total    uint64
	weight   []uint64 // per key of the universe
	peak     []uint64 // largest weight within one tick
	items    []uint8  // distinct non-zero items: 0, 1, or 2 meaning "more"
	itemOf   []uint64 // the item, when there is one
	distinct int
}

func newTruth(u *universe, stream []rec) *truth {
	n := len(u.keys)
	t := &truth{weight: make([]uint64, n), peak: make([]uint64, n), items: make([]uint8, n), itemOf: make([]uint64, n)}
	order := make([]int32, len(stream))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ra, rb := &stream[a], &stream[b]
		if ra.key != rb.key {
			return int(ra.key - rb.key)
		}
		return cmpInt64(ra.tick, rb.tick)
	})
	var run uint64
	for i, j := range order {
		r := &stream[j]
		t.total += r.weight
		if t.weight[r.key] == 0 {
			t.distinct++
		}
		t.weight[r.key] += r.weight
		if i > 0 && stream[order[i-1]].key == r.key && stream[order[i-1]].tick == r.tick {
			run += r.weight
		} else {
			run = r.weight
		}
		t.peak[r.key] = max(t.peak[r.key], run)
		switch {
		case r.item == 0:
		case t.items[r.key] == 0:
			t.items[r.key], t.itemOf[r.key] = 1, r.item
		case t.itemOf[r.key] != r.item:
			t.items[r.key] = 2
		}
	}
	return t
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func build(t testing.TB, cfg Config, u *universe, stream []rec) *Summary {
	t.Helper()
	s, err := NewSummary(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stream {
		s.Add(u.keys[r.key], r.weight, r.tick, r.item)
	}
	return s
}

// check asserts every guarantee of s against the truth, and returns how
// many keys were above W/k, so that callers can tell a vacuous check.
func check(t *testing.T, name string, s *Summary, u *universe, tr *truth) (aboveThreshold int) {
	t.Helper()
	k := uint64(s.Config().Counters)
	W := tr.total
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: "+format, append([]any{name}, args...)...)
	}
	if s.Total() != W {
		fail("Total = %d, want %d", s.Total(), W)
	}
	if f := s.hh.Floor(); f*k > W {
		fail("Floor %d > W/k = %d/%d", f, W, k)
	}
	top := s.Top(int(k))
	reported := make(map[int32]bool, len(top))
	for i, e := range top {
		ki, ok := u.index[string(e.Key)]
		if !ok {
			fail("Top reports unknown key %q", e.Key)
			continue
		}
		reported[ki] = true
		w := tr.weight[ki]
		if e.Lower > w || w > e.Upper {
			fail("key %q: bounds [%d, %d] miss true weight %d", e.Key, e.Lower, e.Upper, w)
		}
		if (e.Upper-e.Lower)*k > W {
			fail("key %q: bounds [%d, %d] wider than W/k = %d/%d", e.Key, e.Lower, e.Upper, W, k)
		}
		if e.Peak > tr.peak[ki] {
			fail("key %q: Peak %d above true peak %d", e.Key, e.Peak, tr.peak[ki])
		}
		switch {
		case tr.items[ki] == 0 && (e.Item != 0 || e.ManyItems):
			fail("key %q: item %x, many %v; it has no item", e.Key, e.Item, e.ManyItems)
		case tr.items[ki] == 1 && (e.ManyItems || (e.Item != 0 && e.Item != tr.itemOf[ki])):
			fail("key %q: item %x, many %v; its only item is %x", e.Key, e.Item, e.ManyItems, tr.itemOf[ki])
		case e.ManyItems && e.Item == 0:
			fail("key %q: many items but none", e.Key)
		}
		if i > 0 {
			p := top[i-1]
			if p.Upper < e.Upper || (p.Upper == e.Upper && (p.Lower < e.Lower || (p.Lower == e.Lower && bytes.Compare(p.Key, e.Key) >= 0))) {
				fail("Top out of order at %d", i)
			}
		}
	}
	for ki, w := range tr.weight {
		if w*k > W {
			aboveThreshold++
			if !reported[int32(ki)] {
				fail("key %q of weight %d > W/k = %d/%d is missing from Top", u.keys[ki], w, W, k)
			}
		}
		if w*100 >= W && !reported[int32(ki)] {
			fail("key %q of share %.3f %% is missing from Top", u.keys[ki], 100*float64(w)/float64(W))
		}
		lo, hi := s.Estimate(u.keys[ki])
		if lo > w || w > hi {
			fail("Estimate(%q) = [%d, %d], true %d", u.keys[ki], lo, hi, w)
		}
		if !reported[int32(ki)] && hi*k > W {
			fail("Estimate(%q) of an untracked key = %d > W/k", u.keys[ki], hi)
		}
	}
	if d := s.Distinct(); !within(d, tr.distinct, 0.02) {
		fail("Distinct = %d, true %d", d, tr.distinct)
	}
	return aboveThreshold
}

func within(got uint64, want int, rel float64) bool {
	return math.Abs(float64(got)-float64(want)) <= rel*float64(want)
}

// roundTrip encodes and decodes s, failing the test on error.
func roundTrip(t testing.TB, s *Summary) *Summary {
	t.Helper()
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Summary
	if err := d.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if err := sameContent(s, &d); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	return &d
}

// counterState is one heavy-hitter counter: its count and every field of
// its slot. Which slot of the arena holds it is not content.
type counterState struct {
	Count uint64
	Slot  slot
}

// summaryState is what a Summary holds, in a form go-cmp compares whole.
// The HyperLogLog is compared by its estimate: its encoding is not
// canonical.
type summaryState struct {
	Cfg      Config
	Total    uint64
	Cells    []uint64
	Counters []counterState // in heap order
	Distinct uint64
}

func stateOf(s *Summary) summaryState {
	s.ready()
	st := summaryState{Cfg: s.cfg, Total: s.total, Cells: s.cm.cells, Distinct: s.Distinct()}
	for _, n := range s.hh.heap {
		st.Counters = append(st.Counters, counterState{Count: n.count, Slot: s.hh.slots[n.slot]})
	}
	return st
}

// sameContent compares two summaries by what they hold, not by bytes, and
// checks that each one's index finds every key it counts.
func sameContent(a, b *Summary) error {
	for _, s := range []*Summary{a, b} {
		for i, n := range s.hh.heap {
			sl := s.hh.slots[n.slot]
			if got := s.hh.find(sl.hash, sl.key); got != int(n.slot) {
				return fmt.Errorf("heap entry %d (%q): the index finds slot %d, want %d", i, sl.key, got, n.slot)
			}
		}
	}
	if diff := cmp.Diff(stateOf(a), stateOf(b), cmp.AllowUnexported(slot{}), cmpopts.EquateEmpty()); diff != "" {
		return fmt.Errorf("contents differ (-a +b):\n%s", diff)
	}
	return nil
}
