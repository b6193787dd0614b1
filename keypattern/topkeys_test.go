package keypattern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// topOracle is a stream's exact WCU per key.
type topOracle map[string]uint64

// checkTop holds a table of top keys to its guarantees against the truth:
// every tracked key's bounds bracket its WCU, at most W/k apart, and no
// untracked key weighs more than bound().
func checkTop(t *testing.T, name string, s *topKeys, o topOracle, total uint64) {
	t.Helper()
	tracked := map[string]bool{}
	for _, e := range s.sorted() {
		w := o[string(e.key)]
		tracked[string(e.key)] = true
		if e.count-e.err > w || w > e.count || e.err > total/uint64(s.k) {
			t.Errorf("%s: %q in [%d, %d], true %d, W/k %d", name, e.key, e.count-e.err, e.count, w, total/uint64(s.k))
		}
	}
	for k, w := range o {
		if !tracked[k] && w > s.bound() {
			t.Errorf("%s: untracked %q weighs %d, bound %d", name, k, w, s.bound())
		}
	}
}

// topStream draws n records over keys from a Zipf-like law: key i with
// weight ∝ 1/(i+1)^s, and a WCU of 1 to 4.
func topStream(seed uint64, n, keys int) (recs [][2]uint64, o topOracle, total uint64) {
	r := rand.New(rand.NewPCG(seed, 3))
	z := rand.NewZipf(r, 1.2, 1, uint64(keys-1))
	o = topOracle{}
	for range n {
		k, w := z.Uint64(), 1+uint64(r.IntN(4))
		recs = append(recs, [2]uint64{k, w})
		o[fmt.Sprint("key", k)] += w
		total += w
	}
	return recs, o, total
}

// TestTopKeys checks the bounds on Zipf streams, for each k, alone, merged
// from shards (Agarwal et al.), and trimmed.
func TestTopKeys(t *testing.T) {
	for _, k := range []int{1, 3, 8, MaxTopKeys} {
		for seed := range uint64(3) {
			recs, o, total := topStream(seed, 2000, 500)
			one := newTopKeys(k)
			parts := []topKeys{newTopKeys(k), newTopKeys(k), newTopKeys(k)}
			for i, rw := range recs {
				key := []byte(fmt.Sprint("key", rw[0]))
				one.add(key, sketch.Hash(key), rw[1])
				parts[i%3].add(key, sketch.Hash(key), rw[1])
			}
			checkTop(t, fmt.Sprintf("k=%d seed=%d", k, seed), &one, o, total)
			merged := parts[0].clone()
			merged.merge(&parts[1])
			merged.merge(&parts[2])
			checkTop(t, fmt.Sprintf("merged k=%d seed=%d", k, seed), &merged, o, total)
			one.trim(1)
			checkTop(t, fmt.Sprintf("trimmed k=%d seed=%d", k, seed), &one, o, total)
			if one.len() > 1 {
				t.Errorf("trimmed to %d keys", one.len())
			}
		}
	}
}

// TestTopKeysTags: a key found by its tag is the key, not another of the
// same tag byte.
func TestTopKeysTags(t *testing.T) {
	s := newTopKeys(MaxTopKeys)
	// Hashes sharing the top byte, the tag.
	for i := range MaxTopKeys {
		s.add([]byte{byte(i)}, 0xab<<56|uint64(i), 1)
	}
	for i := range MaxTopKeys {
		if j := s.find(0xab<<56|uint64(i), []byte{byte(i)}); j < 0 || s.keys[j][0] != byte(i) {
			t.Fatalf("key %d found at %d", i, j)
		}
	}
	if j := s.find(0xab<<56|99, []byte{99}); j >= 0 {
		t.Errorf("an absent key found at %d", j)
	}
}
