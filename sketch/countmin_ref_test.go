package sketch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refCountMinAdd is CountMin.Add as first written, the plain rule: read
// every row's cell, raise those below the new minimum to it.
func refCountMinAdd(c *CountMin, hash, weight uint64) uint64 {
	a, b := uint32(hash), uint32(hash>>32)
	idx := make([]int, c.depth)
	est := uint64(math.MaxUint64)
	for i := range c.depth {
		idx[i] = c.column(i, a, b)
		est = min(est, c.cells[idx[i]])
	}
	next := est + weight
	if next < est {
		next = math.MaxUint64
	}
	for _, j := range idx {
		if c.cells[j] < next {
			c.cells[j] = next
		}
	}
	return next
}

// TestCountMinAddReference holds Add, whatever its layout of the work, to
// the plain rule: the same estimates and every cell the same after each
// add, for every depth, widths that are and are not powers of two, and
// weights up to saturation.
func TestCountMinAddReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for depth := 1; depth <= MaxDepth; depth++ {
		for _, width := range []int{1, 7, 256, 1000} {
			got, _ := NewCountMin(width, depth)
			want, _ := NewCountMin(width, depth)
			for i := range 5000 {
				h := r.Uint64()
				if i%3 == 0 {
					h = uint64(r.IntN(50)) * 0x9e3779b97f4a7c15 // keys that recur
				}
				w := uint64(r.IntN(5))
				if i%997 == 0 {
					w = math.MaxUint64 / 3
				}
				if g, e := got.Add(h, w), refCountMinAdd(want, h, w); g != e {
					t.Fatalf("depth %d width %d add %d: estimate %d, want %d", depth, width, i, g, e)
				}
				if !slices.Equal(got.cells, want.cells) {
					t.Fatalf("depth %d width %d add %d: cells differ", depth, width, i)
				}
			}
		}
	}
}
