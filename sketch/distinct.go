package sketch

// A distinct-key sketch outside its Summary: the encoding AppendDistinct
// writes, which package history stores, packs and unites. Its byte layout
// is axiomhq/hyperloglog's, and this file is the one place that reads it.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/axiomhq/hyperloglog"
)

// axiomhq/hyperloglog's encoding (version 2): version, precision, 0, a
// sparse flag, then for a dense sketch a 4-byte register count and one byte
// per register. Every sketch of distinct keys has precision HLLPrecision,
// so that any two unite; dense ones unite by a register-wise maximum, with
// no decoding at all.
const (
	hllVersion   = 2
	hllRegisters = 1 << HLLPrecision
	hllHeader    = 8
	hllMaxRho    = 64 - HLLPrecision + 1
)

// denseRegisters returns the registers of a dense encoding, or nil for any
// other.
func denseRegisters(enc []byte) []byte {
	if len(enc) == hllHeader+hllRegisters && enc[0] == hllVersion && enc[1] == HLLPrecision && enc[3] == 0 {
		return enc[hllHeader:]
	}
	return nil
}

// checkDistinct validates an encoding, without building the sketch when
// it is dense.
func checkDistinct(enc []byte) error {
	if len(enc) < hllHeader || enc[0] != hllVersion || enc[1] != HLLPrecision || enc[2] != 0 || enc[3] > 1 {
		return fmt.Errorf("sketch: distinct-key sketch is not a precision-%d HyperLogLog: %w", HLLPrecision, ErrCorrupt)
	}
	if enc[3] == 0 {
		if len(enc) != hllHeader+hllRegisters || binary.BigEndian.Uint32(enc[4:]) != hllRegisters {
			return fmt.Errorf("sketch: dense distinct-key sketch of %d bytes: %w", len(enc), ErrCorrupt)
		}
		for _, r := range enc[hllHeader:] {
			if r > hllMaxRho {
				return fmt.Errorf("sketch: distinct-key sketch register %d: %w", r, ErrCorrupt)
			}
		}
		return nil
	}
	_, err := decodeDistinct(enc)
	return err
}

// decodeDistinct builds the sketch an encoding holds.
func decodeDistinct(enc []byte) (*hyperloglog.Sketch, error) {
	if len(enc) < 2 || enc[1] != HLLPrecision {
		return nil, fmt.Errorf("sketch: distinct-key sketch is not of precision %d: %w", HLLPrecision, ErrCorrupt)
	}
	h := new(hyperloglog.Sketch)
	if err := h.UnmarshalBinary(enc); err != nil {
		return nil, fmt.Errorf("sketch: distinct-key sketch: %w: %w", err, ErrCorrupt)
	}
	return h, nil
}

// DistinctUnion unites encoded distinct-key sketches (AppendDistinct's):
// dense ones register by register, by maximum, without decoding them;
// sparse ones (a few thousand keys at most) decoded and merged. Its
// estimate is the HyperLogLog's of the union of the keys the sketches
// counted. The zero value is an empty union; a DistinctUnion is not safe
// for concurrent use.
type DistinctUnion struct {
	regs   []byte              // dense registers united, or nil
	sparse *hyperloglog.Sketch // sparse sketches united, or nil
}

// Add unites the sketch enc encodes with u. An encoding that is not a
// precision-HLLPrecision HyperLogLog is refused with an error wrapping
// ErrCorrupt, and u is left as it was. A dense encoding's registers are
// taken as they are: check an encoding from outside the process with
// UnpackDistinct first.
func (u *DistinctUnion) Add(enc []byte) error {
	if regs := denseRegisters(enc); regs != nil {
		if u.regs == nil {
			u.regs = make([]byte, hllRegisters)
		}
		for i, r := range regs {
			u.regs[i] = max(u.regs[i], r)
		}
		return nil
	}
	h, err := decodeDistinct(enc)
	if err != nil {
		return err
	}
	if u.sparse == nil {
		u.sparse = h
		return nil
	}
	// Both of one precision (decodeDistinct checks): cannot fail.
	if err := u.sparse.Merge(h); err != nil {
		return fmt.Errorf("sketch: distinct-key sketch: %w: %w", err, ErrCorrupt)
	}
	return nil
}

// Empty reports whether nothing was added to u.
func (u *DistinctUnion) Empty() bool { return u.regs == nil && u.sparse == nil }

// Encode returns u's estimate of the distinct keys and the encoding of
// the united sketch (as AppendDistinct writes it, dense when any sketch
// added was); 0 and nil when u is empty. A dense estimate takes about half
// a millisecond.
func (u *DistinctUnion) Encode() (estimate uint64, enc []byte) {
	h := u.sparse
	if u.regs != nil {
		raw := make([]byte, hllHeader, hllHeader+hllRegisters)
		raw[0], raw[1] = hllVersion, HLLPrecision
		binary.BigEndian.PutUint32(raw[4:], hllRegisters)
		dense, err := decodeDistinct(append(raw, u.regs...))
		if err != nil {
			panic(err) // registers of dense encodings of this precision
		}
		if u.sparse != nil {
			if err := dense.Merge(u.sparse); err != nil {
				panic(err) // equal precisions
			}
		}
		h = dense
	}
	if h == nil {
		return 0, nil
	}
	// Both kinds of sketch marshal without error.
	enc, _ = h.MarshalBinary()
	return h.Estimate(), enc
}

// How PackDistinct stores a sketch: a dense one as its registers packed in
// nibbles (a register of 15 or more is a nibble 15 and an exception; at
// 2^14 registers they are rare), 8 KB and unpacked by a plain loop, which
// inflating is not; a sparse one (a few thousand keys at most) as its
// encoding deflated. The first byte says which.
const (
	packedDense  = 1
	packedSparse = 2
)

// PackDistinct returns the compact form of enc, an encoded distinct-key
// sketch, that UnpackDistinct turns back into enc: what a stored history
// summary holds. An empty enc packs to nothing.
func PackDistinct(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, nil
	}
	regs := denseRegisters(enc)
	if regs == nil {
		z, err := deflate(enc)
		return append([]byte{packedSparse}, z...), err
	}
	b := make([]byte, 1, 1+hllRegisters/2+16)
	b[0] = packedDense
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

// UnpackDistinct returns the encoded sketch packed, PackDistinct's form,
// holds, checked: anything that is not a precision-HLLPrecision
// HyperLogLog is refused with an error wrapping ErrCorrupt.
func UnpackDistinct(packed []byte) ([]byte, error) {
	if len(packed) == 0 {
		return nil, fmt.Errorf("sketch: empty packed distinct-key sketch: %w", ErrCorrupt)
	}
	var enc []byte
	var err error
	switch packed[0] {
	case packedSparse:
		enc, err = inflate(packed[1:])
	case packedDense:
		enc, err = unpackDense(packed[1:])
	default:
		return nil, fmt.Errorf("sketch: distinct-key sketch of kind %d: %w", packed[0], ErrCorrupt)
	}
	if err != nil {
		return nil, err
	}
	if err := checkDistinct(enc); err != nil {
		return nil, err
	}
	return enc, nil
}

// unpackDense rebuilds a dense encoding from its nibbles and exceptions.
func unpackDense(b []byte) ([]byte, error) {
	if len(b) < hllRegisters/2 {
		return nil, fmt.Errorf("sketch: dense distinct-key sketch truncated: %w: %w", ErrTruncated, ErrCorrupt)
	}
	enc := make([]byte, hllHeader+hllRegisters)
	enc[0], enc[1] = hllVersion, HLLPrecision
	binary.BigEndian.PutUint32(enc[4:], hllRegisters)
	regs := enc[hllHeader:]
	for i, c := range b[:hllRegisters/2] {
		regs[2*i], regs[2*i+1] = c>>4, c&15
	}
	r := summaryFormat.NewReader(b[hllRegisters/2:])
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
	return enc, nil
}

// maxInflated bounds an inflated sketch: at HLLPrecision, 14, a dense one
// is 16 KB.
const maxInflated = 64 << 10

func deflate(enc []byte) ([]byte, error) {
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	w.Write(enc)
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// inflaters keeps decompressors and their buffers: a new one allocates
// tens of KB, and history decodes tens of thousands of summaries. It holds
// nothing from one call to the next.
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
		return nil, fmt.Errorf("sketch: distinct-key sketch: %w: %w", err, ErrCorrupt)
	}
	in.buf.Reset()
	if _, err := in.buf.ReadFrom(io.LimitReader(in.r, maxInflated+1)); err != nil {
		return nil, fmt.Errorf("sketch: distinct-key sketch: %w: %w", err, ErrCorrupt)
	}
	if in.buf.Len() > maxInflated {
		return nil, fmt.Errorf("sketch: distinct-key sketch over %d bytes: %w", maxInflated, ErrCorrupt)
	}
	return bytes.Clone(in.buf.Bytes()), nil
}
