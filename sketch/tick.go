package sketch

// TickEntry is what is known of a tracked key within one tick (one second
// of record time): its entry, and the weight counted in that tick.
type TickEntry struct {
	Entry
	// Weight is what the key's records of the tick added since it took
	// its counter: a lower bound on its true weight in the tick. The
	// records it may have had before (at most Upper - Lower of them by
	// weight) are the only ones left out, so the true weight is at most
	// Weight + Upper - Lower.
	Weight uint64
	// Hash is Hash(Key), which the summary already holds.
	Hash uint64
}

// AppendTick appends to dst every tracked key whose weight counted in tick
// reaches level (at least 1), in no particular order, and returns it.
// Only a key whose latest record is of tick has a weight there: a record
// older than a key's latest only ever raises its Peak. Keys are the
// summary's own bytes, valid until its next Add, Merge or Trim; Upper is
// tightened as in Top. It makes no allocation when dst has room: it serves
// a caller that checks every second of a stream, such as the detector's
// onsets.
func (s *Summary) AppendTick(dst []TickEntry, tick int64, level uint64) []TickEntry {
	if s.hll == nil {
		return dst
	}
	level = max(level, 1)
	h := &s.hh
	for i := range h.heap {
		sl := &h.slots[h.heap[i].slot]
		if sl.lastTick != tick || sl.tickWeight < level {
			continue
		}
		e := h.entry(int(h.heap[i].slot))
		e.Upper = min(e.Upper, s.cm.Estimate(sl.hash))
		dst = append(dst, TickEntry{Entry: e, Weight: sl.tickWeight, Hash: sl.hash})
	}
	return dst
}
