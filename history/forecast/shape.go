package forecast

import "math"

// boxCox is the power transform of Box and Cox (1964): (u^λ − 1)/λ, the
// logarithm at λ = 0.
func boxCox(u, shape float64) float64 {
	if shape == 0 {
		return math.Log(u)
	}
	return (math.Pow(u, shape) - 1) / shape
}

// unBoxCox inverts boxCox, 0 where the line has fallen below the scale.
func unBoxCox(v, shape float64) float64 {
	if shape == 0 {
		return math.Exp(v)
	}
	b := 1 + shape*v
	if b <= 0 {
		return 0
	}
	return math.Pow(b, 1/shape)
}

// shapeBound returns an end of the interval of the Box–Cox powers,
// within [0, 1] (0: exponential growth, 1: linear), at which the series
// could grow along a straight line: the upper end when upper, else the
// lower. At a power too low the series bends down, the Theil–Sen slope of
// the later half of the days falling below the earlier half's; too high,
// it bends up. The interval's ends are where the halves' Sen intervals
// just touch.
func shapeBound(t, w []float64, upper bool, z float64) float64 {
	h := len(t) / 2
	if h < 2 { // too few days to see a bend: the whole interval
		if upper {
			return 1
		}
		return 0
	}
	v := make([]float64, len(w))
	return root(func(shape float64) float64 {
		for i := range w {
			v[i] = boxCox(w[i], shape)
		}
		early, late := senFit(t[:h], v[:h], z), senFit(t[h:], v[h:], z)
		if upper {
			return late.low - early.high
		}
		return late.high - early.low
	})
}

// root returns where the rising function f crosses 0 in [0, 1], by
// bisection: 0 when f(0) ≥ 0, 1 when f(1) ≤ 0.
func root(f func(float64) float64) float64 {
	lo, hi := 0.0, 1.0
	if f(lo) >= 0 {
		return lo
	}
	if f(hi) <= 0 {
		return hi
	}
	for range 16 {
		m := (lo + hi) / 2
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// fitModel fits a line to the peaks w (adjusted for the weekly cycle,
// divided by ref) at days t on the Box–Cox scale of power shape.
func fitModel(t, w []float64, shape, ref float64) *model {
	v := make([]float64, len(w))
	for i := range w {
		v[i] = boxCox(w[i], shape)
	}
	s := senFit(t, v, zRange)
	m := &model{shape: shape, ref: ref, centre: medianOf(t), slope: s.slope, slopeUp: s.high - s.slope, slopeDown: s.slope - s.low}
	m.level, m.levelDown, m.levelUp = levelInterval(t, v, m.centre, m.slope)
	return m
}

// levelInterval returns the level at day c of the line of slope b that
// halves the points, the median of y − b·(t − c), and the distances down
// and up from it to the ends of the median's interval.
func levelInterval(t, y []float64, c, b float64) (level, down, up float64) {
	r := make([]float64, len(t))
	for i := range t {
		r[i] = y[i] - b*(t[i]-c)
	}
	low, level, high := medianInterval(r)
	return level, level - low, high - level
}
