package clientwindow

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// refLatency is the latency table's rule written the plain way: find the
// key among the slots; else take a new slot while there are fewer than
// latencySlots, else the first slot with the fewest samples, emptied.
type refLatency struct{ slots []latencySlot }

func (r *refLatency) add(key []byte, h uint64, d time.Duration) {
	for i := range r.slots {
		if string(r.slots[i].key) == string(key) {
			r.slots[i].samples++
			r.slots[i].buckets[latencyBucket(d)]++
			return
		}
	}
	var s *latencySlot
	if len(r.slots) < latencySlots {
		r.slots = append(r.slots, latencySlot{})
		s = &r.slots[len(r.slots)-1]
	} else {
		s = &r.slots[0]
		for i := range r.slots {
			if r.slots[i].samples < s.samples {
				s = &r.slots[i]
			}
		}
		*s = latencySlot{}
	}
	s.hash, s.key, s.samples = h, append([]byte(nil), key...), 1
	s.buckets[latencyBucket(d)]++
}

// TestLatencyTableAgainstReference: the table, with its packed hashes and
// counts, holds exactly the slots the plain rule holds, after every call,
// for skewed and uniform key streams that keep every slot changing hands.
func TestLatencyTableAgainstReference(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys int
		zipf bool
	}{
		{"fits", 40, false},
		{"uniform", 1000, false},
		{"zipf", 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			z := rand.NewZipf(rng, 1.1, 1, uint64(tc.keys-1))
			var got latencyTable
			var want refLatency
			for n := range 20_000 {
				k := rng.IntN(tc.keys)
				if tc.zipf {
					k = int(z.Uint64())
				}
				key := []byte("user#" + strconv.Itoa(k))
				d := time.Duration(rng.Int64N(int64(time.Second)))
				got.add(key, sketch.Hash(key), d)
				want.add(key, sketch.Hash(key), d)
				if n%997 == 0 || n == 19_999 {
					if diff := cmp.Diff(want.slots, got.slots, cmp.AllowUnexported(latencySlot{})); diff != "" {
						t.Fatalf("after %d calls (-reference +table):\n%s", n+1, diff)
					}
					for i, s := range got.slots {
						if got.hashes[i] != s.hash || got.samples[i] != s.samples {
							t.Fatalf("after %d calls, slot %d: packed hash %x, samples %d; slot says %x, %d", n+1, i, got.hashes[i], got.samples[i], s.hash, s.samples)
						}
						if l := got.lookup(s.key, s.hash); l != &got.slots[i] {
							t.Fatalf("after %d calls, lookup of slot %d's key found %p, want %p", n+1, i, l, &got.slots[i])
						}
					}
				}
			}
		})
	}
}
