package sketch

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

// The encoding of a Summary, versions 1 and 2. Integers are unsigned
// varints (encoding/binary) unless said otherwise.
//
//	version     1 byte: 1, or 2 for a summary that Trim has trimmed
//	counters, width, depth
//	total
//	floor       version 2 only: the heavy hitters' floor from Trim
//	n           entries that follow, ≤ counters, in heap order
//	n × entry:  key length (≤ MaxKeyLen), key, count, overcount,
//	            last tick as a signed varint delta from the previous
//	            entry's (from 0 for the first), tick weight, peak,
//	            flags (bit 0: item follows, bit 1: many items),
//	            item as 8 bytes big-endian if flagged
//	cells       width × depth count-min cells, row-major; a 0 is followed
//	            by the number of further zeros that follow it
//	hll length  4 bytes big-endian, then axiomhq/hyperloglog's own encoding
//	checksum    CRC-32C (Castagnoli) of everything above, 4 bytes big-endian
//
// The version byte and the checksum are package frame's framing, without
// a magic.
//
// Entries in heap order decode to the same heap, so a decoded summary goes
// on exactly as the original would have. A summary never trimmed encodes as
// version 1, byte for byte as before version 2 existed.
const (
	encodingVersion        = 1
	encodingVersionTrimmed = 2
)

// maxEncodedLen is well above the largest encoding the limits allow (about
// MaxCounters × MaxKeyLen plus MaxCells varints plus 16 KB), so that
// decoding refuses a huge input before reading it.
const maxEncodedLen = 1 << 24

const (
	flagItem = 1 << iota
	flagMany
)

// summaryFormat is the frame of a Summary's encoding.
var summaryFormat = frame.Format{
	Name: "sketch", Oldest: encodingVersion, Newest: encodingVersionTrimmed,
	Corrupt: ErrCorrupt, Version: ErrVersion,
}

var (
	_ encoding.BinaryMarshaler   = (*Summary)(nil)
	_ encoding.BinaryAppender    = (*Summary)(nil)
	_ encoding.BinaryUnmarshaler = (*Summary)(nil)
)

// MarshalBinary encodes s; see AppendBinary.
func (s *Summary) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(nil)
}

// AppendBinary appends the encoding of s to b: a version byte, the summary
// with explicit lengths and varints, and a CRC-32C. The HyperLogLog part is
// axiomhq/hyperloglog's own encoding, which is not canonical: compare
// summaries by content, never by bytes. Encoding moves the exact set of
// distinct keys into the HyperLogLog (see Distinct).
func (s *Summary) AppendBinary(b []byte) ([]byte, error) {
	s.ready()
	s.flushSeen() // the encoding holds distinct keys only as a HyperLogLog
	start := len(b)
	// Room for typical entries and cells; the HyperLogLog grows b itself.
	b = slices.Grow(b, 64+len(s.hh.heap)*(inlineKey/2+24)+len(s.cm.cells)*3)
	version := byte(encodingVersion)
	if s.hh.floor > 0 {
		version = encodingVersionTrimmed
	}
	b = summaryFormat.AppendHeader(b, version)
	for _, v := range []int{s.cfg.Counters, s.cfg.Width, s.cfg.Depth} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = binary.AppendUvarint(b, s.total)
	if version == encodingVersionTrimmed {
		b = binary.AppendUvarint(b, s.hh.floor)
	}
	b = s.hh.appendBinary(b)
	b = s.cm.appendBinary(b)
	lenAt := len(b)
	b = append(b, 0, 0, 0, 0)
	b, err := s.hll.AppendBinary(b)
	if err != nil {
		return b[:start], fmt.Errorf("sketch: %w", err)
	}
	binary.BigEndian.PutUint32(b[lenAt:], uint32(len(b)-lenAt-4))
	return frame.AppendChecksum(b, start), nil
}

func (h *HeavyHitters) appendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(h.heap)))
	var prev int64
	for _, nd := range h.heap {
		sl := &h.slots[nd.slot]
		b = frame.AppendBytes(b, sl.key)
		b = binary.AppendUvarint(b, nd.count)
		b = binary.AppendUvarint(b, sl.err)
		b = binary.AppendVarint(b, sl.lastTick-prev) // wraps, and back
		prev = sl.lastTick
		b = binary.AppendUvarint(b, sl.tickWeight)
		b = binary.AppendUvarint(b, sl.peak)
		var flags byte
		if sl.item != 0 {
			flags |= flagItem
		}
		if sl.many {
			flags |= flagMany
		}
		b = append(b, flags)
		if sl.item != 0 {
			b = binary.BigEndian.AppendUint64(b, sl.item)
		}
	}
	return b
}

// appendBinary writes the cells as varints, runs of zeros as a 0 and the
// run's length less one: an empty or young sketch then costs a few bytes.
func (c *CountMin) appendBinary(b []byte) []byte {
	for i := 0; i < len(c.cells); {
		if c.cells[i] != 0 {
			b = binary.AppendUvarint(b, c.cells[i])
			i++
			continue
		}
		j := i + 1
		for j < len(c.cells) && c.cells[j] == 0 {
			j++
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(j-i-1))
		i = j
	}
	return b
}

// UnmarshalBinary replaces s with the summary encoded in data, config
// included: check Config afterwards if it must be a given one.
//
// Input that is truncated, fails its checksum, describes an impossible
// summary, exceeds the limits or comes from another version returns an
// error wrapping ErrTruncated, ErrCorrupt, ErrTooLarge or ErrVersion, and
// leaves s unchanged and usable. Decoding never allocates more than the
// limits on Config allow (see MaxCounters), and sizes nothing from a length
// it has not checked against those limits and the input that remains.
func (s *Summary) UnmarshalBinary(data []byte) error {
	var t Summary
	if err := t.decode(data); err != nil {
		return err
	}
	*s = t
	return nil
}

func (s *Summary) decode(data []byte) error {
	if len(data) > maxEncodedLen {
		return fmt.Errorf("sketch: %d bytes, at most %d: %w: %w", len(data), maxEncodedLen, ErrTooLarge, ErrCorrupt)
	}
	version, r, err := summaryFormat.Open(data)
	if err != nil {
		return err
	}
	if err := s.decodeConfig(&r); err != nil {
		return err
	}
	s.total = r.Uvarint()
	if version == encodingVersionTrimmed {
		s.hh.floor = r.Uvarint()
		if r.Err() == nil && (s.hh.floor == 0 || s.hh.floor > s.total) {
			r.Failf("floor %d of a trimmed summary, total %d", s.hh.floor, s.total)
		}
	}
	s.hh.decode(&r, s.total)
	s.cm.decode(&r, s.total)
	if r.Err() != nil {
		return r.Err()
	}
	// Both bound the same true weight: the count-min from above, the
	// entry's lower bound from below.
	for _, nd := range s.hh.heap {
		sl := &s.hh.slots[nd.slot]
		if lower := nd.count - sl.err; s.cm.Estimate(sl.hash) < lower {
			return fmt.Errorf("sketch: key %q: count-min estimate %d below its lower bound %d: %w", sl.key, s.cm.Estimate(sl.hash), lower, ErrCorrupt)
		}
	}
	return s.decodeHLL(&r)
}

// decodeConfig reads the config and sizes s by it.
func (s *Summary) decodeConfig(r *frame.Reader) error {
	var cfg Config
	cfg.Counters = int(limited(r, MaxCounters, "counters"))
	cfg.Width = int(limited(r, MaxWidth, "width"))
	cfg.Depth = int(limited(r, MaxDepth, "depth"))
	if r.Err() != nil {
		return r.Err()
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrCorrupt)
	}
	return s.init(cfg)
}

// decodeHLL reads the HyperLogLog, the rest of the body.
func (s *Summary) decodeHLL(r *frame.Reader) error {
	hll := r.Bytes(uint64(r.Uint32()))
	switch {
	case r.Err() != nil:
		return r.Err()
	case r.Len() > 0:
		return fmt.Errorf("sketch: %d bytes after the hyperloglog: %w", r.Len(), ErrCorrupt)
	case len(hll) < 2 || hll[1] != HLLPrecision:
		return fmt.Errorf("sketch: hyperloglog is not of precision %d: %w", HLLPrecision, ErrCorrupt)
	}
	if err := s.hll.UnmarshalBinary(hll); err != nil {
		return fmt.Errorf("sketch: %w: %w", err, ErrCorrupt)
	}
	s.exact = false
	return nil
}

// decode reads the entries written by appendBinary into a table that is
// empty but for its floor, checking each against what Add, Merge and Trim
// can produce: overcount ≤ count, tick weight ≤ peak ≤ count - overcount,
// count ≥ floor, and counts adding up to at most total (which keeps Floor ≤
// total/k) unless the table was trimmed (each count then at most total).
func (h *HeavyHitters) decode(r *frame.Reader, total uint64) {
	n := limited(r, uint64(len(h.slots)), "entries")
	var prev int64
	var sum uint64
	for range n {
		if r.Err() != nil {
			return
		}
		key := r.Bytes(limited(r, MaxKeyLen, "key length"))
		count, over := r.Uvarint(), r.Uvarint()
		tick := prev + r.Varint()
		prev = tick
		tickWeight, peak := r.Uvarint(), r.Uvarint()
		flags := r.Byte()
		var item uint64
		if flags&flagItem != 0 {
			item = r.Uint64()
		}
		if r.Err() != nil {
			return
		}
		sum = satAdd(sum, count)
		switch {
		case count == 0 || over > count || peak > count-over || tickWeight > peak || count < h.floor:
			r.Failf("entry %d: count %d, overcount %d, peak %d, tick weight %d, floor %d", len(h.heap), count, over, peak, tickWeight, h.floor)
		case h.floor > 0 && count > total:
			r.Failf("entry %d: count %d exceeds the total %d", len(h.heap), count, total)
		case h.floor == 0 && sum > total:
			r.Failf("counts add up to more than the total %d", total)
		case flags&^(flagItem|flagMany) != 0 || (flags&flagMany != 0 && item == 0):
			r.Failf("entry %d: flags %#x", len(h.heap), flags)
		}
		hash := Hash(key)
		if r.Err() == nil && h.find(hash, key) >= 0 {
			r.Failf("entry %d: duplicate key", len(h.heap))
		}
		if r.Err() != nil {
			return
		}
		h.push(&candidate{
			key: key, hash: hash, count: count, err: over,
			lastTick: tick, tickWeight: tickWeight, peak: peak,
			item: item, many: flags&flagMany != 0,
		})
	}
	// Restore heap order should the input not have it; a summary's own
	// encoding has it, and then nothing moves.
	for i := len(h.heap)/2 - 1; i >= 0; i-- {
		h.siftDown(i)
	}
}

func (c *CountMin) decode(r *frame.Reader, total uint64) {
	// The hot loop of decoding: varints read straight off the input (see
	// frame.Reader.Unread), and r.Uvarint called only to report a bad one.
	b := r.Unread()
	i := 0
	for i < len(c.cells) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		if v != 0 {
			if v > total {
				r.Failf("count-min cell %d = %d exceeds the total %d", i, v, total)
				return
			}
			c.cells[i] = v
			i++
			continue
		}
		run, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		if run >= uint64(len(c.cells)-i) {
			r.Failf("count-min run of %d zeros at cell %d of %d", run+1, i, len(c.cells))
			return
		}
		i += int(run) + 1
	}
	r.Discard(r.Len() - len(b))
	if i < len(c.cells) {
		r.Uvarint() // the bad varint the loop stopped at: this reports it
	}
}

// limited reads a uvarint that must not exceed limit.
func limited(r *frame.Reader, limit uint64, what string) uint64 {
	v := r.Uvarint()
	if v > limit {
		r.Failf("%s = %d, at most %d: %w", what, v, limit, ErrTooLarge)
		return 0
	}
	return v
}
