package forecast

import (
	"math"
	"slices"
)

// The normal quantiles the method uses.
const (
	// zRange is the two-sided 80 % quantile: Sen's interval at the
	// coverage the range aims at.
	zRange = 1.2816
	// zShape is the two-sided 95 % quantile: the estimate leaves
	// exponential growth for a slower shape only when the data rule it out
	// at this level.
	zShape = 1.96
	// zGrowth is the one-sided 10 % quantile, the level of the range's
	// lower end: the Mann–Kendall score a key needs to be growing (or,
	// negated, shrinking).
	zGrowth = 1.2816
)

// median returns the median of xs, sorting xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return medianSorted(xs)
}

func medianSorted(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// medianInterval returns the median of xs (which it sorts) and its
// distribution-free interval at 80 %: the order statistics n/2 ∓ z·√n/2.
func medianInterval(xs []float64) (low, med, high float64) {
	slices.Sort(xs)
	n := float64(len(xs))
	lo := int(math.Floor(n/2 - zRange*math.Sqrt(n)/2))
	hi := int(math.Ceil(n/2+zRange*math.Sqrt(n)/2)) - 1
	lo, hi = min(max(lo, 0), len(xs)-1), min(max(hi, 0), len(xs)-1)
	med = medianSorted(xs)
	return min(xs[lo], med), med, max(xs[hi], med)
}

// sen is a Theil–Sen slope with Sen's rank-based interval around it.
type sen struct{ slope, low, high float64 }

// senFit returns the median of the slopes between every pair of points
// (t strictly increasing) and Sen's (1968) interval at two-sided normal
// quantile z: the order statistics (N − C)/2 and (N + C)/2 + 1 of the N
// slopes, C = z·√Var(S), S being Kendall's statistic.
func senFit(t, y []float64, z float64) sen {
	n := len(t)
	s := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			s = append(s, (y[j]-y[i])/(t[j]-t[i]))
		}
	}
	N := len(s)
	if N == 0 {
		return sen{} // one point has no slope; callers pass three or more
	}
	c := z * math.Sqrt(kendallVariance(n))
	lo := int(math.Floor((float64(N)-c)/2)) - 1
	hi := int(math.Ceil((float64(N) + c) / 2))
	lo = min(max(lo, 0), N-1)
	hi = min(max(hi, 0), N-1)
	// Three order statistics, selected rather than sorted: the
	// median's rank splits the slopes, the ends lie on either side.
	m := N / 2
	med := nth(s, m)
	if N%2 == 0 {
		med = (slices.Max(s[:m]) + med) / 2
	}
	low, high := med, med
	if lo < m {
		low = nth(s[:m], lo)
	}
	if hi > m {
		high = nth(s[m+1:], hi-m-1)
	}
	return sen{slope: med, low: min(low, med), high: max(high, med)}
}

// nth returns the k-th smallest of xs (k from 0), reordering xs so that
// the elements before k are no larger and those after no smaller
// (Hoare's selection, with the median of three as pivot).
func nth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Order xs[lo], xs[mid], xs[hi]; their median pivots.
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		p := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < p {
				i++
			}
			for xs[j] > p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// intercept returns the level at t = 0 of the line of slope b that halves
// the points: the median of y − b·t. Lines of different slopes through
// the same data thus pivot about its centre, which is how each end of the
// slope's interval carries the level's uncertainty at the last day.
func intercept(t, y []float64, b float64) float64 {
	r := make([]float64, len(t))
	for i := range t {
		r[i] = y[i] - b*t[i]
	}
	return median(r)
}

// kendallVariance is the variance of Kendall's S over n untied points
// under no trend: n(n−1)(2n+5)/18. Ties would lower it; leaving them out
// errs toward wider intervals and fewer trends.
func kendallVariance(n int) float64 {
	f := float64(n)
	return f * (f - 1) * (2*f + 5) / 18
}

// mannKendall returns the Mann–Kendall trend score of y in the order of
// its points, as a standard normal variate with continuity correction:
// positive for a rising series, negative for a falling one.
func mannKendall(y []float64) float64 {
	s := 0
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			switch {
			case y[j] > y[i]:
				s++
			case y[j] < y[i]:
				s--
			}
		}
	}
	sd := math.Sqrt(kendallVariance(len(y)))
	switch {
	case s > 0:
		return float64(s-1) / sd
	case s < 0:
		return float64(s+1) / sd
	}
	return 0
}
