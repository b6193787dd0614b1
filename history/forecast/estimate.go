package forecast

import (
	"math"
	"slices"
)

// fit is what a series' days say: the weekly cycle, the trend test and
// the trend at each end of the shape's interval.
type fit struct {
	last int // the last day's weekday
	// factors are each weekday's factor for each side of the band
	// (factors[side+1]): the weekly cycle's (1 without one), times, for
	// the fast side, the median ratio of the days' upper bounds to their
	// peaks and, for the slow side, of their lower bounds.
	factors [3][7]float64
	weekly  bool    // a cycle was found
	score   float64 // Mann–Kendall score of the adjusted series
	// outliers counts the days left out of the fit as outliers.
	outliers int
	// models are the trend at the estimate's shape and at the slowest
	// shape the data allow.
	models [2]*model
}

// method is how a fit is made: the package's (theMethod), or one of the
// variants the tests compare it with.
type method struct {
	weekly, outliers bool
	// shapes returns the Box–Cox powers of the estimate's trend and of
	// the slowest trend the range allows for.
	shapes func(t, w []float64) (estimate, slowest float64)
}

// theMethod's estimate assumes exponential growth, the fastest
// extrapolation of the shapes a growing series can take, unless the data
// rule it out at 95 % (zShape): then the least-curved shape they allow.
// A shape that follows the data more closely (the 80 % interval's end)
// is more accurate on linear keys, but one outlier day can move it far
// (docs/forecast.md). The range's slow end extends to the slowest shape
// the data allow, linear growth when they cannot rule it out.
var theMethod = method{weekly: true, outliers: true, shapes: func(t, w []float64) (float64, float64) {
	est := shapeBound(t, w, false, zShape)
	return est, max(est, shapeBound(t, w, true, zRange))
}}

// newFit fits the days (in date order, at least 3, peaks checked).
func newFit(days []Day, how method) *fit {
	n := len(days)
	lastDate := days[n-1].Date
	t, logy, dow := make([]float64, n), make([]float64, n), make([]int, n)
	for i, d := range days {
		t[i] = float64(d.Date - lastDate)
		logy[i] = math.Log(max(d.Peak, minPeak))
		dow[i] = d.Date.weekday()
	}
	f := &fit{last: lastDate.weekday()}
	var c cycle
	if how.weekly {
		c, f.weekly = weekly(t, logy, dow)
	}
	if out := outliers(t, logy, dow, &c, f.weekly); how.outliers && len(out) > 0 {
		// The cycle is found again without them: the series is then the
		// one the key would have had without those days' windows.
		f.outliers = len(out)
		t, logy, dow = without(t, out), without(logy, out), without(dow, out)
		if how.weekly {
			c, f.weekly = weekly(t, logy, dow)
		}
	}
	z := adjust(logy, dow, &c)
	f.score = mannKendall(z)
	lower, upper := boundRatios(days)
	for d := range 7 {
		f.factors[slow+1][d] = math.Exp(c.low[d]) * lower
		f.factors[mid+1][d] = math.Exp(c.mid[d])
		f.factors[fast+1][d] = math.Exp(c.high[d]) * upper
	}
	// The trend is fitted to the adjusted peaks over their median, so
	// that the Box–Cox scale stays near 0 whatever the key's rate.
	w := make([]float64, len(z))
	for i := range z {
		w[i] = math.Exp(z[i])
	}
	ref := medianOf(w)
	for i := range w {
		w[i] /= ref
	}
	est, slowest := how.shapes(t, w)
	f.models = [2]*model{fitModel(t, w, est, ref), fitModel(t, w, slowest, ref)}
	return f
}

// adjust returns the log peaks logy of weekdays dow without the weekly
// cycle c.
func adjust(logy []float64, dow []int, c *cycle) []float64 {
	z := make([]float64, len(logy))
	for i := range z {
		z[i] = logy[i] - c.mid[dow[i]]
	}
	return z
}

// medianOf returns the median of xs, leaving xs as it is.
func medianOf(xs []float64) float64 { return median(slices.Clone(xs)) }

// crossings returns the day the estimate reaches limit and the range's
// ends, each horizon+1 when not within the horizon: the earlier of the
// two models' fast sides gives the low end, the later of their slow
// sides the high end.
func (f *fit) crossings(limit float64, horizon int) (est, low, high int) {
	best := f.models[0]
	est = f.curve(best, mid).crossing(limit, horizon, f.last)
	low, high = est, est
	for _, m := range f.models {
		low = min(low, f.curve(m, fast).crossing(limit, horizon, f.last))
		high = max(high, f.curve(m, slow).crossing(limit, horizon, f.last))
	}
	return est, low, high
}

// curve returns a side of a model's band with its weekday factors.
func (f *fit) curve(m *model, side int) curve { return curve{m, side, &f.factors[side+1]} }

// boundRatios returns the median ratios of the days' lower and upper
// bounds to their peaks (1 for days whose peak is 0).
func boundRatios(days []Day) (lower, upper float64) {
	lo, up := make([]float64, 0, len(days)), make([]float64, 0, len(days))
	for _, d := range days {
		if d.Peak > 0 {
			lo, up = append(lo, d.Lower/d.Peak), append(up, d.Upper/d.Peak)
		}
	}
	if len(lo) == 0 {
		return 1, 1
	}
	return median(lo), median(up)
}
