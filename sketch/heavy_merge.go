package sketch

import (
	"bytes"
	"fmt"
	"slices"
)

// Merge adds other's counts to h, as described on the type; both must have
// the same number of counters. Counts saturate at 2^64-1 rather than wrap.
func (h *HeavyHitters) Merge(other *HeavyHitters) error {
	if len(h.slots) != len(other.slots) {
		return fmt.Errorf("sketch: heavy hitters of %d counters into %d: %w", len(other.slots), len(h.slots), ErrConfigMismatch)
	}
	if other == h {
		other = h.clone()
	}
	floorH, floorO := h.Floor(), other.Floor()
	cands := make([]candidate, 0, len(h.heap)+len(other.heap))
	size := 0
	for _, nd := range h.heap {
		sl := &h.slots[nd.slot]
		c := candidateOf(sl, nd.count)
		if j := other.find(sl.hash, sl.key); j >= 0 {
			o := &other.slots[j]
			c.combine(o, other.heap[o.pos].count)
		} else {
			c.count, c.err = satAdd(c.count, floorO), satAdd(c.err, floorO)
		}
		cands = append(cands, c)
		size += len(c.key)
	}
	for _, nd := range other.heap {
		sl := &other.slots[nd.slot]
		if h.find(sl.hash, sl.key) >= 0 {
			continue
		}
		c := candidateOf(sl, nd.count)
		c.count, c.err = satAdd(c.count, floorH), satAdd(c.err, floorH)
		cands = append(cands, c)
		size += len(c.key)
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.count != b.count:
			return cmpDesc(a.count, b.count)
		case a.count-a.err != b.count-b.err:
			return cmpDesc(a.count-a.err, b.count-b.err)
		}
		return bytes.Compare(a.key, b.key)
	})
	cands = cands[:min(len(cands), len(h.slots))]
	// The candidates' keys alias h's buffers, which the rebuild overwrites.
	buf := make([]byte, 0, size)
	for i := range cands {
		start := len(buf)
		buf = append(buf, cands[i].key...)
		cands[i].key = buf[start:]
	}
	h.Reset()
	// Ascending counts make a valid min-heap as they are.
	for i := len(cands) - 1; i >= 0; i-- {
		h.push(&cands[i])
	}
	// A key in neither table weighs at most both floors together; every
	// kept sum is at least that, so this only matters for a table that is
	// not full (one of the two was trimmed).
	h.floor = satAdd(floorH, floorO)
	return nil
}

// Trim keeps the n tracked keys with the largest upper bounds (each
// tightened by cm when cm is not nil, as Top does) and drops the rest, so
// that a summary fits a byte budget. It stays honest: the floor rises to
// the largest upper bound dropped, so Floor still bounds every key left
// out, and a dropped key that comes back starts from the floor. It returns
// how many keys were dropped.
func (h *HeavyHitters) trim(n int, cm *CountMin) int {
	n = max(n, 0)
	if n >= len(h.heap) {
		return 0
	}
	cands := make([]candidate, 0, len(h.heap))
	uppers := make([]uint64, len(h.slots))
	size := 0
	for _, nd := range h.heap {
		sl := &h.slots[nd.slot]
		up := nd.count
		if cm != nil {
			up = min(up, cm.Estimate(sl.hash))
		}
		uppers[len(cands)] = up
		cands = append(cands, candidateOf(sl, nd.count))
		size += len(sl.key)
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	// Top's order: largest upper bound first, then larger lower bound.
	slices.SortFunc(order, func(a, b int) int {
		ca, cb := &cands[a], &cands[b]
		switch {
		case uppers[a] != uppers[b]:
			return cmpDesc(uppers[a], uppers[b])
		case ca.count-ca.err != cb.count-cb.err:
			return cmpDesc(ca.count-ca.err, cb.count-cb.err)
		}
		return bytes.Compare(ca.key, cb.key)
	})
	floor := h.floor
	for _, i := range order[n:] {
		floor = max(floor, uppers[i])
	}
	buf := make([]byte, 0, size)
	kept := make([]candidate, 0, n)
	for _, i := range order[:n] {
		c := cands[i]
		start := len(buf)
		buf = append(buf, c.key...)
		c.key = buf[start:]
		kept = append(kept, c)
	}
	h.Reset()
	for i := range kept {
		h.push(&kept[i])
	}
	for i := len(h.heap)/2 - 1; i >= 0; i-- {
		h.siftDown(i)
	}
	h.floor = floor
	return len(order) - n
}

// candidate is a key's merged counter before the k largest are chosen.
type candidate struct {
	key        []byte
	hash       uint64
	count, err uint64
	lastTick   int64
	tickWeight uint64
	peak       uint64
	item       uint64
	many       bool
}

func candidateOf(sl *slot, count uint64) candidate {
	return candidate{
		key: sl.key, hash: sl.hash, count: count, err: sl.err,
		lastTick: sl.lastTick, tickWeight: sl.tickWeight, peak: sl.peak,
		item: sl.item, many: sl.many,
	}
}

// combine adds the same key's counter from another summary. The two
// summaries counted different records, so weights in the same tick add up;
// in different ticks only the later tick can still grow.
func (c *candidate) combine(o *slot, count uint64) {
	c.count = satAdd(c.count, count)
	c.err = satAdd(c.err, o.err)
	switch {
	case o.lastTick == c.lastTick:
		c.tickWeight = satAdd(c.tickWeight, o.tickWeight)
	case o.lastTick > c.lastTick:
		c.lastTick, c.tickWeight = o.lastTick, o.tickWeight
	}
	c.peak = max(c.peak, o.peak, c.tickWeight)
	if c.item != 0 && o.item != 0 && c.item != o.item {
		c.many = true
	}
	c.many = c.many || o.many
	if c.item == 0 {
		c.item = o.item
	}
}

// push appends a counter to a table that has room, at the end of the heap;
// the caller keeps the heap order.
func (h *HeavyHitters) push(c *candidate) {
	n := len(h.heap)
	h.setKey(n, c.key)
	sl := &h.slots[n]
	sl.hash, sl.err = c.hash, c.err
	sl.lastTick, sl.tickWeight, sl.peak = c.lastTick, c.tickWeight, c.peak
	sl.item, sl.many = c.item, c.many
	sl.pos = int32(n)
	h.heap = append(h.heap, node{count: c.count, slot: int32(n)})
	h.insertIndex(c.hash, n)
}

func (h *HeavyHitters) clone() *HeavyHitters {
	c := &HeavyHitters{}
	_ = c.init(len(h.slots))
	for _, nd := range h.heap {
		cand := candidateOf(&h.slots[nd.slot], nd.count)
		c.push(&cand)
	}
	c.floor = h.floor
	return c
}
