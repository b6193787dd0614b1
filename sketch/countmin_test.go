package sketch

import (
	"math"
	"testing"
)

// plainCM is Count-Min without conservative update, sharing CountMin's
// columns: the sketch whose bounds conservative update must never exceed.
type plainCM struct{ CountMin }

func (p *plainCM) add(hash, weight uint64) {
	a, b := uint32(hash), uint32(hash>>32)
	for i := range p.depth {
		p.cells[p.column(i, a, b)] += weight
	}
}

// TestCountMinGuarantee checks the stated bound on 100k keys: never below
// the truth, never above plain Count-Min, and above truth + εW for at most
// a fraction δ of keys (ε = e/width, δ = e^-depth). Also for the merge of
// two sketches of overlapping parts.
func TestCountMinGuarantee(t *testing.T) {
	u := testUniverse()
	stream := zipfStream(u, 500_000, 0.7, 40)
	tr := newTruth(u, stream)
	for _, size := range []struct{ width, depth int }{{1024, 4}, {256, 2}, {4096, 3}} {
		cu, _ := NewCountMin(size.width, size.depth)
		p1, _ := NewCountMin(size.width, size.depth)
		p2, _ := NewCountMin(size.width, size.depth)
		plain := &plainCM{*cu}
		plain.cells = make([]uint64, len(cu.cells))
		for i, r := range stream {
			h := Hash(u.keys[r.key])
			cu.Add(h, r.weight)
			plain.add(h, r.weight)
			if i%3 == 0 {
				p1.Add(h, r.weight)
			} else {
				p2.Add(h, r.weight)
			}
		}
		if err := p1.Merge(p2); err != nil {
			t.Fatal(err)
		}
		eps := math.E / float64(size.width) * float64(tr.total)
		delta := math.Exp(-float64(size.depth))
		for name, c := range map[string]*CountMin{"direct": cu, "merged": p1} {
			over := 0
			for ki, key := range u.keys {
				h := Hash(key)
				est, w := c.Estimate(h), tr.weight[ki]
				if est < w || est > plain.Estimate(h) {
					t.Fatalf("%dx%d %s: key %q: estimate %d, truth %d, plain %d", size.width, size.depth, name, key, est, w, plain.Estimate(h))
				}
				if float64(est-w) > eps {
					over++
				}
			}
			frac := float64(over) / float64(len(u.keys))
			t.Logf("%dx%d %s: %.4f %% of keys beyond εW (δ = %.2f %%)", size.width, size.depth, name, 100*frac, 100*delta)
			if frac > delta {
				t.Errorf("%dx%d %s: %.4f of keys beyond εW, δ = %.4f", size.width, size.depth, name, frac, delta)
			}
		}
	}
}

func TestCountMinEdges(t *testing.T) {
	t.Run("one cell holds the total", func(t *testing.T) {
		c, _ := NewCountMin(1, 1)
		c.Add(1, 5)
		c.Add(2, 7)
		if c.Estimate(3) != 12 {
			t.Errorf("Estimate = %d, want 12", c.Estimate(3))
		}
	})
	t.Run("saturates instead of wrapping", func(t *testing.T) {
		c, _ := NewCountMin(4, 2)
		c.Add(1, math.MaxUint64-1)
		if got := c.Add(1, 5); got != math.MaxUint64 {
			t.Errorf("Add = %d", got)
		}
		d, _ := NewCountMin(4, 2)
		d.Add(1, 10)
		if err := c.Merge(d); err != nil || c.Estimate(1) != math.MaxUint64 {
			t.Errorf("Merge: %v, estimate %d", err, c.Estimate(1))
		}
	})
	t.Run("merge of another size fails", func(t *testing.T) {
		a, _ := NewCountMin(4, 2)
		b, _ := NewCountMin(4, 3)
		if err := a.Merge(b); !isErr(err, ErrConfigMismatch) {
			t.Errorf("Merge: %v", err)
		}
	})
	t.Run("invalid sizes", func(t *testing.T) {
		for _, s := range [][2]int{{0, 1}, {1, 0}, {MaxWidth + 1, 1}, {1, MaxDepth + 1}} {
			if _, err := NewCountMin(s[0], s[1]); !isErr(err, ErrConfig) {
				t.Errorf("NewCountMin(%d, %d): %v", s[0], s[1], err)
			}
		}
	})
	t.Run("Reset", func(t *testing.T) {
		c, _ := NewCountMin(8, 2)
		c.Add(0x9e3779b97f4a7c15, 3)
		c.Reset()
		for i := range 100 {
			if c.Estimate(uint64(i)) != 0 {
				t.Fatal("not empty after Reset")
			}
		}
	})
}

// TestCountMinRowsIndependent: the depth in δ = e^-depth assumes rows that
// hash independently. With double hashing, two keys that share a column in
// one row must share one in another row no more often than chance, 1/width.
func TestCountMinRowsIndependent(t *testing.T) {
	u := testUniverse()
	c, _ := NewCountMin(1024, 4)
	for i := range c.depth {
		for j := i + 1; j < c.depth; j++ {
			one := map[int]int{}
			both := map[[2]int]int{}
			for _, key := range u.keys {
				h := Hash(key)
				ci, cj := c.column(i, uint32(h), uint32(h>>32)), c.column(j, uint32(h), uint32(h>>32))
				one[ci]++
				both[[2]int{ci, cj}]++
			}
			pairs := func(n int) float64 { return float64(n) * float64(n-1) / 2 }
			var inRow, inBoth float64
			for _, n := range one {
				inRow += pairs(n)
			}
			for _, n := range both {
				inBoth += pairs(n)
			}
			ratio := inBoth / (inRow / float64(c.width))
			if ratio < 0.8 || ratio > 1.25 {
				t.Errorf("rows %d and %d: pairs colliding in both are %.2f× chance", i, j, ratio)
			}
		}
	}
}
