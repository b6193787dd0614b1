package sketch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/axiomhq/hyperloglog"
)

// distinctEnc returns AppendDistinct's encoding of the keys lo to hi-1 of
// prefix, and the HyperLogLog the library builds of them: the oracle.
func distinctEnc(t testing.TB, prefix string, lo, hi int) ([]byte, *hyperloglog.Sketch) {
	t.Helper()
	s, err := NewSummary(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	h := newHLL()
	for i := lo; i < hi; i++ {
		key := fmt.Appendf(nil, "%s%d", prefix, i)
		s.Add(key, 1, 0, 0)
		h.InsertHash(Hash(key))
	}
	enc, err := s.AppendDistinct(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc, h
}

// TestPackDistinct: every encoding, sparse (a few keys) or dense (many,
// with registers of 15 or more at 200,000), packs and unpacks back to
// itself byte for byte; a dense one packs to its nibbles and exceptions,
// about half its size.
func TestPackDistinct(t *testing.T) {
	for _, n := range []int{1, 300, 20000, 200_000} {
		enc, _ := distinctEnc(t, "k", 0, n)
		packed, err := PackDistinct(enc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnpackDistinct(packed)
		if err != nil || !bytes.Equal(got, enc) {
			t.Errorf("%d keys: unpacked %d bytes, %v; want the %d packed", n, len(got), err, len(enc))
		}
		dense := denseRegisters(enc) != nil
		if want := n >= 20000; dense != want {
			t.Errorf("%d keys: dense %v, want %v", n, dense, want)
		}
		var exceptions int
		for _, r := range denseRegisters(enc) {
			if r >= 15 {
				exceptions++
			}
		}
		if dense && (packed[0] != packedDense || len(packed) > 1+hllRegisters/2+4*exceptions) {
			t.Errorf("%d keys: dense sketch of %d exceptions packed to %d bytes of kind %d", n, exceptions, len(packed), packed[0])
		}
		if n == 200_000 && exceptions == 0 {
			t.Errorf("200,000 keys: no register of 15 or more; the test would prove nothing of exceptions")
		}
		if !dense && packed[0] != packedSparse {
			t.Errorf("%d keys: sparse sketch packed as kind %d", n, packed[0])
		}
	}
	if packed, err := PackDistinct(nil); packed != nil || err != nil {
		t.Errorf("nothing packed to %v, %v", packed, err)
	}
}

// TestDistinctUnion: sketches united, dense and sparse in any order,
// estimate what the library's own merge of them does, and within 2 % of
// the exact count of the keys in any of them.
func TestDistinctUnion(t *testing.T) {
	a, ha := distinctEnc(t, "k", 0, 20000)     // dense
	b, hb := distinctEnc(t, "k", 15000, 40000) // dense, overlapping a
	c, hc := distinctEnc(t, "k", 39900, 40200) // sparse, overlapping b
	d, hd := distinctEnc(t, "s", 0, 500)       // sparse
	const exact = 40200 + 500
	oracle := ha.Clone()
	for _, h := range []*hyperloglog.Sketch{hb, hc, hd} {
		if err := oracle.Merge(h); err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range [][][]byte{{a, b, c, d}, {d, c, b, a}, {c, a, d, b}} {
		var u DistinctUnion
		for _, enc := range order {
			if err := u.Add(enc); err != nil {
				t.Fatal(err)
			}
		}
		est, enc := u.Encode()
		if est != oracle.Estimate() || math.Abs(float64(est)-exact) > 0.02*exact {
			t.Errorf("union estimate %d, the library's merge %d, exact %d", est, oracle.Estimate(), exact)
		}
		// The encoding is the union's: it unites again to the same.
		var again DistinctUnion
		if err := again.Add(enc); err != nil {
			t.Fatal(err)
		}
		if est2, _ := again.Encode(); est2 != est || denseRegisters(enc) == nil {
			t.Errorf("the union's encoding estimates %d, want %d, dense", est2, est)
		}
	}
	// Sparse ones alone stay sparse, and estimate as the library does.
	var u DistinctUnion
	for _, enc := range [][]byte{c, d} {
		if err := u.Add(enc); err != nil {
			t.Fatal(err)
		}
	}
	oracle = hc.Clone()
	if err := oracle.Merge(hd); err != nil {
		t.Fatal(err)
	}
	if est, enc := u.Encode(); est != oracle.Estimate() || denseRegisters(enc) != nil {
		t.Errorf("sparse union: estimate %d, want %d, sparse", est, oracle.Estimate())
	}
	var empty DistinctUnion
	if est, enc := empty.Encode(); !empty.Empty() || est != 0 || enc != nil {
		t.Errorf("an empty union: %v, %d, %v", empty.Empty(), est, enc)
	}
}

// TestDistinctUnionRefuses: an encoding that is not a precision-14
// HyperLogLog is refused with ErrCorrupt, and the union is as it was.
func TestDistinctUnionRefuses(t *testing.T) {
	a, _ := distinctEnc(t, "k", 0, 20000)
	p16, err := hyperloglog.NewSketch(16, true)
	if err != nil {
		t.Fatal(err)
	}
	p16.InsertHash(1)
	enc16, _ := p16.MarshalBinary()
	var u DistinctUnion
	if err := u.Add(a); err != nil {
		t.Fatal(err)
	}
	before, _ := u.Encode()
	for name, bad := range map[string][]byte{
		"precision 16": enc16,
		"garbage":      {2, 14, 0, 1, 9, 9},
		"one byte":     {2},
	} {
		if err := u.Add(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
		if after, _ := u.Encode(); after != before {
			t.Errorf("%s: estimate %d after a refused sketch, %d before", name, after, before)
		}
	}
}

// TestUnpackDistinctRefuses: what does not unpack to a valid sketch is
// refused with ErrCorrupt.
func TestUnpackDistinctRefuses(t *testing.T) {
	dense, _ := distinctEnc(t, "k", 0, 20000)
	packed, err := PackDistinct(dense)
	if err != nil {
		t.Fatal(err)
	}
	nibbles := packed[:1+hllRegisters/2]
	withException := func(at uint64, v byte) []byte {
		b := bytes.Clone(nibbles)
		b[1+at/2] |= 0xff // registers at and its neighbour read 15
		return append(binary.AppendUvarint(b, at), v)
	}
	low := bytes.Clone(nibbles)
	low[1] &= 0x0f // register 0 reads 0
	huge, err := deflate(make([]byte, maxInflated+1))
	if err != nil {
		t.Fatal(err)
	}
	p16, _ := hyperloglog.NewSketch(16, true)
	p16.InsertHash(1)
	enc16, _ := p16.MarshalBinary()
	z16, _ := deflate(enc16)
	for name, bad := range map[string][]byte{
		"empty":                          {},
		"kind 3":                         append([]byte{3}, packed[1:]...),
		"dense truncated":                packed[:hllRegisters/4],
		"an exception below 15":          withException(10, 14),
		"an exception of a register <15": append(low, 0, 20),
		"an exception beyond the last":   append(bytes.Clone(nibbles), 0xff, 0xff, 0x03, 20),
		"a register over 51":             withException(10, hllMaxRho+1),
		"an exception cut short":         append(bytes.Clone(nibbles), 0x80),
		"sparse, not deflate":            {packedSparse, 0xff, 0xff},
		"sparse, over 64 KB":             append([]byte{packedSparse}, huge...),
		"sparse, precision 16":           append([]byte{packedSparse}, z16...),
	} {
		if got, err := UnpackDistinct(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %d bytes, %v; want ErrCorrupt", name, len(got), err)
		}
	}
}

// FuzzUnpackDistinct: whatever the input, UnpackDistinct returns a sketch
// that packs back to itself and unites, or an error wrapping ErrCorrupt.
func FuzzUnpackDistinct(f *testing.F) {
	for _, n := range []int{300, 20000} {
		enc, _ := distinctEnc(f, "k", 0, n)
		packed, err := PackDistinct(enc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(packed)
		f.Add(packed[:len(packed)/2])
	}
	f.Fuzz(func(t *testing.T, packed []byte) {
		enc, err := UnpackDistinct(packed)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := PackDistinct(enc)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := UnpackDistinct(again); err != nil || !bytes.Equal(back, enc) {
			t.Fatalf("repacked: %v, changed %v", err, !bytes.Equal(back, enc))
		}
		var u DistinctUnion
		if err := u.Add(enc); err != nil {
			t.Fatalf("an unpacked sketch does not unite: %v", err)
		}
	})
}
