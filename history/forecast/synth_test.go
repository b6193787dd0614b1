package forecast

import (
	"math"
	"math/rand/v2"
	"time"
)

// The synthetic keys of the tests: a noiseless generating function per
// key, observed with multiplicative noise, and the truth found by stepping
// the function forward.

// limit is the partition limit of every synthetic key.
const limit = 1000

// day0 is the first day of every synthetic series.
var day0 = DateOf(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))

// gen is a key: its noiseless daily peak on day i (0 is day0), weekly
// cycle included, and how it is observed.
type gen struct {
	peak       func(i int) float64
	first, end int     // days [first, end) have data
	noise      float64 // standard deviation of the log noise
	// spike multiplies the observed peak of day spikeAt (0: none).
	spike   float64
	spikeAt int
}

// weekend is true on Saturdays and Sundays.
func weekend(i int) bool {
	wd := (day0 + Date(i)).Time().Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

// halfOnWeekends returns trend with weekends at half.
func halfOnWeekends(trend func(float64) float64) func(int) float64 {
	return func(i int) float64 {
		if weekend(i) {
			return trend(float64(i)) / 2
		}
		return trend(float64(i))
	}
}

// daily returns trend without a weekly cycle.
func daily(trend func(float64) float64) func(int) float64 {
	return func(i int) float64 { return trend(float64(i)) }
}

func exponential(level, growth float64) func(float64) float64 {
	return func(i float64) float64 { return level * math.Pow(1+growth, i) }
}

func linear(level, slope float64) func(float64) float64 {
	return func(i float64) float64 { return level + slope*i }
}

// series observes g, with the noise of seed. The noise of a day does not
// depend on the spike, so a series and its spiked twin differ on one day.
func (g gen) series(seed uint64) Series {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := Series{Table: "Orders", Key: "K", Type: "S"}
	for i := g.first; i < g.end; i++ {
		y := g.peak(i) * math.Exp(g.noise*rng.NormFloat64())
		if g.spike != 0 && i == g.spikeAt {
			y *= g.spike
		}
		s.Days = append(s.Days, Day{Date: day0 + Date(i), Peak: y, Lower: y, Upper: y})
	}
	return s
}

// truth is the first day after the last observed whose noiseless peak
// reaches limit, or horizon+1.
func (g gen) truth(horizon int) int {
	for k := 1; k <= horizon; k++ {
		if g.peak(g.end-1+k) >= limit {
			return k
		}
	}
	return horizon + 1
}

// days reads a nullable day count, horizon+1 standing for null (beyond
// the horizon, or no date at all).
func days(p *int, horizon int) int {
	if p == nil {
		return horizon + 1
	}
	return *p
}

// growing draws a growing key observed on days [first, end) with 10 %
// noise, whose trend reaches the limit about k days after its last day,
// k uniform in [7, 60]: a fixed percentage a day (1–5 %) or a fixed
// amount (so that it starts at 10–82 % of its last day's level), with
// weekends at half when weekly.
func growing(r *rand.Rand, linearGrowth, weekly bool, first, end int) gen {
	k := 7 + r.IntN(54)
	last := float64(end - 1)
	var trend func(float64) float64
	if linearGrowth {
		d := (0.2 + 0.8*r.Float64()) * 0.9 * limit / (float64(k) + last)
		at := limit - d*(float64(k)-0.5)
		trend = linear(at-last*d, d)
	} else {
		g := 0.01 + 0.04*r.Float64()
		at := limit / math.Pow(1+g, float64(k)-0.5)
		trend = exponential(at/math.Pow(1+g, last), g)
	}
	peak := daily(trend)
	if weekly {
		peak = halfOnWeekends(trend)
	}
	return gen{peak: peak, first: first, end: end, noise: 0.1}
}

// A kind of key the coverage and the comparison draw 200 of.
type kind struct {
	name string
	draw func(r *rand.Rand) gen
}

// kinds: 42 days of data unless said.
var kinds = []kind{
	{"exponential", func(r *rand.Rand) gen { return growing(r, false, false, 0, 42) }},
	{"linear", func(r *rand.Rand) gen { return growing(r, true, false, 0, 42) }},
	{"weekly, exponential", func(r *rand.Rand) gen { return growing(r, false, true, 0, 42) }},
	{"weekly, linear", func(r *rand.Rand) gen { return growing(r, true, true, 0, 42) }},
	// A key that appears on day 20 of 35: 15 days, either growth.
	{"15 days", func(r *rand.Rand) gen { return growing(r, r.IntN(2) == 1, false, 20, 35) }},
	// One day ×5, ×2, ×1.4, ÷1.4, ÷2 or ÷5, anywhere but the last day,
	// either growth.
	{"one outlier day", func(r *rand.Rand) gen {
		g := growing(r, r.IntN(2) == 1, false, 0, 42)
		g.spike, g.spikeAt = []float64{5, 2, 1.4, 1 / 1.4, 0.5, 0.2}[r.IntN(6)], r.IntN(41)
		return g
	}},
}

// steady: keys that do not grow, 42 days with 10 % noise at a level of
// 100 to 900 WCU/s: flat, flat with weekends at half, and shrinking by
// 0.5 to 3 % a day.
var steady = []kind{
	{"flat", func(r *rand.Rand) gen {
		at := 100 + 800*r.Float64()
		return gen{peak: daily(func(float64) float64 { return at }), end: 42, noise: 0.1}
	}},
	{"weekly, flat", func(r *rand.Rand) gen {
		at := 100 + 800*r.Float64()
		return gen{peak: halfOnWeekends(func(float64) float64 { return at }), end: 42, noise: 0.1}
	}},
	{"shrinking", func(r *rand.Rand) gen {
		at, g := 100+800*r.Float64(), 0.005+0.025*r.Float64()
		return gen{peak: daily(exponential(at, -g)), end: 42, noise: 0.1}
	}},
}
