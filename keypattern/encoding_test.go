package keypattern

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// content is a table's whole observable content: totals, other, and every
// pattern's figures, heavy keys and bounds included.
type content struct {
	Records, WCU, OtherRecords, OtherWCU uint64
	Figures                              []Figures
}

func contentOf(tb *Table) content {
	or, ow := tb.Other()
	return content{tb.Records(), tb.WCU(), or, ow, tb.Patterns(nil)}
}

func roundTrip(t testing.TB, tb *Table) *Table {
	t.Helper()
	enc, err := tb.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Table
	if err := d.UnmarshalBinary(enc); err != nil {
		t.Fatalf("decoding its own encoding: %v", err)
	}
	if before, after := contentOf(tb), contentOf(&d); !reflect.DeepEqual(before, after) {
		t.Fatalf("round trip changed the table (-before +after):\n%s", cmp.Diff(before, after))
	}
	again, _ := d.MarshalBinary()
	if !bytes.Equal(enc, again) {
		t.Fatalf("re-encoding differs: %d bytes, then %d", len(enc), len(again))
	}
	return &d
}

// TestRoundTrip: a decoded table has the content of the encoded one,
// encodes to the same bytes, and goes on counting as the original would.
func TestRoundTrip(t *testing.T) {
	recs := stream(3, streamKinds())
	half := len(recs) / 2
	tb := tableOf(t, recs[:half])
	d := roundTrip(t, tb)
	for _, r := range recs[half:] {
		tb.Add(r.key, sketch.Hash(r.key), r.wcu, r.second)
		d.Add(r.key, sketch.Hash(r.key), r.wcu, r.second)
	}
	if a, b := contentOf(tb), contentOf(d); !reflect.DeepEqual(a, b) {
		t.Errorf("the decoded table counted differently (-original +decoded):\n%s", cmp.Diff(a, b))
	}
	var empty Table
	roundTrip(t, &empty)
}

// TestEncodedSizes measures the encoding for 1, 10 and 64 patterns of
// realistic keys, and at the worst case (64 patterns, each with 8 keys of
// 2,049 bytes and a dense distinct count), and checks Trim against the
// budgets docs/audit.md proposes.
func TestEncodedSizes(t *testing.T) {
	for _, c := range []struct {
		name     string
		patterns int
		keyLen   int
		max      int
	}{
		{"1 pattern, 3,000 users", 1, 0, 1200},
		{"10 patterns (the generated stream)", 10, 0, 3600},
		{"64 patterns, 200 keys each", 64, 40, 60_000},
		{"worst: 64 patterns, 8 keys of 2,049 bytes, dense", 64, 2048, 1_200_000},
	} {
		tb := sizedTable(t, c.patterns, c.keyLen)
		enc, _ := tb.MarshalBinary()
		t.Logf("%s: %d bytes", c.name, len(enc))
		if len(enc) > c.max {
			t.Errorf("%s: %d bytes, over %d", c.name, len(enc), c.max)
		}
		trimmed := roundTrip(t, tb)
		for _, budget := range []int{4096, 1024} {
			checkTrim(t, c.name, trimmed, budget)
		}
	}
}

// sizedTable returns a table of n patterns: for n = 10, the generated
// stream; otherwise n patterns of 3,000 keys (200 for n = 64: enough for
// a dense count and eight full counters), ITEMx<sep><uuid> or
// ITEMx<sep><hex> (or, with keyLen, keys of keyLen bytes), eight entity
// types to each separator and class, under the 32 that would make the
// first part vary.
func sizedTable(t *testing.T, n, keyLen int) *Table {
	t.Helper()
	if n == 10 {
		kinds := streamKinds()[:10]
		return tableOf(t, stream(4, kinds))
	}
	tb, _ := New(DefaultConfig())
	r := rand.New(rand.NewPCG(uint64(n), uint64(keyLen)))
	for p := range n {
		prefix := fmt.Sprintf("ITEM%c%c", 'A'+p%8, "#:|/"[p/8%4])
		keys := 3000
		if n == 64 {
			keys = 200
		}
		for range keys {
			var key []byte
			switch {
			case keyLen > 40:
				// A value of keyLen bytes, hex for the first 32 patterns,
				// digits for the others: a random head, a constant tail.
				key = typed(prefix)
				digits := "0123456789abcdef"[:10+6*(1-p/32)]
				for len(key) < 1+len(prefix)+16 {
					key = append(key, digits[r.IntN(len(digits))])
				}
				key = append(key, bytes.Repeat([]byte{'7'}, keyLen+1-len(key))...)
			case p >= 32:
				key = typed(fmt.Sprintf("%s%x", prefix, r.Uint64()|1<<63))
			default:
				key = typed(prefix + uuidFrom(r, 1<<30))
			}
			tb.Add(key, sketch.Hash(key), 1+uint64(r.IntN(3)), t0)
		}
	}
	if tb.Len() != n {
		t.Fatalf("%d patterns, want %d", tb.Len(), n)
	}
	return tb
}

// checkTrim trims tb to budget: the encoding fits, totals and other stay
// exact, the patterns kept keep their figures but for fewer heavy keys,
// and every remaining bound is still true (its floor rose).
func checkTrim(t *testing.T, name string, tb *Table, budget int) {
	t.Helper()
	before := contentOf(tb)
	dropped, err := tb.Trim(budget)
	if err != nil {
		t.Fatalf("%s: Trim(%d): %v", name, budget, err)
	}
	enc, _ := tb.MarshalBinary()
	after := contentOf(tb)
	var dropR, dropW uint64
	kept := map[string]Figures{}
	for _, f := range after.Figures {
		kept[f.Pattern] = f
	}
	for _, f := range before.Figures {
		k, ok := kept[f.Pattern]
		if !ok {
			dropR, dropW = dropR+f.Records, dropW+f.WCU
			continue
		}
		if k.Records != f.Records || k.WCU != f.WCU || k.Distinct != f.Distinct || len(k.TopKeys) > len(f.TopKeys) {
			t.Errorf("%s: trimmed %s changed: %+v", name, f.Pattern, k)
		}
		if len(k.TopKeys) > 0 && (k.TopKeys[0].Upper != f.TopKeys[0].Upper || k.Bound < f.Bound) {
			t.Errorf("%s: trimmed %s lost its heaviest key or lowered its bound", name, f.Pattern)
		}
	}
	switch {
	case len(enc) > budget:
		t.Errorf("%s: trimmed to %d bytes, over %d", name, len(enc), budget)
	case dropped != len(before.Figures)-len(after.Figures):
		t.Errorf("%s: Trim reported %d dropped, %d went", name, dropped, len(before.Figures)-len(after.Figures))
	case after.Records != before.Records || after.WCU != before.WCU ||
		after.OtherRecords != before.OtherRecords+dropR || after.OtherWCU != before.OtherWCU+dropW:
		t.Errorf("%s: totals %d/%d, other %d/%d after trimming; before %d/%d, other %d/%d + dropped %d/%d", name,
			after.Records, after.WCU, after.OtherRecords, after.OtherWCU, before.Records, before.WCU, before.OtherRecords, before.OtherWCU, dropR, dropW)
	}
	t.Logf("%s: trimmed to %d bytes (budget %d), %d of %d patterns kept", name, len(enc), budget, len(after.Figures), len(before.Figures))
}

// TestTrimTooSmall: a budget under an empty table's encoding is an error
// wrapping ErrBudget, and the table is left holding its totals.
func TestTrimTooSmall(t *testing.T) {
	tb := tableOf(t, stream(5, streamKinds()[:3]))
	records, wcu := tb.Records(), tb.WCU()
	if _, err := tb.Trim(10); !errors.Is(err, ErrBudget) {
		t.Errorf("Trim(10): %v, want ErrBudget", err)
	}
	if or, ow := tb.Other(); tb.Len() != 0 || or != records || ow != wcu {
		t.Errorf("%d patterns, other %d/%d, want none and %d/%d", tb.Len(), or, ow, records, wcu)
	}
}

// TestCorrupt: damaged encodings are refused with a sentinel and leave the
// receiver as it was.
func TestCorrupt(t *testing.T) {
	tb := tableOf(t, stream(6, streamKinds()))
	enc, _ := tb.MarshalBinary()
	want := contentOf(tb)
	seal := func(b []byte) []byte { return frame.AppendChecksum(b[:len(b)-4], 0) }
	for name, in := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XP"), enc[2:]...),
		"version":   seal(append([]byte("KP\x09"), enc[3:]...)),
		"truncated": enc[:len(enc)/2],
		"checksum":  append(bytes.Clone(enc[:len(enc)-1]), enc[len(enc)-1]^1),
		"totals":    seal(append(append([]byte("KP\x01"), enc[3:5]...), append([]byte{0x7f}, enc[6:]...)...)),
		"trailing":  seal(append(bytes.Clone(enc[:len(enc)-4]), 0, 0, 0, 0, 0)),
	} {
		err := tb.UnmarshalBinary(in)
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: %v, want ErrCorrupt or ErrVersion", name, err)
		}
		if got := contentOf(tb); !reflect.DeepEqual(want, got) {
			t.Errorf("%s: the refused input changed the table:\n%s", name, cmp.Diff(want, got))
		}
	}
	if err := tb.UnmarshalBinary(seal(bytes.Clone(enc[:len(enc)/2]))); !errors.Is(err, sketch.ErrTruncated) {
		t.Errorf("truncated: %v, want sketch.ErrTruncated", err)
	}
}
