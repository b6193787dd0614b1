package detector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// windowVersion is the first byte of an encoded Window. Bump it on any
// change of layout: a Lambda deploy can meet state written by the previous
// version, and must reject it cleanly rather than misread it.
const windowVersion = 4 // 2: InternalErrors; 3: the index name and its TTL WCU; 4: trimmed

// Limits on decoded fields, checked before anything is allocated.
const (
	maxNameLen = 2048 // table names are ≤ 255 bytes, shard ids ≤ 65
	maxShards  = 4096
)

// ErrCorruptWindow is wrapped by every decoding error.
var ErrCorruptWindow = errors.New("detector: corrupt window state")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes the window: a version byte, the fields, the
// sketch.Summary's own encoding, and a CRC-32C of all of it.
func (w *Window) MarshalBinary() ([]byte, error) {
	b := []byte{windowVersion}
	b = appendString(b, w.table)
	b = appendString(b, w.index)
	b = binary.AppendVarint(b, w.start)
	b = binary.AppendVarint(b, w.end)
	for _, v := range []uint64{w.records, w.ttlDeletes, w.malformed, w.late, w.wcu, w.internal, w.ttlWCU} {
		b = binary.AppendUvarint(b, v)
	}
	var flags byte
	if w.lowerBound {
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
		b = appendString(b, s.id)
		b = binary.AppendUvarint(b, s.records)
		b = binary.AppendUvarint(b, s.wcu)
		b = binary.AppendVarint(b, s.tick)
		b = binary.AppendUvarint(b, s.tickWCU)
		b = binary.AppendUvarint(b, s.peak)
	}
	sum, err := w.summary.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("detector: %w", err)
	}
	b = binary.AppendUvarint(b, uint64(len(sum)))
	b = append(b, sum...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// UnmarshalWindow decodes a window encoded by MarshalBinary. cfg must be the
// sketch configuration the window was made with. Truncated, corrupted or
// foreign input returns an error wrapping ErrCorruptWindow; it never panics.
func UnmarshalWindow(data []byte, cfg sketch.Config) (*Window, error) {
	if len(data) < 5 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrCorruptWindow, len(data))
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorruptWindow)
	}
	if body[0] != windowVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorruptWindow, body[0], windowVersion)
	}
	r := reader{b: body[1:]}
	w := &Window{}
	w.table = r.string()
	w.index = r.string()
	w.start, w.end = r.varint(), r.varint()
	w.records, w.ttlDeletes, w.malformed, w.late, w.wcu = r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()
	w.internal = r.uvarint()
	w.ttlWCU = r.uvarint()
	flags := r.byte()
	w.lowerBound, w.terminatedEarly, w.trimmed = flags&1 != 0, flags&2 != 0, flags&4 != 0
	n := r.uvarint()
	if n > maxShards || n > uint64(len(r.b)) {
		return nil, fmt.Errorf("%w: %d shards", ErrCorruptWindow, n)
	}
	w.shards = make([]shardLoad, n)
	for i := range w.shards {
		s := &w.shards[i]
		s.id = r.string()
		s.records, s.wcu = r.uvarint(), r.uvarint()
		s.tick = r.varint()
		s.tickWCU, s.peak = r.uvarint(), r.uvarint()
	}
	sumLen := r.uvarint()
	if r.err == nil && sumLen != uint64(len(r.b)) {
		r.err = fmt.Errorf("summary length %d, %d bytes left", sumLen, len(r.b))
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptWindow, r.err)
	}
	if w.end <= w.start {
		return nil, fmt.Errorf("%w: window [%d, %d) is empty", ErrCorruptWindow, w.start, w.end)
	}
	s, err := sketch.NewSummary(cfg)
	if err != nil {
		return nil, fmt.Errorf("detector: %w", err)
	}
	if err := s.UnmarshalBinary(r.b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptWindow, err)
	}
	if s.Config() != cfg {
		return nil, fmt.Errorf("%w: state was made with sketch config %+v, this deployment uses %+v", ErrCorruptWindow, s.Config(), cfg)
	}
	w.summary = s
	return w, nil
}

// reader decodes varints and strings, remembering the first error so the
// caller checks once.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad uvarint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = cmpErr(r.err, errors.New("truncated"))
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > maxNameLen || n > uint64(len(r.b)) {
		r.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
