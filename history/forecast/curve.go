package forecast

import "math"

// model is a trend: a line on the Box–Cox scale of power shape (0: the
// logarithm, exponential growth; 1: the peaks themselves, linear growth),
// through the data's centre, with the half-widths of the centre's level
// and of the slope at 80 %.
type model struct {
	shape float64
	ref   float64 // the level the peaks are divided by before transforming
	// centre is the median day (days from the last one), level the
	// line's value there, slope its change a day.
	centre, level, slope float64
	// levelUp, levelDown, slopeUp and slopeDown are the distances from
	// the estimates to the ends of their intervals (rank-based, so not
	// symmetric).
	levelUp, levelDown, slopeUp, slopeDown float64
}

// Sides of a model's band.
const (
	slow = -1 // the lower end: the latest crossing
	mid  = 0  // the estimate
	fast = 1  // the upper end: the earliest crossing
)

// at is the model's trend at day k after the last day observed, before
// the weekday's factor: the estimate (side mid), or an end of its band,
// whose half-width at k adds the level's and the slope's in quadrature,
// as a line's prediction band does.
func (m *model) at(k float64, side int) float64 {
	dt := k - m.centre
	v := m.level + m.slope*dt
	switch side {
	case fast:
		v += math.Hypot(m.levelUp, dt*m.slopeUp)
	case slow:
		v -= math.Hypot(m.levelDown, dt*m.slopeDown)
	}
	return m.ref * unBoxCox(v, m.shape)
}

// growth is the trend's growth per day as a fraction: its level the day
// after the last day observed over its level on that day, less 1 (for an
// exponential trend, e^slope − 1 every day).
func (m *model) growth() float64 {
	now, next := m.at(0, mid), m.at(1, mid)
	if now <= 0 {
		return 0
	}
	return min(next/now-1, math.MaxFloat64)
}

// curve is what a crossing is searched on: a side of a model's band,
// times the weekday's factor for that side (which carries the peaks'
// bounds too).
type curve struct {
	m       *model
	side    int
	factors *[7]float64 // by weekday
}

// peak is the curve's daily peak at day k after the last day observed,
// whose weekday is last.
func (c curve) peak(k, last int) float64 {
	f := c.factors[(last+k)%7]
	if f == 0 {
		return 0 // and not Inf × 0
	}
	return c.m.at(float64(k), c.side) * f
}

// crossing returns the first day k in [1, horizon] whose peak reaches
// limit, or horizon+1 when none does.
func (c curve) crossing(limit float64, horizon, last int) int {
	for k := 1; k <= horizon; k++ {
		if c.peak(k, last) >= limit {
			return k
		}
	}
	return horizon + 1
}

// highest returns the curve's highest daily peak over days 1 to days,
// kept finite.
func (c curve) highest(days, last int) float64 {
	h := 0.0
	for k := 1; k <= days; k++ {
		h = max(h, c.peak(k, last))
	}
	return min(h, math.MaxFloat64)
}
