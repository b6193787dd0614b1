package sketch

// exactKeys is how many distinct keys a summary counts exactly, in a set of
// their hashes, before it turns to the HyperLogLog. Most windows of a table
// are this small. Counting them exactly is cheaper than the HyperLogLog's
// sparse form, which rewrites its sorted list every 164 new hashes (a
// third of the time Add spent on a window of a few thousand keys), and it
// is exact rather than nearly so. The set is at most 64 KB; past it the
// HyperLogLog is made dense at once, where an insert is a register update.
const exactKeys = 4096

// hashSet is a set of 64-bit key hashes: open addressing, linear probing,
// at most half full. The zero value is an empty set.
type hashSet struct {
	slots []uint64 // 0 marks an empty slot; the hash 0 is kept in zero
	n     int
	zero  bool
}

// add inserts h.
func (s *hashSet) add(h uint64) {
	if h == 0 {
		if !s.zero {
			s.zero = true
			s.n++
		}
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := int(h>>40) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return
		case h:
			return
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(256, 2*len(old)))
	s.n = 0
	if s.zero {
		s.n = 1
	}
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}

// len returns the number of hashes in the set.
func (s *hashSet) len() int { return s.n }

// each calls f for every hash in the set.
func (s *hashSet) each(f func(uint64)) {
	if s.zero {
		f(0)
	}
	for _, h := range s.slots {
		if h != 0 {
			f(h)
		}
	}
}

// reset empties the set, keeping its memory.
func (s *hashSet) reset() {
	clear(s.slots)
	s.n, s.zero = 0, false
}

// clone returns a copy of s.
func (s *hashSet) clone() hashSet {
	return hashSet{slots: append([]uint64(nil), s.slots...), n: s.n, zero: s.zero}
}
