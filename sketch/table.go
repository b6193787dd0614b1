package sketch

import (
	"bytes"
	"math"
)

// The mechanics under HeavyHitters: an open-addressing index from a key's
// hash to its counter, and a binary min-heap of the counters by count.

// find returns the slot tracking key, or -1.
func (h *HeavyHitters) find(hash uint64, key []byte) int {
	if len(h.index) == 0 {
		return -1
	}
	tag := uint32(hash)
	for p := hash & h.mask; ; p = (p + 1) & h.mask {
		b := h.index[p]
		if b.slot == 0 {
			return -1
		}
		if b.tag == tag && bytes.Equal(h.slots[b.slot-1].key, key) {
			return int(b.slot - 1)
		}
	}
}

func (h *HeavyHitters) insertIndex(hash uint64, slot int) {
	p := hash & h.mask
	for h.index[p].slot != 0 {
		p = (p + 1) & h.mask
	}
	h.index[p] = bucket{tag: uint32(hash), slot: int32(slot + 1)}
}

// removeIndex deletes slot's bucket by backward shift, so that lookups
// never need tombstones: each later bucket of the probe run moves into the
// hole unless its home lies cyclically after the hole.
func (h *HeavyHitters) removeIndex(hash uint64, slot int) {
	i := hash & h.mask
	for h.index[i].slot != int32(slot+1) {
		i = (i + 1) & h.mask
	}
	for j := i; ; {
		j = (j + 1) & h.mask
		b := h.index[j]
		if b.slot == 0 {
			break
		}
		home := uint64(b.tag) & h.mask
		if i <= j {
			if i < home && home <= j {
				continue
			}
		} else if i < home || home <= j {
			continue
		}
		h.index[i] = b
		i = j
	}
	h.index[i] = bucket{}
}

func (h *HeavyHitters) siftDown(i int) {
	n := len(h.heap)
	x := h.heap[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.heap[r].count < h.heap[c].count {
			c = r
		}
		if h.heap[c].count >= x.count {
			break
		}
		h.heap[i] = h.heap[c]
		h.slots[h.heap[i].slot].pos = int32(i)
		i = c
	}
	h.heap[i] = x
	h.slots[x.slot].pos = int32(i)
}

func (h *HeavyHitters) siftUp(i int) {
	x := h.heap[i]
	for i > 0 {
		p := (i - 1) / 2
		if h.heap[p].count <= x.count {
			break
		}
		h.heap[i] = h.heap[p]
		h.slots[h.heap[i].slot].pos = int32(i)
		i = p
	}
	h.heap[i] = x
	h.slots[x.slot].pos = int32(i)
}

func satAdd(a, b uint64) uint64 {
	s := a + b
	if s < a {
		return math.MaxUint64
	}
	return s
}
