package sketch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkHH asserts plain Space-Saving's guarantees (no count-min) against
// the truth.
func checkHH(t *testing.T, name string, h *HeavyHitters, u *universe, tr *truth) {
	t.Helper()
	k, W := uint64(h.Counters()), tr.total
	if err := h.invariants(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if h.Floor()*k > W {
		t.Errorf("%s: Floor %d > W/k = %d/%d", name, h.Floor(), W, k)
	}
	for ki, key := range u.keys {
		w := tr.weight[ki]
		e, ok := h.Lookup(key, Hash(key))
		switch {
		case !ok && w > h.Floor():
			t.Errorf("%s: untracked key %q weighs %d > Floor %d", name, key, w, h.Floor())
		case !ok && w*k > W:
			t.Errorf("%s: key %q of weight %d > W/k is missing", name, key, w)
		case ok && (e.Lower > w || w > e.Upper || (e.Upper-e.Lower)*k > W):
			t.Errorf("%s: key %q: [%d, %d], true %d, W/k = %d/%d", name, key, e.Lower, e.Upper, w, W, k)
		case ok && e.Peak > tr.peak[ki]:
			t.Errorf("%s: key %q: Peak %d above true %d", name, key, e.Peak, tr.peak[ki])
		}
	}
}

// invariants checks the table's internal structure: heap order, positions,
// and an index holding each counter exactly once.
func (h *HeavyHitters) invariants() error {
	for i := range h.heap {
		if c := 2*i + 1; c < len(h.heap) && h.heap[c].count < h.heap[i].count {
			return fmt.Errorf("heap order broken at %d", i)
		}
		if int(h.slots[h.heap[i].slot].pos) != i {
			return fmt.Errorf("slot %d thinks it is at %d, not %d", h.heap[i].slot, h.slots[h.heap[i].slot].pos, i)
		}
		if int(h.heap[i].slot) >= len(h.heap) {
			return fmt.Errorf("slot %d in use beyond %d", h.heap[i].slot, len(h.heap))
		}
	}
	used := 0
	for _, b := range h.index {
		if b.slot != 0 {
			used++
		}
	}
	if used != len(h.heap) {
		return fmt.Errorf("%d buckets for %d counters", used, len(h.heap))
	}
	for i := range h.heap {
		sl := &h.slots[i]
		if h.find(sl.hash, sl.key) != i {
			return fmt.Errorf("slot %d (%q) not found by its hash", i, sl.key)
		}
	}
	return nil
}

func TestHeavyHittersSteps(t *testing.T) {
	type add struct {
		key    string
		weight uint64
	}
	type want struct {
		key          string
		lower, upper uint64
	}
	tests := []struct {
		name  string
		adds  []add
		top   []want
		floor uint64
	}{
		{"fills without eviction", []add{{"a", 3}, {"b", 2}}, []want{{"a", 3, 3}, {"b", 2, 2}}, 2},
		{"tracked key grows", []add{{"a", 1}, {"b", 1}, {"a", 1}}, []want{{"a", 2, 2}, {"b", 1, 1}}, 1},
		{"new key takes the smallest counter", []add{{"a", 3}, {"b", 2}, {"c", 4}}, []want{{"c", 4, 6}, {"a", 3, 3}}, 3},
		{"weight 0 changes nothing", []add{{"a", 3}, {"b", 0}, {"a", 0}}, []want{{"a", 3, 3}}, 0},
		{"returning key is bounded by its overcount", []add{{"a", 5}, {"b", 1}, {"c", 1}, {"b", 1}}, []want{{"a", 5, 5}, {"b", 1, 3}}, 3},
		{"ties break by lower bound, then key", []add{{"b", 2}, {"a", 2}}, []want{{"a", 2, 2}, {"b", 2, 2}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := NewHeavyHitters(2)
			for _, a := range tc.adds {
				h.Add([]byte(a.key), Hash([]byte(a.key)), a.weight, 0, 0)
			}
			var got []want
			for _, e := range h.Top(10) {
				got = append(got, want{string(e.Key), e.Lower, e.Upper})
			}
			if !slices.Equal(got, tc.top) || h.Floor() != tc.floor {
				t.Errorf("top %v floor %d, want %v floor %d", got, h.Floor(), tc.top, tc.floor)
			}
		})
	}
}

func TestHeavyHittersTicksAndItems(t *testing.T) {
	type add struct {
		key    string
		weight uint64
		tick   int64
		item   uint64
	}
	tests := []struct {
		name      string
		adds      []add
		peak      uint64
		item      uint64
		manyItems bool
	}{
		{"same tick adds up", []add{{"k", 3, 10, 0}, {"k", 4, 10, 0}}, 7, 0, false},
		{"later tick starts over", []add{{"k", 3, 10, 0}, {"k", 2, 11, 0}, {"k", 2, 11, 0}}, 4, 0, false},
		{"earlier tick counts alone", []add{{"k", 3, 10, 0}, {"k", 2, 11, 0}, {"k", 5, 10, 0}}, 5, 0, false},
		{"earlier tick never adds to the current one", []add{{"k", 3, 11, 0}, {"k", 3, 10, 0}, {"k", 3, 11, 0}}, 6, 0, false},
		{"one item", []add{{"k", 1, 0, 9}, {"k", 1, 0, 9}}, 2, 9, false},
		{"records without item do not count", []add{{"k", 1, 0, 0}, {"k", 1, 0, 9}, {"k", 1, 0, 0}}, 3, 9, false},
		{"two items", []add{{"k", 1, 0, 9}, {"k", 1, 0, 8}, {"k", 1, 0, 9}}, 3, 9, true},
		{"a new key starts over", []add{{"x", 5, 10, 7}, {"x", 5, 10, 8}, {"k", 11, 10, 9}}, 11, 9, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := NewHeavyHitters(1)
			for _, a := range tc.adds {
				h.Add([]byte(a.key), Hash([]byte(a.key)), a.weight, a.tick, a.item)
			}
			e, ok := h.Lookup([]byte("k"), Hash([]byte("k")))
			if !ok || e.Peak != tc.peak || e.Item != tc.item || e.ManyItems != tc.manyItems {
				t.Errorf("got %+v (tracked %v), want peak %d, item %d, many %v", e, ok, tc.peak, tc.item, tc.manyItems)
			}
		})
	}
}

func TestHeavyHittersMergeTicksAndItems(t *testing.T) {
	type add struct {
		weight uint64
		tick   int64
		item   uint64
	}
	tests := []struct {
		name       string
		a, b, then []add
		peak       uint64
		item       uint64
		manyItems  bool
	}{
		{"same last tick adds up", []add{{3, 10, 0}}, []add{{4, 10, 0}}, nil, 7, 0, false},
		{"later tick wins", []add{{3, 10, 0}}, []add{{4, 11, 0}}, []add{{1, 11, 0}}, 5, 0, false},
		{"earlier tick of the other is kept as peak", []add{{1, 11, 0}}, []add{{6, 10, 0}}, []add{{1, 11, 0}}, 6, 0, false},
		{"same item", []add{{1, 0, 5}}, []add{{1, 0, 5}}, nil, 2, 5, false},
		{"different items", []add{{1, 0, 5}}, []add{{1, 0, 6}}, nil, 2, 5, true},
		{"item from the other", []add{{1, 0, 0}}, []add{{1, 0, 6}}, nil, 2, 6, false},
		{"many items from the other", []add{{1, 0, 5}}, []add{{1, 0, 5}, {1, 0, 6}}, nil, 3, 5, true},
	}
	key := []byte("k")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := NewHeavyHitters(4)
			b, _ := NewHeavyHitters(4)
			for _, x := range tc.a {
				a.Add(key, Hash(key), x.weight, x.tick, x.item)
			}
			for _, x := range tc.b {
				b.Add(key, Hash(key), x.weight, x.tick, x.item)
			}
			if err := a.Merge(b); err != nil {
				t.Fatal(err)
			}
			for _, x := range tc.then {
				a.Add(key, Hash(key), x.weight, x.tick, x.item)
			}
			e, _ := a.Lookup(key, Hash(key))
			if e.Peak != tc.peak || e.Item != tc.item || e.ManyItems != tc.manyItems {
				t.Errorf("got %+v, want peak %d, item %d, many %v", e, tc.peak, tc.item, tc.manyItems)
			}
		})
	}
}

// TestHeavyHittersChurn runs plain Space-Saving, without the count-min gate
// of Summary, through its worst order, and checks that its heavy keys are
// evicted over and over and still found with bounds that hold.
func TestHeavyHittersChurn(t *testing.T) {
	u, stream := churnStream(1000, 500, 30)
	tr := newTruth(u, stream)
	h, _ := NewHeavyHitters(256)
	var ev evictions
	for _, r := range stream {
		key := u.keys[r.key]
		ev.add(h, key, u, tr, func() { h.Add(key, Hash(key), r.weight, r.tick, r.item) })
	}
	t.Logf("%d records, %d evictions, %d of a key heavier than W/k", len(stream), ev.all, ev.heavy)
	if ev.all < len(stream)*9/10 || ev.heavy < 1000 {
		t.Errorf("%d evictions, %d of heavy keys, in %d records: the order is not the worst", ev.all, ev.heavy, len(stream))
	}
	checkHH(t, "churn", h, u, tr)
}

// TestHeavyHittersMerge: plain Space-Saving merges (no count-min to tighten
// anything) of overlapping parts of a Zipf stream, 2 to 16 ways.
func TestHeavyHittersMerge(t *testing.T) {
	u := testUniverse()
	stream := zipfStream(u, 300_000, 1.1, 31)
	tr := newTruth(u, stream)
	for _, parts := range []int{2, 7, 16} {
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(parts), 1))
			hs := make([]*HeavyHitters, parts)
			for i := range hs {
				hs[i], _ = NewHeavyHitters(64)
			}
			for _, x := range stream {
				key := u.keys[x.key]
				hs[r.IntN(parts)].Add(key, Hash(key), x.weight, x.tick, x.item)
			}
			for _, o := range hs[1:] {
				if err := hs[0].Merge(o); err != nil {
					t.Fatal(err)
				}
			}
			checkHH(t, "merged", hs[0], u, tr)
		})
	}
}

// TestHeavyHittersRandomOps drives a tiny table through adds, merges,
// self-merges and resets, checking its structure after every step and its
// bounds against the truth at the end.
func TestHeavyHittersRandomOps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	u := newUniverse(40, 5)
	h, _ := NewHeavyHitters(8)
	var stream []rec
	for step := range 20_000 {
		switch op := r.IntN(100); {
		case op < 90:
			x := rec{key: int32(r.IntN(len(u.keys))), weight: uint64(r.IntN(20)), tick: int64(r.IntN(5))}
			stream = append(stream, x)
			h.Add(u.keys[x.key], Hash(u.keys[x.key]), x.weight, x.tick, 0)
		case op < 98:
			o, _ := NewHeavyHitters(8)
			for range r.IntN(30) {
				x := rec{key: int32(r.IntN(len(u.keys))), weight: uint64(1 + r.IntN(20)), tick: int64(r.IntN(5))}
				stream = append(stream, x)
				o.Add(u.keys[x.key], Hash(u.keys[x.key]), x.weight, x.tick, 0)
			}
			if err := h.Merge(o); err != nil {
				t.Fatal(err)
			}
		case op < 99:
			if err := h.Merge(h); err != nil {
				t.Fatal(err)
			}
			stream = append(stream, stream...)
		default:
			h.Reset()
			stream = stream[:0]
		}
		if err := h.invariants(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	checkHH(t, "random ops", h, u, newTruth(u, stream))
}

// TestHeavyHittersHashCollision: two keys with the same hash are two keys.
func TestHeavyHittersHashCollision(t *testing.T) {
	h, _ := NewHeavyHitters(4)
	h.Add([]byte("a"), 7, 3, 0, 0)
	h.Add([]byte("b"), 7, 5, 0, 0)
	h.Add([]byte("a"), 7, 1, 0, 0)
	a, okA := h.Lookup([]byte("a"), 7)
	b, okB := h.Lookup([]byte("b"), 7)
	if !okA || !okB || a.Upper != 4 || b.Upper != 5 {
		t.Errorf("a %+v %v, b %+v %v", a, okA, b, okB)
	}
	if err := h.invariants(); err != nil {
		t.Error(err)
	}
}

func TestHeavyHittersMergeMismatch(t *testing.T) {
	a, _ := NewHeavyHitters(4)
	b, _ := NewHeavyHitters(8)
	if err := a.Merge(b); !isErr(err, ErrConfigMismatch) {
		t.Errorf("Merge of 8 counters into 4: %v", err)
	}
	if _, err := NewHeavyHitters(0); !isErr(err, ErrConfig) {
		t.Errorf("NewHeavyHitters(0): %v", err)
	}
}
