package sketch

import (
	"bytes"
	"slices"
)

// What a HeavyHitters table answers: an Entry per tracked key, by Lookup
// or ranked by Top.

// Entry is what is known about one tracked key.
type Entry struct {
	Key   []byte
	Lower uint64 // the key's true weight is at least Lower
	Upper uint64 // and at most Upper
	// Peak is a lower bound on the key's largest weight within one tick
	// (one second of record time), over the records counted since the key
	// last took a counter.
	Peak uint64
	// Item is the first non-zero item hash seen for the key since it last
	// took a counter, 0 if none; ManyItems reports that a second, different
	// non-zero item hash was seen in that time.
	Item      uint64
	ManyItems bool
}

// Lookup returns the entry of a tracked key, whose hash must be Hash(key).
// The entry's Key is key itself, not a copy.
func (h *HeavyHitters) Lookup(key []byte, hash uint64) (Entry, bool) {
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	i := h.find(hash, key)
	if i < 0 {
		return Entry{}, false
	}
	e := h.entry(i)
	e.Key = key
	return e, true
}

func (h *HeavyHitters) entry(i int) Entry {
	sl := &h.slots[i]
	count := h.heap[sl.pos].count
	return Entry{
		Key:       sl.key,
		Lower:     count - sl.err,
		Upper:     count,
		Peak:      sl.peak,
		Item:      sl.item,
		ManyItems: sl.many,
	}
}

// Top returns the n entries with the largest Upper (ties: larger Lower,
// then smaller key), with their keys copied.
func (h *HeavyHitters) Top(n int) []Entry { return h.top(n, nil) }

// top is Top with each Upper first tightened by cm's estimate, if cm is not
// nil: both are upper bounds, so their minimum is one.
func (h *HeavyHitters) top(n int, cm *CountMin) []Entry {
	if n <= 0 || len(h.heap) == 0 {
		return nil
	}
	// Rank the counters by small records rather than sort 64-byte
	// entries. Tracked keys are distinct, so the order is total and the
	// result is the same whatever the sort moves.
	type rank struct {
		upper, lower uint64
		slot         int32
	}
	ranks := make([]rank, len(h.heap))
	for i := range ranks {
		e := h.entry(i)
		if cm != nil {
			e.Upper = min(e.Upper, cm.Estimate(h.slots[i].hash))
		}
		ranks[i] = rank{e.Upper, e.Lower, int32(i)}
	}
	slices.SortFunc(ranks, func(a, b rank) int {
		switch {
		case a.upper != b.upper:
			return cmpDesc(a.upper, b.upper)
		case a.lower != b.lower:
			return cmpDesc(a.lower, b.lower)
		}
		return bytes.Compare(h.slots[a.slot].key, h.slots[b.slot].key)
	})
	out := make([]Entry, min(n, len(ranks)))
	size := 0
	for i := range out {
		size += len(h.slots[ranks[i].slot].key)
	}
	// One buffer for every key: the entries outlive the table's buffers,
	// which the next Add may overwrite.
	buf := make([]byte, 0, size)
	for i := range out {
		r := &ranks[i]
		out[i] = h.entry(int(r.slot))
		out[i].Upper = r.upper
		start := len(buf)
		buf = append(buf, out[i].Key...)
		out[i].Key = buf[start:len(buf):len(buf)]
	}
	return out
}

func cmpDesc(a, b uint64) int {
	if a > b {
		return -1
	}
	return 1
}
