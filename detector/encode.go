package detector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// windowVersion is the first byte of an encoded Window. Bump it on any
// change of layout: a Lambda deploy can meet state written by the previous
// version, and must reject it cleanly rather than misread it. A counter
// added to report.Totals is no change of layout: the state says how many
// counters it holds.
//
// Versions: 2 added InternalErrors; 3 the index name and its TTL WCU; 4
// trimmed; 5 onsets and saturation; 6 writes the counters as
// report.Totals encodes them, after their number, up to the last that is
// not 0 (version 5 wrote all seven, in another order: this build still
// reads it, so that a deploy reads the state the build before it wrote).
const (
	windowVersion  = 6
	oldestReadable = 5
)

// Limits on decoded fields, checked before anything is allocated.
const (
	maxNameLen = 2048 // table names are ≤ 255 bytes, shard ids ≤ 65
	maxShards  = 4096
)

// ErrCorruptWindow is wrapped by every decoding error; one that ran out of
// input also wraps sketch.ErrTruncated.
var ErrCorruptWindow = errors.New("detector: corrupt window state")

// windowFormat is the frame of a Window's encoding. State of another
// version is refused as corrupt: the Lambda then starts the window afresh.
var windowFormat = frame.Format{
	Name: "detector", Oldest: oldestReadable, Newest: windowVersion,
	Corrupt: ErrCorruptWindow, Version: ErrCorruptWindow,
}

// MarshalBinary encodes the window: a version byte, the fields, the
// sketch.Summary's own encoding, and a CRC-32C of all of it (package
// internal/frame's framing).
func (w *Window) MarshalBinary() ([]byte, error) {
	b := windowFormat.AppendHeader(nil, windowVersion)
	b = frame.AppendString(b, w.table)
	b = frame.AppendString(b, w.index)
	b = binary.AppendVarint(b, w.start)
	b = binary.AppendVarint(b, w.end)
	n := w.totals.Used()
	b = binary.AppendUvarint(b, uint64(n))
	b = w.totals.AppendCounters(b, 0, n)
	var flags byte
	if w.totals.WCUIsLowerBound {
		flags |= 1
	}
	if w.terminatedEarly {
		flags |= 2
	}
	if w.trimmed {
		flags |= 4
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(w.shards)))
	for _, s := range w.shards {
		b = frame.AppendString(b, s.id)
		b = binary.AppendUvarint(b, s.records)
		b = binary.AppendUvarint(b, s.wcu)
		b = binary.AppendVarint(b, s.tick)
		b = binary.AppendUvarint(b, s.tickWCU)
		b = binary.AppendUvarint(b, s.peak)
		b = binary.AppendUvarint(b, uint64(s.saturated))
	}
	// Onsets and saturation (onset.go): the current second, the keys
	// watched, and what could not be.
	b = binary.AppendVarint(b, w.sec)
	b = binary.AppendUvarint(b, w.dropped)
	b = binary.AppendUvarint(b, uint64(len(w.watchedKeys)))
	for _, k := range w.watchedKeys {
		b = binary.BigEndian.AppendUint64(b, k.hash)
		var f byte
		if k.announced {
			f = 1
		}
		b = append(b, f)
		b = binary.AppendUvarint(b, uint64(k.saturated))
	}
	sum, err := w.summary.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("detector: %w", err)
	}
	b = frame.AppendBytes(b, sum)
	return frame.AppendChecksum(b, 0), nil
}

// UnmarshalWindow decodes a window encoded by MarshalBinary. cfg must be the
// sketch configuration the window was made with. Truncated, corrupted or
// foreign input returns an error wrapping ErrCorruptWindow; it never panics.
func UnmarshalWindow(data []byte, cfg sketch.Config) (*Window, error) {
	version, r, err := windowFormat.Open(data)
	if err != nil {
		return nil, err
	}
	w := &Window{}
	w.table = readName(&r)
	w.index = readName(&r)
	w.start, w.end = r.Varint(), r.Varint()
	if version == 5 {
		// Five counters, then InternalErrors and TTLWCU: the last two in
		// the order report.Totals does not encode them.
		w.totals.ReadCounters(&r, 0, 5)
		w.totals.InternalErrors, w.totals.TTLWCU = r.Uvarint(), r.Uvarint()
	} else {
		// Fewer counters than this build knows: an older build's, the
		// rest 0; more: a later build's, dropped.
		w.totals.ReadCounters(&r, 0, r.Count(1))
	}
	flags := r.Byte()
	w.totals.WCUIsLowerBound, w.terminatedEarly, w.trimmed = flags&1 != 0, flags&2 != 0, flags&4 != 0
	w.shards = readShards(&r)
	w.sec = r.Varint()
	w.dropped = r.Uvarint()
	w.watchedKeys = readWatchedKeys(&r)
	if sumLen := r.Uvarint(); r.Err() == nil && sumLen != uint64(r.Len()) {
		r.Failf("summary length %d, %d bytes left", sumLen, r.Len())
	}
	if r.Err() == nil && w.end <= w.start {
		r.Failf("window [%d, %d) is empty", w.start, w.end)
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	s, err := sketch.NewSummary(cfg)
	if err != nil {
		return nil, fmt.Errorf("detector: %w", err)
	}
	if err := s.UnmarshalBinary(r.Unread()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptWindow, err)
	}
	if s.Config() != cfg {
		return nil, fmt.Errorf("%w: state was made with sketch config %+v, this deployment uses %+v", ErrCorruptWindow, s.Config(), cfg)
	}
	w.summary = s
	return w, nil
}

// readShards reads the shards' loads MarshalBinary wrote.
func readShards(r *frame.Reader) []shardLoad {
	n := r.Count(1)
	if n > maxShards {
		r.Failf("%d shards", n)
		return nil
	}
	shards := make([]shardLoad, n)
	for i := range shards {
		s := &shards[i]
		s.id = readName(r)
		s.records, s.wcu = r.Uvarint(), r.Uvarint()
		s.tick = r.Varint()
		s.tickWCU, s.peak = r.Uvarint(), r.Uvarint()
		s.saturated = readSeconds(r)
	}
	return shards
}

// readWatchedKeys reads the watched keys MarshalBinary wrote; nil for none.
func readWatchedKeys(r *frame.Reader) watchedKeys {
	n := r.Count(10)
	if n > MaxWatchedKeys {
		r.Failf("%d watched keys, at most %d", n, MaxWatchedKeys)
		return nil
	}
	if n == 0 {
		return nil
	}
	keys := make(watchedKeys, n)
	for i := range keys {
		k := &keys[i]
		k.hash = r.Uint64()
		f := r.Byte()
		if f > 1 {
			r.Failf("watched key %d: flags %#x", i, f)
		}
		k.announced = f == 1
		k.saturated = readSeconds(r)
	}
	return keys
}

// readSeconds reads a count of seconds in a window, at most MaxWindow's.
func readSeconds(r *frame.Reader) uint32 {
	n := r.Uvarint()
	if n > uint64(MaxWindow/time.Second) {
		r.Failf("%d seconds in a window", n)
		return 0
	}
	return uint32(n)
}

// readName reads a table, index or shard name, refusing one longer than
// any of them can be.
func readName(r *frame.Reader) string {
	n := r.Uvarint()
	if n > maxNameLen {
		r.Failf("name of %d bytes, at most %d", n, maxNameLen)
		return ""
	}
	return string(r.Bytes(n))
}
