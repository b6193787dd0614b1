package forecast

import (
	"cmp"
	"math"
	"slices"
)

// weeklyAlpha is the Kruskal–Wallis test's level: a weekly cycle is taken
// out of the series only when it is this unlikely to be noise, so that
// noise does not invent busy weekdays that would pull forecasts earlier.
const weeklyAlpha = 0.01

// weekly looks for a weekly cycle in a series of log peaks at days t
// (days from the last one) of weekdays dow. It fits a first Theil–Sen
// trend, tests its residuals for a difference between weekdays
// (Kruskal–Wallis) and, when there is one, returns each weekday's factor
// on the log scale: the median residual of that weekday, the seven
// centred on 0, refined by a second fit on the adjusted series. It needs
// two days of each weekday.
func weekly(t, logy []float64, dow []int) (c cycle, ok bool) {
	var count [7]int
	for _, d := range dow {
		count[d]++
	}
	if slices.Min(count[:]) < 2 {
		return c, false
	}
	z := slices.Clone(logy)
	for pass := range 2 {
		b := senFit(t, z, zRange).slope
		a := intercept(t, z, b)
		r := make([]float64, len(t))
		for i := range t {
			r[i] = logy[i] - (a + b*t[i])
		}
		if pass == 0 && kruskalWallisP(r, dow) >= weeklyAlpha {
			return cycle{}, false
		}
		c = weekdayMedians(r, dow)
		for i := range z {
			z[i] = logy[i] - c.mid[dow[i]]
		}
	}
	return c, true
}

// cycle is a weekly cycle on the log scale: each weekday's factor, and
// the ends of its interval at 80 %.
type cycle struct{ low, mid, high [7]float64 }

// weekdayMedians returns the median of r per weekday, centred so that
// the seven add up to 0, with the median's distribution-free interval.
func weekdayMedians(r []float64, dow []int) cycle {
	var by [7][]float64
	for i, d := range dow {
		by[d] = append(by[d], r[i])
	}
	var c cycle
	mean := 0.0
	for d := range by {
		c.low[d], c.mid[d], c.high[d] = medianInterval(by[d])
		mean += c.mid[d] / 7
	}
	for d := range c.mid {
		c.low[d] -= mean
		c.mid[d] -= mean
		c.high[d] -= mean
	}
	return c
}

// kruskalWallisP returns the p-value of the Kruskal–Wallis test that the
// seven weekday groups of r come from one distribution: H, corrected for
// ties, against the χ² distribution with 6 degrees of freedom, whose
// upper tail is e^(−x/2)·(1 + x/2 + (x/2)²/2).
func kruskalWallisP(r []float64, group []int) float64 {
	n := len(r)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(r[a], r[b]) })
	var rankSum [7]float64
	var size [7]float64
	ties := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && r[idx[j]] == r[idx[i]] {
			j++
		}
		rank := float64(i+j+1) / 2 // ranks i+1..j, averaged
		for _, k := range idx[i:j] {
			rankSum[group[k]] += rank
		}
		m := float64(j - i)
		ties += m*m*m - m
		i = j
	}
	for _, g := range group {
		size[g]++
	}
	fn := float64(n)
	h := 0.0
	for g := range rankSum {
		if size[g] > 0 {
			h += rankSum[g] * rankSum[g] / size[g]
		}
	}
	h = 12/(fn*(fn+1))*h - 3*(fn+1)
	if c := 1 - ties/(fn*fn*fn-fn); c > 0 {
		h /= c
	} else {
		return 1 // every residual equal: no difference at all
	}
	x := max(h, 0) / 2
	return math.Exp(-x) * (1 + x + x*x/2)
}
