package forecast

import "math"

// Outlier days, by Hampel's (1974) identifier: a day whose residual lies
// more than hampelK robust standard deviations (1.4826 × the median
// absolute deviation) from the residuals' median, and more than minCut
// (a factor of 1.5 either way), is left out of the fit, as long as that
// leaves out at most a quarter of the days. The floor keeps ordinary days
// in when the spread is small or ill-measured (noiseless series, a few
// days): below it, Theil–Sen's bounded influence is enough.
const hampelK = 3.5

var minCut = math.Log(1.5)

// outliers returns the indexes of the outlier days, in order, or none.
// A day's residual is its log peak's distance from a Theil–Sen trend of
// the series adjusted for the weekly cycle c and, when the cycle is
// found, from its weekday's median distance over the other days of that
// weekday: a weekday's factor fitted with the day itself would absorb
// part of the day's deviation and shrink the scale it is judged by.
func outliers(t, logy []float64, dow []int, c *cycle, found bool) []int {
	z := adjust(logy, dow, c)
	b := senFit(t, z, zRange).slope
	a := intercept(t, z, b)
	u := make([]float64, len(t))
	for i := range t {
		u[i] = logy[i] - (a + b*t[i])
	}
	r := u
	if found {
		r = make([]float64, len(t))
		others := make([]float64, 0, len(t))
		for i := range t {
			others = others[:0]
			for j := range t {
				if j != i && dow[j] == dow[i] {
					others = append(others, u[j])
				}
			}
			r[i] = u[i] - median(others)
		}
	}
	centre := medianOf(r)
	dev := make([]float64, len(r))
	for i := range r {
		dev[i] = math.Abs(r[i] - centre)
	}
	cut := max(hampelK*1.4826*medianOf(dev), minCut)
	var out []int
	for i, d := range dev {
		if d > cut {
			out = append(out, i)
		}
	}
	if len(out) > len(t)/4 {
		return nil
	}
	return out
}

// without returns xs without the elements at the indexes out (in order).
func without[T any](xs []T, out []int) []T {
	kept := make([]T, 0, len(xs)-len(out))
	for i, x := range xs {
		if len(out) > 0 && out[0] == i {
			out = out[1:]
			continue
		}
		kept = append(kept, x)
	}
	return kept
}
