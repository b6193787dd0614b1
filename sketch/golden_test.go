package sketch

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
)

// goldenSummaries are summaries of every shape the encoding takes: a
// table with items, many items and out-of-order ticks; an empty summary;
// evictions in a small table; a key of MaxKeyLen bytes; a trimmed summary
// (version 2) added to after its trim; and a dense HyperLogLog.
func goldenSummaries(t testing.TB) map[string]*Summary {
	mid, _ := NewSummary(Config{Counters: 16, Width: 32, Depth: 3})
	for i := range 3000 {
		mid.Add(fmt.Appendf(nil, "KEY#%d", i%700), uint64(1+i%13), int64(i/50), uint64(i%3))
	}
	long, _ := NewSummary(Config{Counters: 2, Width: 2, Depth: 1})
	long.Add(bytes.Repeat([]byte("x"), MaxKeyLen), 9, -5, 0)
	trimmed, _ := NewSummary(Config{Counters: 16, Width: 32, Depth: 3})
	for i := range 2000 {
		trimmed.Add(fmt.Appendf(nil, "KEY#%d", i%300), uint64(1+i%11), int64(i/40), 0)
		if i == 1000 {
			trimmed.Trim(5)
		}
	}
	dense, _ := NewSummary(DefaultConfig())
	for i := range 30000 {
		dense.Add(fmt.Appendf(nil, "USER#%d", i), uint64(1+i%7), int64(i/500), uint64(i%5))
	}
	empty, _ := NewSummary(DefaultConfig())
	return map[string]*Summary{
		"summary-small.bin":   small(t),
		"summary-empty.bin":   empty,
		"summary-mid.bin":     mid,
		"summary-longkey.bin": long,
		"summary-trimmed.bin": trimmed,
		"summary-dense.bin":   dense,
	}
}

// TestEncodingGolden: every shape of summary encodes byte for byte as the
// files in testdata, written by the build before the encoding moved onto
// package internal/frame, so that state and history written by one build
// are read by the other; and those bytes decode to the same content.
func TestEncodingGolden(t *testing.T) {
	for name, s := range goldenSummaries(t) {
		got, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		want := golden.Check(t, filepath.Join("testdata", name), got)
		var dec Summary
		if err := dec.UnmarshalBinary(want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sameContent(s, &dec); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
