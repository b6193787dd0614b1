package report

import (
	"math"
	"testing"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {18359, "18,359"}, {1234567, "1,234,567"}, {math.MaxUint64, "18,446,744,073,709,551,615"}} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0"}, {999.4, "999"}, {999.6, "1,000"}, {1000, "1,000"}, {2500.5, "2,501"}, {-3, "-3"}, {math.Inf(1), "+Inf"}} {
		if got := Rate(c.x); got != c.want {
			t.Errorf("Rate(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
