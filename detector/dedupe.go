package detector

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// RecentIDs remembers the last n event ids (as 64-bit hashes) in a ring,
// so that a record delivered again (Lambda's at-least-once batches,
// Kinesis's duplicates) is counted once. Its memory is bounded: about 24
// bytes an id, 1.5 MB for 2^16. Past the bound the oldest id is forgotten,
// and a copy of it arriving after 2^16 other records is counted again.
type RecentIDs struct {
	ring []uint64
	next int
	set  map[uint64]struct{}
}

// NewRecentIDs returns a RecentIDs that remembers n ids.
func NewRecentIDs(n int) *RecentIDs {
	return &RecentIDs{ring: make([]uint64, 0, n), set: make(map[uint64]struct{}, n)}
}

// Seen reports whether id was seen, and remembers it. An empty id cannot be
// told from another: it is never seen.
func (r *RecentIDs) Seen(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	return r.seenHash(sketch.Hash(id))
}

func (r *RecentIDs) seenHash(h uint64) bool {
	if _, ok := r.set[h]; ok {
		return true
	}
	if len(r.ring) < cap(r.ring) {
		r.ring = append(r.ring, h)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = h
		r.next = (r.next + 1) % len(r.ring)
	}
	r.set[h] = struct{}{}
	return false
}

// AppendBinary appends the ids remembered, oldest first, 8 bytes each
// (little-endian hashes): what a tumbling window's state carries to its
// next batch.
func (r *RecentIDs) AppendBinary(b []byte) []byte {
	for k := range r.ring {
		b = binary.LittleEndian.AppendUint64(b, r.ring[(r.next+k)%len(r.ring)])
	}
	return b
}

// UnmarshalBinary remembers the ids AppendBinary wrote, after those it
// holds; a length that is not a multiple of 8 is ErrRecentIDs.
func (r *RecentIDs) UnmarshalBinary(b []byte) error {
	if len(b)%8 != 0 {
		return fmt.Errorf("%w: %d bytes", ErrRecentIDs, len(b))
	}
	for ; len(b) > 0; b = b[8:] {
		r.seenHash(binary.LittleEndian.Uint64(b))
	}
	return nil
}

// ErrRecentIDs is wrapped by UnmarshalBinary's error.
var ErrRecentIDs = errors.New("detector: remembered event ids unreadable")

// DedupeByEventID returns s as a Deduper that knows a record by its
// eventID in ids: what replay and watch count into, so that a Kinesis
// change record delivered twice is counted once.
func DedupeByEventID(s DuplicateSink, ids *RecentIDs) Deduper { return eventIDDeduper{s, ids} }

// DuplicateSink is a Sink that counts duplicates: a Detector or a
// WindowSet.
type DuplicateSink interface {
	Sink
	AddDuplicate(table string)
}

type eventIDDeduper struct {
	DuplicateSink
	ids *RecentIDs
}

func (d eventIDDeduper) Seen(r *record.Record) bool { return d.ids.Seen(r.EventID) }
