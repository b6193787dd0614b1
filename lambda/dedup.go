package main

import "bytes"

// A batch Lambda delivers again (processing is at least once) is counted
// once: within a tumbling window by sequence number (seqAfter), across a
// warm container's plain batches by event id (detector.RecentIDs).

// seqAfter reports whether sequence number a comes after b. Sequence
// numbers are decimal strings of up to 40 digits: longer is larger.
func seqAfter(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return bytes.Compare(a, b) > 0
}

// recentIDs remembers the last n ids (as hashes) in a ring: what this
// container already did (done), so that a batch Lambda delivers again
// publishes nothing twice. Records delivered twice are detector.RecentIDs'
// (Seen), which the state carries.
type recentIDs struct {
	ring []uint64
	next int
	set  map[uint64]struct{}
}

func newRecentIDs(n int) *recentIDs {
	return &recentIDs{ring: make([]uint64, 0, n), set: make(map[uint64]struct{}, n)}
}

// has reports whether id is remembered.
func (r *recentIDs) has(id uint64) bool {
	_, ok := r.set[id]
	return ok
}

// add remembers id, forgetting the oldest when full.
func (r *recentIDs) add(id uint64) {
	if r.has(id) {
		return
	}
	if len(r.ring) < cap(r.ring) {
		r.ring = append(r.ring, id)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % len(r.ring)
	}
	r.set[id] = struct{}{}
}
