package ddb_test

import (
	"math"
	"testing"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

func TestHeadroom(t *testing.T) {
	for _, c := range []struct {
		peak, limit, want float64
	}{
		{610, 1000, 1.639}, // limit ÷ peak, four significant digits
		{1000, 1000, 1},    // at the limit
		{1250, 1000, 0.8},  // past it
		{3, 1000, 333.3},
		{2.5, 3000, 1200},   // reads, in halves of a unit
		{0, 1000, 1e6},      // no peak: the floor, never infinity
		{1e12, 1000, 1e-9},  // far past it: never rounded to 0
		{7, 0.01, 0.001429}, // a scaled-down limit
		{0.0004, 1000, 1e6}, // under the floor
		{999.5, 1000, 1.001},
		{1e-3, 1e12, 1e15},
		{333, 1000, 3.003},
		{1, 1000, 1000},
		{1.5, 1000, 666.7},
		{6000, 3000, 0.5},
		{100, 1000, 10},
		{2000, 1000, 0.5},
		{3001, 3000, 0.9997},
		{1e-9, 1000, 1e6},
		{42, 1000, 23.81},
	} {
		if got := ddb.Headroom(c.peak, c.limit); got != c.want || math.IsInf(got, 0) {
			t.Errorf("Headroom(%v, %v) = %v, want %v", c.peak, c.limit, got, c.want)
		}
	}
}
