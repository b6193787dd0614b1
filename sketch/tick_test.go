package sketch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAppendTickBoundsAgainstOracle checks AppendTick, at the end of every
// tick of a skewed stream that evicts keys, against the exact weights:
// every listed key's true weight in the tick is within [Weight, Weight +
// Upper - Lower]; a key tracked exactly (Lower = Upper) has its exact
// weight; and every key the oracle puts at the level that has such an
// exact entry is listed.
func TestAppendTickBoundsAgainstOracle(t *testing.T) {
	for _, counters := range []int{8, 64} {
		t.Run(fmt.Sprint(counters, " counters"), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(counters)))
			s, err := NewSummary(Config{Counters: counters, Width: 256, Depth: 4})
			if err != nil {
				t.Fatal(err)
			}
			const level = 40
			var dst []TickEntry
			for tick := int64(100); tick < 160; tick++ {
				exact := map[string]uint64{}
				for range 400 {
					k := fmt.Sprintf("K%d", min(rng.IntN(300), rng.IntN(300)))
					w := uint64(1 + rng.IntN(3))
					s.Add([]byte(k), w, tick, 0)
					exact[k] += w
				}
				dst = s.AppendTick(dst[:0], tick, level)
				listed := map[string]bool{}
				for _, e := range dst {
					k := string(e.Key)
					listed[k] = true
					if e.Weight < level {
						t.Errorf("tick %d: %s listed at weight %d, under level %d", tick, k, e.Weight, level)
					}
					if e.Hash != Hash(e.Key) {
						t.Errorf("tick %d: %s listed with hash %#x, want %#x", tick, k, e.Hash, Hash(e.Key))
					}
					if got := exact[k]; got < e.Weight || got > e.Weight+e.Upper-e.Lower {
						t.Errorf("tick %d: %s weighed %d, outside [%d, %d]", tick, k, got, e.Weight, e.Weight+e.Upper-e.Lower)
					}
				}
				for k, w := range exact {
					e, ok := s.Lookup([]byte(k))
					if w >= level && ok && e.Lower == e.Upper && !listed[k] {
						t.Errorf("tick %d: %s weighed %d, tracked exactly, not listed", tick, k, w)
					}
				}
				for _, e := range s.AppendTick(nil, tick-1, 1) {
					if exact[string(e.Key)] != 0 {
						t.Errorf("tick %d: %s listed for the tick before, though written since", tick, e.Key)
					}
				}
			}
		})
	}
}

func TestAppendTickAllocates(t *testing.T) {
	s, _ := NewSummary(DefaultConfig())
	for i := range 100 {
		s.Add(fmt.Appendf(nil, "K%d", i%10), 10, 5, 0)
	}
	dst := make([]TickEntry, 0, 16)
	if n := testing.AllocsPerRun(100, func() { dst = s.AppendTick(dst[:0], 5, 1) }); n != 0 {
		t.Errorf("AppendTick with room allocated %v times", n)
	}
	if len(dst) != 10 {
		t.Errorf("listed %d keys, want 10", len(dst))
	}
	var zero Summary
	if got := zero.AppendTick(nil, 5, 1); got != nil {
		t.Errorf("zero Summary listed %v", got)
	}
}
