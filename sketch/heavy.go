package sketch

import "math"

// HeavyHitters finds the heaviest keys of a weighted stream with k counters:
// weighted Space-Saving (Metwally, Agrawal and El Abbadi, "Efficient
// computation of frequent and top-k elements in data streams", ICDT 2005).
// A tracked key's weight is added to its counter; an untracked key takes
// over the smallest counter c_min, starting from c_min + w and remembering
// c_min as its possible overcount.
//
// Guarantees, for a stream of total weight W and any key x of true weight
// f(x):
//   - a tracked key's Lower ≤ f(x) ≤ Upper, and Upper - Lower ≤ W/k;
//   - an untracked key has f(x) ≤ Floor() ≤ W/k, so no key with f(x) > W/k
//     is ever missing from Top (no false negatives above W/k).
//
// Both follow from two invariants that Add and Merge keep: every untracked
// key weighs at most the smallest counter, and the counters sum to at most W.
//
// Merge follows Agarwal et al., "Mergeable Summaries" (PODS 2012), who show
// Space-Saving isomorphic to Misra-Gries: a counter minus c_min is a
// Misra-Gries counter. Each summary's counters are added key by key, an
// absent key counting as that summary's Floor (the most it can weigh there,
// kept as overcount); the k largest sums are kept. Every sum is at least both
// floors' total, which bounds the dropped keys and the keys in neither, and
// the kept sums still add up to at most W, so both invariants hold for the
// merged stream.
//
// Each counter also follows its key's weight per tick, for Entry.Peak, and
// its item hashes, for Entry.Item and Entry.ManyItems.
//
// Within a Summary, a key from outside the table takes the smallest counter
// only if its count-min estimate exceeds that counter (see add): both
// invariants still hold, and the light tail of a stream no longer churns
// the table.
//
// Add makes no allocation once every counter's key buffer has held a key as
// long as the current one: a key up to 48 bytes is held in its counter, and
// the first longer key gives every counter a 64-byte buffer at once (so
// that a table of short keys, most of them, never allocates those): keys are
// found through an open-addressing index on their hash, and the smallest
// counter through a binary min-heap, so an update costs O(1) expected plus
// O(log k) to restore the heap. HeavyHitters is not safe for concurrent use.
type HeavyHitters struct {
	slots []slot   // k counters; those in use are slots[:len(heap)]
	heap  []node   // min-heap of the counters in use, by count
	index []bucket // open addressing on the hash, load ≤ 1/4
	mask  uint64
	// floor bounds the weight of every key Trim dropped (0 until a Trim,
	// then raised by each): an untracked key weighs at most Floor(), which
	// is never below floor, and a key that takes a counter starts from it.
	floor uint64
	// extKey is each counter's buffer for a key longer than slotKey: an
	// inlineKey-byte part of one arena, grown (and kept) for a longer key;
	// nil until the first such key.
	extKey [][]byte
}

// slot is one counter's key and everything known about it but its count,
// which lives in the heap so that sifting compares without indirection.
//
// It is 128 bytes, laid out for the Add of a tracked key, which reads its
// first 61 bytes (the key's header, hash, tick state, pos) and its key,
// held from byte 80 when it fits in buf: a short key is then found and
// counted in two cache lines (Go starts the array at most 8 bytes past a
// line), where the key in an arena of its own cost a third.
type slot struct {
	key        []byte // points into buf, or for a longer key into extKey
	hash       uint64
	lastTick   int64
	tickWeight uint64 // weight counted in lastTick
	peak       uint64
	pos        int32 // position in heap
	many       bool
	err        uint64 // count - err ≤ true weight
	item       uint64
	// buf holds the key if it fits, zeros after it; all zeros if not. It
	// holds nothing else, so that two slots with equal contents are equal.
	buf [slotKey]byte
}

// slotKey is how long a key can be and still be held in its slot.
const slotKey = 48

type node struct {
	count uint64 // ≥ true weight of the slot's key
	slot  int32
}

// bucket is 8 bytes rather than 16, so that the index takes no more memory
// at load 1/4 than it did at 1/2: the low half of the key's hash (the
// index has at most 4*MaxCounters buckets, so a bucket's home is within
// it), and the slot. A tag that matches by chance costs a key comparison,
// never a wrong answer.
type bucket struct {
	tag  uint32
	slot int32 // slot index + 1; 0 marks an empty bucket
}

// inlineKey is how long a key can be without allocating once a key longer
// than slotKey has come: each counter then has a buffer this long (in one
// arena) for a key too long for its slot.
const inlineKey = 64

// NewHeavyHitters returns an empty table of k counters, 1 ≤ k ≤ MaxCounters.
func NewHeavyHitters(k int) (*HeavyHitters, error) {
	h := &HeavyHitters{}
	if err := h.init(k); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *HeavyHitters) init(k int) error {
	cfg := Config{Counters: k, Width: 1, Depth: 1}
	if err := cfg.Validate(); err != nil {
		return err
	}
	h.slots = make([]slot, k)
	for i := range h.slots {
		h.slots[i].key = h.slots[i].buf[:0:0]
	}
	h.heap = make([]node, 0, k)
	// Load at most 1/4: a probe run then averages under 1.4 buckets, hit
	// or miss, in the bytes that 16-byte buckets at load 1/2 took.
	n := 8
	for n < 4*k {
		n *= 2
	}
	h.index = make([]bucket, n)
	h.mask = uint64(n - 1)
	return nil
}

// Counters returns k, the number of counters.
func (h *HeavyHitters) Counters() int { return len(h.slots) }

// Len returns the number of keys tracked.
func (h *HeavyHitters) Len() int { return len(h.heap) }

// Floor returns an upper bound on the weight of any untracked key: the
// smallest counter once all k are in use, 0 before; never less than the
// largest upper bound of a key Trim dropped. Every tracked key's Upper -
// Lower is at most Floor too.
func (h *HeavyHitters) Floor() uint64 {
	if len(h.heap) == 0 || len(h.heap) < len(h.slots) {
		return h.floor
	}
	return max(h.floor, h.heap[0].count)
}

// Add adds weight to key, whose hash must be Hash(key), at tick (record time
// in seconds) with item (a non-zero hash of the record's item, or 0). It
// reports whether the key was already tracked. A weight of 0 changes nothing.
func (h *HeavyHitters) Add(key []byte, hash, weight uint64, tick int64, item uint64) bool {
	return h.add(key, hash, weight, tick, item, math.MaxUint64)
}

// add is Add given bound, an upper bound on the key's true weight with this
// record (Summary's count-min estimate). A new key whose bound does not
// exceed the smallest counter c_min is left out: it weighs at most c_min, as
// every untracked key must, and the counters did not grow, so both
// invariants hold without an eviction. The tail of a stream then stops
// churning the table, which makes Add faster and the bounds of the keys
// that stay tighter; the guarantees are unchanged.
func (h *HeavyHitters) add(key []byte, hash, weight uint64, tick int64, item, bound uint64) bool {
	if h.slots == nil {
		_ = h.init(DefaultConfig().Counters)
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	if i := h.find(hash, key); i >= 0 {
		if weight != 0 {
			h.count(i, weight, tick, item)
		}
		return true
	}
	if weight == 0 {
		return false
	}
	h.insert(key, hash, weight, tick, item, bound)
	return false
}

// count adds weight to tracked slot i. It is apart from add's other paths,
// which call functions and so make add save its arguments on entry: on its
// own, it saves nothing, and most adds of a stream are counts.
func (h *HeavyHitters) count(i int, weight uint64, tick int64, item uint64) {
	sl := &h.slots[i]
	sl.observe(weight, tick, item)
	p := int(sl.pos)
	c := satAdd(h.heap[p].count, weight)
	h.heap[p].count = c
	// Most adds go to heavy keys, whose counters sit low in the heap
	// with children no smaller than them, if any: sifting would move
	// nothing, so skip it.
	if l := 2*p + 1; l < len(h.heap) && (h.heap[l].count < c || l+1 < len(h.heap) && h.heap[l+1].count < c) {
		h.siftDown(p)
	}
}

// insert gives an untracked key a counter if its bound allows; see add.
func (h *HeavyHitters) insert(key []byte, hash, weight uint64, tick int64, item, bound uint64) {
	if n := len(h.heap); n < len(h.slots) {
		// After a Trim the key may be one that was dropped: it starts
		// from the floor, as it would from a smallest counter.
		if bound <= h.floor {
			return
		}
		h.take(n, key, hash, h.floor, weight, tick, item)
		h.heap = append(h.heap, node{count: satAdd(h.floor, weight), slot: int32(n)})
		h.slots[n].pos = int32(n)
		h.siftUp(n)
		h.insertIndex(hash, n)
		return
	}
	root := h.heap[0]
	base := max(root.count, h.floor)
	if bound <= base {
		return
	}
	h.removeIndex(h.slots[root.slot].hash, int(root.slot))
	h.take(int(root.slot), key, hash, base, weight, tick, item)
	h.insertIndex(hash, int(root.slot))
	h.heap[0].count = satAdd(base, weight)
	h.siftDown(0)
}

// take gives slot i to key, whose possible overcount is floor; the tick
// and item state restart with it.
func (h *HeavyHitters) take(i int, key []byte, hash, floor, weight uint64, tick int64, item uint64) {
	h.setKey(i, key)
	sl := &h.slots[i]
	sl.hash = hash
	sl.err = floor
	sl.lastTick, sl.tickWeight, sl.peak = tick, weight, weight
	sl.item, sl.many = item, false
}

// setKey copies key into slot i: into the slot itself if it fits, else
// into the counter's buffer in extKey, which keeps its growth for the next
// long key.
func (h *HeavyHitters) setKey(i int, key []byte) {
	sl := &h.slots[i]
	if len(key) <= len(sl.buf) {
		n := copy(sl.buf[:], key)
		clear(sl.buf[n:])
		sl.key = sl.buf[:n:n]
		return
	}
	clear(sl.buf[:])
	if h.extKey == nil {
		arena := make([]byte, len(h.slots)*inlineKey)
		h.extKey = make([][]byte, len(h.slots))
		for j := range h.extKey {
			h.extKey[j] = arena[j*inlineKey : j*inlineKey : (j+1)*inlineKey]
		}
	}
	h.extKey[i] = append(h.extKey[i][:0], key...)
	sl.key = h.extKey[i]
}

// observe follows the key's weight per tick. Records may come out of order
// (batches are not sorted, and merges interleave), so a record older than
// lastTick can only raise peak by its own weight: the true weight of its
// tick is at least that.
func (sl *slot) observe(weight uint64, tick int64, item uint64) {
	switch {
	case tick == sl.lastTick:
		sl.tickWeight = satAdd(sl.tickWeight, weight)
	case tick > sl.lastTick:
		sl.lastTick, sl.tickWeight = tick, weight
	default:
		sl.peak = max(sl.peak, weight)
	}
	sl.peak = max(sl.peak, sl.tickWeight)
	if item != 0 {
		if sl.item == 0 {
			sl.item = item
		} else if item != sl.item {
			sl.many = true
		}
	}
}

// Reset empties h, keeping its memory.
func (h *HeavyHitters) Reset() {
	h.heap = h.heap[:0]
	h.floor = 0
	clear(h.index)
}
