package clientwindow

import (
	"math"
	"math/bits"
	"time"
)

// Latency per key, for the client side: a fixed table of latencySlots
// log-bucketed histograms, one per key that holds a slot. A key without a
// slot takes the slot with the fewest samples, so the keys that are called
// most keep theirs (the space-saving idea of Metwally, Agrawal and El
// Abbadi, "Efficient computation of frequent and top-k elements in data
// streams", ICDT 2005, without its error accounting: a latency sample is
// not a weight). The histograms have 4 buckets per power of two, so a
// reported quantile is the upper edge of its bucket: at most 19 % above the
// true sample (2^(1/4) - 1).
const (
	latencySlots      = 64
	latencySubBuckets = 4
	// Buckets cover 1 µs (2^10 ns) to 2^34 ns (17 s); faster samples count
	// in the first, slower in the last.
	latencyMinOctave = 10
	latencyOctaves   = 24
	latencyBuckets   = latencyOctaves * latencySubBuckets
	// LatencyOutlierFactor and LatencyOutlierMinSamples are the outlier
	// rule: a key whose p99 is over 10× the median key's p99, both with at
	// least 20 samples, is on a hot partition or near one.
	LatencyOutlierFactor     = 10
	LatencyOutlierMinSamples = 20
)

type latencySlot struct {
	hash    uint64
	key     []byte // typed key; its buffer is reused when the slot changes hands
	samples uint64
	buckets [latencyBuckets]uint32
}

// latencyTable holds the slots, with each slot's hash and sample count
// also kept packed in arrays of their own: finding a key, or the lightest
// slot for a new one, then reads 512 bytes instead of striding through 64
// slots of 424, which matters over many one-off keys, where every call
// misses.
type latencyTable struct {
	slots   []latencySlot
	hashes  [latencySlots]uint64 // slots[i].hash
	samples [latencySlots]uint64 // slots[i].samples
	// ones has bit i set when slots[i] holds one sample: once the table
	// is full no slot holds fewer, so a new key takes the first such slot
	// without a scan (over many one-off keys, every call is such a miss).
	ones uint64
}

// latencyBucket maps a duration to its bucket: the position of its top bit
// and the next two bits below it.
func latencyBucket(d time.Duration) int {
	ns := uint64(max(d, 1))
	e := bits.Len64(ns) - 1 // 2^e ≤ ns
	var sub uint64
	if e >= 2 {
		sub = (ns >> (e - 2)) & 3
	} else {
		sub = (ns << (2 - e)) & 3
	}
	b := (e-latencyMinOctave)*latencySubBuckets + int(sub)
	return min(max(b, 0), latencyBuckets-1)
}

// latencyUpper is the upper edge of bucket b.
func latencyUpper(b int) time.Duration {
	e, sub := b/latencySubBuckets+latencyMinOctave, uint64(b%latencySubBuckets)
	if e >= 2 {
		return time.Duration((4 + sub + 1) << (e - 2))
	}
	return time.Duration((4 + sub + 1) >> (2 - e))
}

func (t *latencyTable) add(key []byte, h uint64, d time.Duration) {
	i := t.find(key, h)
	if i < 0 {
		if len(t.slots) < latencySlots {
			i = len(t.slots)
			t.slots = append(t.slots, latencySlot{})
		} else {
			i = t.lightest()
			t.slots[i].samples, t.slots[i].buckets = 0, [latencyBuckets]uint32{}
		}
		s := &t.slots[i]
		s.hash, s.key = h, append(s.key[:0], key...)
		t.hashes[i] = h
	}
	s := &t.slots[i]
	s.samples++
	t.samples[i] = s.samples
	switch s.samples {
	case 1:
		t.ones |= 1 << i
	case 2:
		t.ones &^= 1 << i
	}
	if b := &s.buckets[latencyBucket(d)]; *b < ^uint32(0) {
		*b++
	}
}

// lightest returns the first slot with the fewest samples.
func (t *latencyTable) lightest() int {
	if t.ones != 0 {
		return bits.TrailingZeros64(t.ones) // none holds fewer than one
	}
	i := 0
	for j, n := range t.samples {
		if n < t.samples[i] {
			i = j
		}
	}
	return i
}

// find returns the index of key's slot, or -1.
func (t *latencyTable) find(key []byte, h uint64) int {
	for i, sh := range t.hashes[:len(t.slots)] {
		if sh == h && string(t.slots[i].key) == string(key) {
			return i
		}
	}
	return -1
}

func (t *latencyTable) lookup(key []byte, h uint64) *latencySlot {
	if i := t.find(key, h); i >= 0 {
		return &t.slots[i]
	}
	return nil
}

// quantile returns the upper edge of the bucket holding the q-quantile by
// the nearest-rank rule: the ceil(q×n)-th smallest sample, so that a p99
// of 30 samples is their largest.
func (s *latencySlot) quantile(q float64) time.Duration {
	if s.samples == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(q*float64(s.samples))), 1)
	var seen uint64
	for b, n := range s.buckets {
		seen += uint64(n)
		if seen >= rank {
			return latencyUpper(b)
		}
	}
	return latencyUpper(latencyBuckets - 1)
}
