package history

// How a window's distinct-key sketch (a HyperLogLog) is checked, packed
// and unpacked in a stored summary, apart from the summary's own fields.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/axiomhq/hyperloglog"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// axiomhq/hyperloglog's encoding (version 2): version, precision, 0, a
// sparse flag, then for a dense sketch a 4-byte register count and one byte
// per register. Every stored sketch has the windows' precision,
// sketch.HLLPrecision, so that any two merge; a dense one merges by a
// register-wise maximum, with no decoding at all.
const (
	hllRegisters = 1 << sketch.HLLPrecision
	hllHeader    = 8
	hllMaxRho    = 64 - sketch.HLLPrecision + 1
)

// denseRegisters returns the registers of a dense encoding, or nil for a
// sparse one.
func denseRegisters(raw []byte) []byte {
	if len(raw) == hllHeader+hllRegisters && raw[3] == 0 {
		return raw[hllHeader:]
	}
	return nil
}

// checkHLL validates a stored HyperLogLog without building it when dense.
func checkHLL(raw []byte) error {
	if len(raw) < hllHeader || raw[0] != 2 || raw[1] != sketch.HLLPrecision || raw[2] != 0 || raw[3] > 1 {
		return fmt.Errorf("%w: distinct-key sketch is not a precision-%d HyperLogLog", ErrCorrupt, sketch.HLLPrecision)
	}
	if raw[3] == 0 {
		if len(raw) != hllHeader+hllRegisters || binary.BigEndian.Uint32(raw[4:]) != hllRegisters {
			return fmt.Errorf("%w: dense distinct-key sketch of %d bytes", ErrCorrupt, len(raw))
		}
		for _, r := range raw[hllHeader:] {
			if r > hllMaxRho {
				return fmt.Errorf("%w: distinct-key sketch register %d", ErrCorrupt, r)
			}
		}
		return nil
	}
	_, err := decodeHLL(raw)
	return err
}

// decodeHLL decodes a stored HyperLogLog.
func decodeHLL(raw []byte) (*hyperloglog.Sketch, error) {
	if len(raw) < 2 || raw[1] != sketch.HLLPrecision {
		return nil, fmt.Errorf("%w: distinct-key sketch is not of precision %d", ErrCorrupt, sketch.HLLPrecision)
	}
	h := new(hyperloglog.Sketch)
	if err := h.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("%w: distinct-key sketch: %w", ErrCorrupt, err)
	}
	return h, nil
}

// How a HyperLogLog is stored: a dense one as its registers packed in
// nibbles (a register of 15 or more is a nibble 15 and an exception; at
// 2^14 registers they are rare), 8 KB and decoded by a plain loop, which
// inflating is not; a sparse one (a few thousand keys at most) as its
// encoding deflated.
const (
	hllDense  = 1
	hllSparse = 2
)

func packHLL(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	regs := denseRegisters(raw)
	if regs == nil {
		z, err := deflate(raw)
		return append([]byte{hllSparse}, z...), err
	}
	b := make([]byte, 1, 1+hllRegisters/2+16)
	b[0] = hllDense
	var exceptions []byte
	last := 0
	for i := 0; i < hllRegisters; i += 2 {
		b = append(b, min(regs[i], 15)<<4|min(regs[i+1], 15))
		for _, j := range []int{i, i + 1} {
			if regs[j] >= 15 {
				exceptions = binary.AppendUvarint(exceptions, uint64(j-last))
				exceptions = append(exceptions, regs[j])
				last = j
			}
		}
	}
	return append(b, exceptions...), nil
}

func unpackHLL(b []byte) ([]byte, error) {
	switch b[0] {
	case hllSparse:
		return inflate(b[1:])
	case hllDense:
	default:
		return nil, fmt.Errorf("%w: distinct-key sketch of kind %d", ErrCorrupt, b[0])
	}
	if len(b) < 1+hllRegisters/2 {
		return nil, fmt.Errorf("%w: dense distinct-key sketch truncated", ErrCorrupt)
	}
	raw := make([]byte, hllHeader+hllRegisters)
	raw[0], raw[1] = 2, sketch.HLLPrecision
	binary.BigEndian.PutUint32(raw[4:], hllRegisters)
	regs := raw[hllHeader:]
	for i, c := range b[1 : 1+hllRegisters/2] {
		regs[2*i], regs[2*i+1] = c>>4, c&15
	}
	r := summaryFormat.NewReader(b[1+hllRegisters/2:])
	last := 0
	for r.Len() > 0 {
		j := last + int(min(r.Uvarint(), hllRegisters))
		v := r.Byte()
		if r.Err() != nil {
			break
		}
		if j >= hllRegisters || regs[j] != 15 || v < 15 {
			r.Failf("distinct-key sketch exception %d = %d", j, v)
			break
		}
		regs[j], last = v, j
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	return raw, nil
}

// maxHLL bounds an inflated HyperLogLog: at sketch.HLLPrecision, 14, a
// dense one is 16 KB.
const maxHLL = 64 << 10

func deflate(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	w.Write(raw)
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// inflaters keeps decompressors and their buffers: a new one allocates
// tens of KB, and history decodes tens of thousands of summaries.
var inflaters = sync.Pool{New: func() any { return &inflater{} }}

type inflater struct {
	r   io.ReadCloser
	buf bytes.Buffer
}

func inflate(z []byte) ([]byte, error) {
	in := inflaters.Get().(*inflater)
	defer inflaters.Put(in)
	if in.r == nil {
		in.r = flate.NewReader(bytes.NewReader(z))
	} else if err := in.r.(flate.Resetter).Reset(bytes.NewReader(z), nil); err != nil {
		return nil, fmt.Errorf("%w: distinct-key sketch: %w", ErrCorrupt, err)
	}
	in.buf.Reset()
	if _, err := in.buf.ReadFrom(io.LimitReader(in.r, maxHLL+1)); err != nil {
		return nil, fmt.Errorf("%w: distinct-key sketch: %w", ErrCorrupt, err)
	}
	if in.buf.Len() > maxHLL {
		return nil, fmt.Errorf("%w: distinct-key sketch over %d bytes", ErrCorrupt, maxHLL)
	}
	return bytes.Clone(in.buf.Bytes()), nil
}
