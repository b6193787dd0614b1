package clientwatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApportion(t *testing.T) {
	for _, tc := range []struct {
		weights []uint64
		total   uint64
		want    []uint64
	}{
		{[]uint64{1, 1, 1}, 3, []uint64{1, 1, 1}},
		{[]uint64{1, 1, 1}, 4, []uint64{2, 1, 1}}, // ties: the earlier part
		{[]uint64{1000, 5000, 9000, 300}, 4, []uint64{0, 1, 3, 0}},
		{[]uint64{2, 1}, 0, []uint64{0, 0}},
		{[]uint64{1 << 62, 1 << 62}, 1<<63 + 1, []uint64{1<<62 + 1, 1 << 62}},
	} {
		ps := make([]part, len(tc.weights))
		for i, w := range tc.weights {
			ps[i].weight = w
		}
		apportion(ps, tc.total)
		got := make([]uint64, len(ps))
		for i := range ps {
			got[i] = ps[i].share
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("apportion(%v, %d) (-want +got):\n%s", tc.weights, tc.total, diff)
		}
	}
}

// FuzzApportion: the shares always add up to the total, and each is
// within one unit of its exact proportional share.
func FuzzApportion(f *testing.F) {
	f.Add(uint64(7), uint64(3), uint64(5), uint64(1), uint64(100))
	f.Fuzz(func(t *testing.T, total, a, b, c, d uint64) {
		ws := []uint64{a%1e9 + 1, b%1e9 + 1, c%1e9 + 1, d%1e9 + 1}
		total %= 1e9
		ps := make([]part, len(ws))
		var sum uint64
		for i, w := range ws {
			ps[i].weight = w
			sum += w
		}
		apportion(ps, total)
		var got uint64
		for i := range ps {
			got += ps[i].share
			exact := float64(total) * float64(ws[i]) / float64(sum)
			if d := float64(ps[i].share) - exact; d <= -1 || d >= 1 {
				t.Fatalf("weights %v total %d: share %d of weight %d, exact %g", ws, total, ps[i].share, ws[i], exact)
			}
		}
		if got != total {
			t.Fatalf("weights %v: shares add up to %d, want %d", ws, got, total)
		}
	})
}

// TestSplitWindow: a batch's units go first to each item's least cost, the
// slack to the items of unknown size, then to those known from below, then
// to all; each share's bounds say how far it may be off.
func TestSplitWindow(t *testing.T) {
	type in struct {
		min  uint64
		size sizeKnown
	}
	type out struct{ Share, Below, Above uint64 }
	for _, tc := range []struct {
		name  string
		parts []in
		units uint64
		want  []out
	}{
		{"delete, put, put: the issue's batch", []in{{1, sizeUnknown}, {1, sizeAtLeast}, {5, sizeAtLeast}}, 104,
			[]out{{98, 97, 0}, {1, 0, 97}, {5, 0, 97}}},
		{"two deletes share the slack alike", []in{{1, sizeUnknown}, {1, sizeUnknown}, {3, sizeAtLeast}}, 10,
			[]out{{4, 3, 2}, {3, 2, 3}, {3, 0, 5}}},
		{"puts only: by their sizes", []in{{1, sizeAtLeast}, {3, sizeAtLeast}}, 8, []out{{2, 1, 3}, {6, 3, 1}}},
		{"exact reads: no slack, no widening", []in{{2, sizeExact}, {4, sizeExact}}, 6, []out{{2, 0, 0}, {4, 0, 0}}},
		{"exact parts and slack all the same: the model does not fit", []in{{2, sizeExact}, {2, sizeExact}}, 8, []out{{4, 2, 2}, {4, 2, 2}}},
		{"exact parts keep theirs when another takes the slack", []in{{2, sizeExact}, {1, sizeUnknown}}, 9, []out{{2, 0, 0}, {7, 6, 0}}},
		{"least costs over the total: anywhere in [0, total]", []in{{4, sizeAtLeast}, {4, sizeUnknown}}, 4, []out{{2, 2, 2}, {2, 2, 2}}},
		{"an unprocessed item costs nothing", []in{{0, sizeExact}, {2, sizeAtLeast}}, 2, []out{{0, 0, 0}, {2, 0, 0}}},
	} {
		ps := make([]part, len(tc.parts))
		for i, p := range tc.parts {
			ps[i].min, ps[i].size = p.min, p.size
		}
		(&recorder{}).splitWindow(ps, tc.units)
		var got []out
		var sum uint64
		for _, p := range ps {
			got = append(got, out{p.share, p.below, p.above})
			sum += p.share
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || sum != tc.units {
			t.Errorf("%s: shares (-want +got):\n%s\nsum %d, want %d", tc.name, diff, sum, tc.units)
		}
	}
}
