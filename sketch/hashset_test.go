package sketch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHashSet checks the set against a map, through growth, the hash 0,
// repeats, clone and reset.
func TestHashSet(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 5000} {
		r := rand.New(rand.NewPCG(uint64(n), 9))
		var s hashSet
		want := map[uint64]bool{}
		for i := range n {
			h := r.Uint64()
			switch i % 5 {
			case 1:
				h = 0
			case 2: // small hashes share their high bits, so they probe
				h = uint64(i)
			}
			s.add(h)
			want[h] = true
			if i%3 == 0 { // a repeat changes nothing
				s.add(h)
			}
		}
		if s.len() != len(want) {
			t.Fatalf("n=%d: len %d, want %d", n, s.len(), len(want))
		}
		c := s.clone()
		var got []uint64
		s.each(func(h uint64) { got = append(got, h) })
		if len(got) != len(want) {
			t.Fatalf("n=%d: each gave %d hashes, want %d", n, len(got), len(want))
		}
		for _, h := range got {
			if !want[h] {
				t.Fatalf("n=%d: each gave %#x, never added", n, h)
			}
		}
		s.reset()
		if s.len() != 0 || slices.ContainsFunc(s.slots, func(h uint64) bool { return h != 0 }) || s.zero {
			t.Fatalf("n=%d: reset left %d hashes", n, s.len())
		}
		kept := 0
		c.each(func(h uint64) {
			if want[h] {
				kept++
			}
		})
		if kept != len(want) || c.len() != len(want) { // the clone shares no slots
			t.Fatalf("n=%d: the clone kept %d of %d hashes after reset", n, kept, len(want))
		}
	}
}
