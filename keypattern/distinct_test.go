package keypattern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistinctAccuracy: exact up to exactKeys, then within the stated
// error: over 40 seeds at each size, the root mean square relative error
// stays within 1.2 × 1.04/√512 and no estimate is off by more than 4
// standard errors.
func TestDistinctAccuracy(t *testing.T) {
	for _, n := range []int{1, 50, exactKeys, exactKeys + 1, 500, 3000, 30000} {
		var sq, worst float64
		const seeds = 40
		for seed := range uint64(seeds) {
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			var d distinct
			for range n {
				fp := uint32(r.Uint64() >> 32)
				d.add(fp)
				if r.IntN(3) == 0 {
					d.add(fp) // again: counted once
				}
			}
			got := float64(d.count())
			if n <= exactKeys && (got != float64(n) || !d.exact()) {
				t.Fatalf("n = %d: %v (exact %v)", n, got, d.exact())
			}
			e := (got - float64(n)) / float64(n)
			sq += e * e
			worst = max(worst, math.Abs(e))
		}
		rms := math.Sqrt(sq / seeds)
		if rms > 1.2*relErr || worst > 4*relErr {
			t.Errorf("n = %d: rms error %.2f %%, worst %.2f %%, stated %.2f %%", n, 100*rms, 100*worst, 100*relErr)
		}
		t.Logf("n = %7d: rms error %.2f %%, worst %.2f %%", n, 100*rms, 100*worst)
	}
}

// TestDistinctMerge: merged counters equal the counter of every key,
// whichever forms (exact, dense) meet.
func TestDistinctMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sizes := range [][2]int{{10, 20}, {100, 100}, {10, 5000}, {5000, 10}, {4000, 4000}} {
		var a, b, all distinct
		for i, n := range sizes {
			for range n {
				fp := uint32(r.Uint64())
				[]*distinct{&a, &b}[i].add(fp)
				all.add(fp)
			}
		}
		a.merge(&b)
		if a.count() != all.count() || a.exact() != all.exact() || (a.regs != nil && string(a.regs) != string(all.regs)) {
			t.Errorf("sizes %v: merged %d (exact %v), one counter %d (exact %v)", sizes, a.count(), a.exact(), all.count(), all.exact())
		}
	}
}
