package sketch

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/axiomhq/hyperloglog"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

func isErr(err, target error) bool { return err != nil && errors.Is(err, target) }

// seal appends the checksum to a hand-made body, so that tests reach the
// checks behind it.
func seal(body []byte) []byte {
	return frame.AppendChecksum(body, 0)
}

// small returns a summary with a bit of everything: items, many items, a
// full table of 4 counters, out-of-order ticks.
func small(t testing.TB) *Summary {
	s, err := NewSummary(Config{Counters: 4, Width: 8, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{"a", "b", "c", "a", "d", "e", "a", "b", "f", ""} {
		s.Add([]byte(k), uint64(i+1), int64(100-i%3), uint64(i%2))
	}
	return s
}

// body builds an encoding by hand: config, total, then whatever follows.
func body(cfg Config, total uint64, rest ...[]byte) []byte {
	b := []byte{encodingVersion}
	for _, v := range []int{cfg.Counters, cfg.Width, cfg.Depth} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = binary.AppendUvarint(b, total)
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

func uv(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// emptyTail is an empty count-min of 1×1 and an empty sparse HyperLogLog.
func emptyTail(t testing.TB) []byte {
	hll, err := newHLL().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(uv(0, 0), uint32(len(hll))), hll...)
}

func TestUnmarshalRejects(t *testing.T) {
	one := Config{Counters: 1, Width: 1, Depth: 1}
	tail := emptyTail(t)
	entry := func(key string, count, over, tickWeight, peak uint64, flags byte) []byte {
		b := uv(uint64(len(key)))
		b = append(b, key...)
		b = append(b, uv(count, over)...)
		b = binary.AppendVarint(b, 0)
		return append(append(b, uv(tickWeight, peak)...), flags)
	}
	// One 1×1 count-min cell of 5, then tail's HyperLogLog.
	cell5 := append(uv(5), tail[2:]...)
	valid := seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 5, 0), cell5))
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"nil", nil, ErrTruncated},
		{"version only", []byte{encodingVersion}, ErrTruncated},
		{"version 0", []byte{0, 1, 2, 3, 4, 5}, ErrVersion},
		{"version 3", append([]byte{3}, valid[1:]...), ErrVersion}, // 2 is a trimmed summary
		{"over 16 MB", make([]byte, maxEncodedLen+1), ErrTooLarge},
		{"bad checksum", append(valid[:len(valid)-1:len(valid)-1], valid[len(valid)-1]^1), ErrCorrupt},
		{"too many counters", seal(body(Config{MaxCounters + 1, 1, 1}, 0)), ErrTooLarge},
		{"too wide", seal(body(Config{1, MaxWidth + 1, 1}, 0)), ErrTooLarge},
		{"too many cells", seal(body(Config{1, MaxWidth, MaxDepth}, 0)), ErrCorrupt},
		{"zero counters", seal(body(Config{0, 1, 1}, 0)), ErrCorrupt},
		{"varint overflow", seal(append(body(one, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)), ErrCorrupt},
		{"ends in total", seal([]byte{encodingVersion, 1, 1, 1}), ErrTruncated},
		{"more entries than counters", seal(body(one, 10, uv(2), entry("a", 5, 0, 5, 5, 0), entry("b", 5, 0, 5, 5, 0), tail)), ErrTooLarge},
		{"key over MaxKeyLen", seal(body(one, 5, uv(1, MaxKeyLen+1))), ErrTooLarge},
		{"key past the end", seal(body(one, 5, uv(1, 1000), []byte("short"))), ErrTruncated},
		{"count 0", seal(body(one, 5, uv(1), entry("k", 0, 0, 0, 0, 0), tail)), ErrCorrupt},
		{"overcount above count", seal(body(one, 5, uv(1), entry("k", 5, 6, 0, 0, 0), tail)), ErrCorrupt},
		{"peak above lower bound", seal(body(one, 5, uv(1), entry("k", 5, 1, 5, 5, 0), tail)), ErrCorrupt},
		{"tick weight above peak", seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 4, 0), tail)), ErrCorrupt},
		{"counts above total", seal(body(one, 4, uv(1), entry("k", 5, 0, 5, 5, 0), tail)), ErrCorrupt},
		{"unknown flag", seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 5, 4), tail)), ErrCorrupt},
		{"many items without item", seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 5, flagMany), tail)), ErrCorrupt},
		{"item past the end", seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 5, flagItem), []byte{1, 2})), ErrTruncated},
		{"duplicate key", seal(body(Config{2, 1, 1}, 10, uv(2), entry("k", 5, 0, 5, 5, 0), entry("k", 5, 0, 5, 5, 0), tail)), ErrCorrupt},
		{"count-min below an entry's lower bound", seal(body(one, 5, uv(1), entry("k", 5, 0, 5, 5, 0), tail)), ErrCorrupt},
		{"cell above total", seal(body(one, 0, uv(0, 7), tail[2:])), ErrCorrupt},
		{"zero run past the end", seal(body(one, 0, uv(0, 0, 1), tail[2:])), ErrCorrupt},
		{"hyperloglog longer than input", seal(body(one, 0, uv(0, 0, 0), []byte{0, 0, 1, 0})), ErrTruncated},
		{"bytes after hyperloglog", seal(append(body(one, 0, uv(0), tail), 0)), ErrCorrupt},
		{"hyperloglog garbage", seal(body(one, 0, uv(0, 0, 0), []byte{0, 0, 0, 3, 2, 14, 0})), ErrCorrupt},
		{"hyperloglog of precision 16", seal(body(one, 0, uv(0, 0, 0), hll16(t))), ErrCorrupt},
	}
	var ok Summary
	if err := ok.UnmarshalBinary(valid); err != nil {
		t.Fatalf("the valid base case fails: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := small(t)
			before := roundTrip(t, s)
			err := s.UnmarshalBinary(tc.data)
			if !isErr(err, tc.want) {
				t.Fatalf("UnmarshalBinary = %v, want %v", err, tc.want)
			}
			if !isErr(err, ErrCorrupt) && !isErr(err, ErrVersion) {
				t.Errorf("%v matches neither ErrCorrupt nor ErrVersion", err)
			}
			if err := sameContent(s, before); err != nil {
				t.Errorf("rejected input changed the receiver: %v", err)
			}
			s.Add([]byte("still usable"), 1, 0, 0)
			roundTrip(t, s)
		})
	}
}

func hllOfPrecision(p uint8) ([]byte, error) {
	sk, err := hyperloglog.NewSketch(p, true)
	if err != nil {
		return nil, err
	}
	sk.InsertHash(42)
	return sk.MarshalBinary()
}

func hll16(t testing.TB) []byte {
	b, err := hllOfPrecision(16)
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// TestUnmarshalDamage: every prefix and every single-byte change of a
// valid encoding is rejected, without changing the receiver.
func TestUnmarshalDamage(t *testing.T) {
	valid, err := small(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := small(t)
	before := roundTrip(t, s)
	for n := range len(valid) {
		if err := s.UnmarshalBinary(valid[:n]); err == nil {
			t.Fatalf("prefix of %d bytes of %d accepted", n, len(valid))
		}
	}
	damaged := make([]byte, len(valid))
	for i := range valid {
		copy(damaged, valid)
		damaged[i] ^= byte(1 + r.IntN(255))
		if err := s.UnmarshalBinary(damaged); err == nil {
			t.Fatalf("byte %d changed, accepted", i)
		}
	}
	if err := sameContent(s, before); err != nil {
		t.Errorf("rejected input changed the receiver: %v", err)
	}
}

// millionOf is a summary of a million distinct keys with weights 1-400 and
// items, the keys 16-64 bytes long (mixed) or all 64 (the worst case for
// size): the size budget's cases. Shared with the benchmarks.
func millionOf(long bool) *Summary {
	s, _ := NewSummary(DefaultConfig())
	r := rand.New(rand.NewPCG(1e6, 1))
	var buf []byte
	for i := range 1_000_000 {
		buf = distinctKey(buf[:0], i)
		for long && len(buf) < 64 {
			buf = append(buf, 'y')
		}
		s.Add(buf, 1+uint64(r.IntN(400)), int64(1_800_000_000+i/20_000), r.Uint64()|1)
	}
	return s
}

var (
	million    = sync.OnceValue(func() *Summary { return millionOf(true) })
	millionMix = sync.OnceValue(func() *Summary { return millionOf(false) })
)

const sizeBudget, emptyBudget = 56 << 10, 64

// TestEncodedSize: the Lambda's tumbling-window state is capped at 1 MB and
// our budget is 64 KB, of which the detector needs a few: a summary of a
// million distinct keys must encode to at most 56 KB.
func TestEncodedSize(t *testing.T) {
	for name, s := range map[string]*Summary{"16-64-byte keys": millionMix(), "64-byte keys": million()} {
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes at 1M distinct keys", name, len(b))
		if len(b) > sizeBudget {
			t.Errorf("%s: %d bytes at 1M distinct keys, budget %d", name, len(b), sizeBudget)
		}
	}
	empty, _ := NewSummary(DefaultConfig())
	if b, _ := empty.MarshalBinary(); len(b) > emptyBudget {
		t.Errorf("an empty summary encodes to %d bytes", len(b))
	}
}

func TestAppendBinaryAppends(t *testing.T) {
	s := small(t)
	b, err := s.AppendBinary([]byte("prefix"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:6]) != "prefix" {
		t.Fatalf("prefix lost: %q", b[:6])
	}
	var d Summary
	if err := d.UnmarshalBinary(b[6:]); err != nil {
		t.Fatal(err)
	}
	if err := sameContent(s, &d); err != nil {
		t.Error(err)
	}
}

// TestDecodeAllocationBound: a few bytes that claim the largest config
// allocate what that config needs, under 1 MB, and no more.
func TestDecodeAllocationBound(t *testing.T) {
	largest := Config{Counters: MaxCounters, Width: MaxWidth, Depth: MaxCells / MaxWidth}
	hll := emptyTail(t)[2:]
	inputs := map[string][]byte{
		"valid":     seal(body(largest, 0, uv(0, 0, MaxCells-1), hll)),
		"truncated": seal(body(largest, 0, uv(0, 0, MaxCells-1))),
	}
	for name, in := range inputs {
		var before, after runtime.MemStats
		var s Summary
		runtime.ReadMemStats(&before)
		err := s.UnmarshalBinary(in)
		runtime.ReadMemStats(&after)
		if (err == nil) != (name == "valid") {
			t.Fatalf("%s: %v", name, err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes of input allocated %d bytes", name, len(in), got)
		if got > 1<<20 {
			t.Errorf("%s: %d bytes of input allocated %d bytes", name, len(in), got)
		}
	}
}
