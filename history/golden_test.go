package history

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// distinctOf returns the encoded distinct-key sketch of n keys: sparse for
// a few hundred, dense for tens of thousands.
func distinctOf(t testing.TB, n int) []byte {
	s, err := sketch.NewSummary(sketch.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		s.Add(fmt.Appendf(nil, "USER#%d", i), 1, 0, 0)
	}
	b, err := s.AppendDistinct(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenSummaries are compatSummaries and the encodings they leave out:
// version 3 (internal errors), version 4 (a rollup, and the pattern
// constant_key), a dense HyperLogLog (packed in nibbles,
// with exceptions), a sparse one (deflated), and a summary trimmed to fit
// MaxEncodedSize.
func goldenSummaries(t testing.TB) map[string]*Summary {
	compat := compatSummaries()
	v3 := *compat["index-v2.hks"]
	v3.InternalErrors = 4
	dense := *compat["table-v1.hks"]
	dense.Distinct = distinctOf(t, 40000)
	sparse := *compat["index-v2.hks"]
	sparse.Distinct = distinctOf(t, 300)
	big := *compat["table-v1.hks"]
	big.Keys = nil
	for i := range 12 {
		k := compat["table-v1.hks"].Keys[1]
		k.Key = fmt.Sprintf("%04d%s", i, strings.Repeat("k", 2044))
		k.WCU, k.WCULower, k.WCUUpper = uint64(100-i), uint64(100-i), uint64(100-i)
		big.Keys = append(big.Keys, k)
	}
	// Version 4: a rollup of 1,200 shard windows, one of which came
	// without its sketch, with a constant key's pattern kept.
	v4 := *compat["index-v2.hks"]
	v4.Shard, v4.Sources, v4.DistinctPartial = "", 1200, true
	v4.Keys = slices.Clone(v4.Keys)
	v4.Keys[0].Pattern = report.PatternConstantKey
	v4.Distinct = distinctOf(t, 300)
	all := map[string]*Summary{
		"golden-v4.hks":      &v4,
		"golden-v3.hks":      &v3,
		"golden-dense.hks":   &dense,
		"golden-sparse.hks":  &sparse,
		"golden-trimmed.hks": &big,
	}
	maps.Copy(all, compat)
	return all
}

// TestEncodingGolden: every shape of summary encodes byte for byte as the
// files in testdata, written by earlier builds (the golden-*.hks ones by
// the build before the encoding moved onto package internal/frame); and
// those bytes decode to the summary encoded
// (trimmed: its first keys, the ceiling raised). The sparse sketch's bytes
// are compress/flate's: a Go release that changed its output would change
// them, and only them.
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
		exp := *s
		if name == "golden-trimmed.hks" {
			if !dec.Trimmed || len(dec.Keys) == 0 || len(dec.Keys) == len(s.Keys) {
				t.Fatalf("%s: trimmed %v, %d keys of %d", name, dec.Trimmed, len(dec.Keys), len(s.Keys))
			}
			exp.Keys, exp.Trimmed = s.Keys[:len(dec.Keys)], true
			exp.OtherKeysWCUUpper = s.Keys[len(dec.Keys)].WCUUpper
		}
		if diff := cmp.Diff(&exp, &dec); diff != "" {
			t.Errorf("%s: decoded (-want +got):\n%s", name, diff)
		}
	}
}
