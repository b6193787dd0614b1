package keypattern

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
)

// topKeys is one pattern's heaviest keys: weighted Space-Saving (Metwally,
// Agrawal and El Abbadi, ICDT 2005) with k counters, merged per Agarwal et
// al., "Mergeable Summaries" (PODS 2012), the algorithm and the guarantees
// of sketch.HeavyHitters: for a pattern of WCU W, every tracked key's true
// WCU lies in [count - err, count], at most W/k apart, and any key not
// tracked weighs at most floor(), itself at most W/k.
//
// It is its own small table rather than a sketch.HeavyHitters because a
// pattern needs a handful of counters, found by a scan of k hashes, and
// because sketch does not export the encoding of a lone HeavyHitters,
// which a pattern table must carry. Once sketch exports one, this can go.
type topKeys struct {
	// The counters, in arrays a miss scans: n of them, at most k; keys[n:]
	// keep their buffers for reuse. tags holds a byte of each counter's
	// hash, eight to a word, so that a key not tracked (most keys of a
	// pattern of many) is told in a few word operations.
	n, k  int
	tags  [MaxTopKeys / 8]uint64
	hash  [MaxTopKeys]uint64
	count [MaxTopKeys]uint64
	err   [MaxTopKeys]uint64
	keys  [MaxTopKeys][]byte
	floor uint64 // raised by trim: no dropped key weighs more
}

// topEntry is one counter, copied out.
type topEntry struct {
	hash       uint64
	count, err uint64
	key        []byte
}

func newTopKeys(k int) topKeys { return topKeys{k: k} }

// tag is the byte of a hash that tags holds.
func tag(hash uint64) uint64 { return hash >> 56 }

// setTag sets counter i's tag.
func (s *topKeys) setTag(i int, hash uint64) {
	sh := 8 * uint(i%8)
	s.tags[i/8] = s.tags[i/8]&^(0xff<<sh) | tag(hash)<<sh
}

// add counts w for key, whose hash is hash, and returns its counter. A
// weight of 0 changes nothing (the heaviest keys are by WCU) and returns
// -1. It allocates only to hold a key longer than any its counter held
// before.
func (s *topKeys) add(key []byte, hash, w uint64) int {
	if w == 0 {
		return -1
	}
	if i := s.find(hash, key); i >= 0 {
		s.count[i] = satAdd(s.count[i], w)
		return i
	}
	i, base := s.n, s.floor
	if i < s.k {
		s.n++
	} else {
		cs := s.count[:s.n]
		i = 0
		low := cs[0]
		for j := 1; j < len(cs); j++ {
			if cs[j] < low {
				i, low = j, cs[j]
			}
		}
		base = max(base, low)
	}
	s.hash[i], s.err[i], s.count[i] = hash, base, satAdd(base, w)
	s.setTag(i, hash)
	s.keys[i] = append(s.keys[i][:0], key...)
	return i
}

// find returns the counter of key, whose hash is hash, or -1. Each word of
// tags is searched for the key's tag at once (SWAR: a zero byte in
// tags ^ tag×0x0101…, which may also flag a byte above a zero one: the
// hash and the key settle it).
func (s *topKeys) find(hash uint64, key []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	t := tag(hash) * ones
	for w := 0; w*8 < s.n; w++ {
		x := s.tags[w] ^ t
		z := (x - ones) &^ x & highs
		if left := s.n - w*8; left < 8 {
			z &= 1<<(8*left) - 1
		}
		for ; z != 0; z &= z - 1 {
			i := w*8 + bits.TrailingZeros64(z)/8
			if s.hash[i] == hash && bytes.Equal(s.keys[i], key) {
				return i
			}
		}
	}
	return -1
}

// again counts w for the key of counter i, if i still holds the key of
// hash hash, and reports whether it did: the path of a key whose counter
// the caller remembers.
func (s *topKeys) again(i int, hash, w uint64) bool {
	if uint(i) >= uint(s.n) || s.hash[i] != hash {
		return false
	}
	s.count[i] = satAdd(s.count[i], w)
	return true
}

// bound returns an upper bound on the WCU of any key not tracked.
func (s *topKeys) bound() uint64 {
	if s.n < s.k {
		return s.floor
	}
	return max(s.floor, slices.Min(s.count[:s.n]))
}

// merge adds o's counts, as Agarwal et al. do: a key absent from one side
// counts that side's bound, as count and as overcount; the k largest sums
// stay. Both sides must have the same k.
func (s *topKeys) merge(o *topKeys) {
	bs, bo := s.bound(), o.bound()
	cands := make([]topEntry, 0, s.n+o.n)
	for _, e := range s.sorted() {
		oc, oe := bo, bo
		if j := o.find(e.hash, e.key); j >= 0 {
			oc, oe = o.count[j], o.err[j]
		}
		e.count, e.err = satAdd(e.count, oc), satAdd(e.err, oe)
		cands = append(cands, e)
	}
	for _, e := range o.sorted() {
		if s.find(e.hash, e.key) < 0 {
			e.count, e.err = satAdd(e.count, bs), satAdd(e.err, bs)
			cands = append(cands, e)
		}
	}
	slices.SortFunc(cands, byWeight)
	s.set(cands[:min(len(cands), s.k)])
	s.floor = satAdd(bs, bo)
}

// trim keeps the n heaviest keys (by upper bound) and raises the floor to
// the largest upper bound it drops, so that it still bounds every key not
// tracked.
func (s *topKeys) trim(n int) {
	if n >= s.n {
		return
	}
	cands := s.sorted()
	for _, e := range cands[n:] {
		s.floor = max(s.floor, e.count)
	}
	s.set(cands[:n])
}

// sorted returns copies of the counters, heaviest first (byWeight).
func (s *topKeys) sorted() []topEntry {
	out := make([]topEntry, s.n)
	for i := range out {
		out[i] = topEntry{hash: s.hash[i], count: s.count[i], err: s.err[i], key: bytes.Clone(s.keys[i])}
	}
	slices.SortFunc(out, byWeight)
	return out
}

// set replaces the counters with es, which do not alias s's buffers.
func (s *topKeys) set(es []topEntry) {
	s.n = len(es)
	for i, e := range es {
		s.hash[i], s.count[i], s.err[i] = e.hash, e.count, e.err
		s.setTag(i, e.hash)
		s.keys[i] = append(s.keys[i][:0], e.key...)
	}
}

// len returns the number of keys tracked.
func (s *topKeys) len() int { return s.n }

func (s *topKeys) clone() topKeys {
	c := newTopKeys(s.k)
	c.set(s.sorted())
	c.floor = s.floor
	return c
}

// byWeight orders entries heaviest first: larger upper bound, then larger
// lower bound, then smaller key, a total order on distinct keys.
func byWeight(a, b topEntry) int {
	switch {
	case a.count != b.count:
		return cmpDesc(a.count, b.count)
	case a.count-a.err != b.count-b.err:
		return cmpDesc(a.count-a.err, b.count-b.err)
	}
	return bytes.Compare(a.key, b.key)
}

func cmpDesc(a, b uint64) int {
	if a > b {
		return -1
	}
	return 1
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
