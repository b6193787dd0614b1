package forecast

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// The comparison of docs/forecast.md: this package's method against
// variants without one of its steps and against a least-squares fit of
// the log peaks, on the same synthetic keys (kinds, 200 of each).

const seeds = 200

// A contender forecasts a series: the estimate and the range's ends, in
// days, horizon+1 for null.
type contender struct {
	name string
	run  func(Series) (est, low, high int)
}

// variant runs this package with the fit made by how.
func variant(how method) func(Series) (int, int, int) {
	return func(s Series) (int, int, int) {
		r, err := forecast(s, Options{PartitionLimit: limit}, how)
		if err != nil {
			panic(err)
		}
		h := DefaultHorizon
		return days(r.DaysToLimit, h), days(r.DaysToLimitLow, h), days(r.DaysToLimitHigh, h)
	}
}

// fixedShape fits one shape of growth whatever the series.
func fixedShape(shape float64) func(t, w []float64) (float64, float64) {
	return func([]float64, []float64) (float64, float64) { return shape, shape }
}

var contenders = []contender{
	{"this package", variant(theMethod)},
	{"fixed % a day only", variant(method{weekly: true, outliers: true, shapes: fixedShape(0)})},
	{"fixed amount a day only", variant(method{weekly: true, outliers: true, shapes: fixedShape(1)})},
	{"estimate at the data's shape (80 %)", variant(method{weekly: true, outliers: true, shapes: func(t, w []float64) (float64, float64) {
		return shapeBound(t, w, false, zRange), shapeBound(t, w, true, zRange)
	}})},
	{"no weekday adjustment", variant(method{weekly: false, outliers: true, shapes: theMethod.shapes})},
	{"no outlier rejection", variant(method{weekly: true, outliers: false, shapes: theMethod.shapes})},
	{"least squares on log peaks", leastSquaresLog},
}

// leastSquaresLog is the textbook alternative: ordinary least squares on
// the log peaks, no weekday adjustment, no outlier handling, growth
// tested by the slope's t score (one-sided 5 %), the range from the
// line's 80 % confidence band (level and slope, normal quantile).
func leastSquaresLog(s Series) (est, low, high int) {
	h := DefaultHorizon
	n := float64(len(s.Days))
	last := s.Days[len(s.Days)-1].Date
	if s.Days[len(s.Days)-1].Peak >= limit {
		return 0, 0, 0
	}
	var st, sy float64
	t, y := make([]float64, len(s.Days)), make([]float64, len(s.Days))
	for i, d := range s.Days {
		t[i], y[i] = float64(d.Date-last), math.Log(max(d.Peak, minPeak))
		st, sy = st+t[i], sy+y[i]
	}
	tm, ym := st/n, sy/n
	var stt, sty float64
	for i := range t {
		stt += (t[i] - tm) * (t[i] - tm)
		sty += (t[i] - tm) * (y[i] - ym)
	}
	b := sty / stt
	var sse float64
	for i := range t {
		e := y[i] - ym - b*(t[i]-tm)
		sse += e * e
	}
	sigma := math.Sqrt(sse / (n - 2))
	seB, seLevel := sigma/math.Sqrt(stt), sigma/math.Sqrt(n)
	if b/seB < zGrowth {
		return h + 1, h + 1, h + 1
	}
	cross := func(side float64) int {
		for k := 1; k <= h; k++ {
			dt := float64(k) - tm
			if ym+b*dt+side*zRange*math.Hypot(seLevel, dt*seB) >= math.Log(limit) {
				return k
			}
		}
		return h + 1
	}
	return cross(0), cross(1), cross(-1)
}

// tally is one contender's figures on one kind.
type tally struct {
	// forecasts counts the keys under the limit on their last day, ranged
	// those of them whose range starts within the horizon, covered and
	// rangeCovered the ones whose range contains the truth; undated
	// counts those without an estimate within the horizon, atLimit the
	// keys at the limit on their last day, dated the steady keys given a
	// date.
	forecasts, ranged, covered, rangeCovered, undated, atLimit, dated int
	errs, rel, widths, shifts, shares                                 []float64
}

// compare runs every contender on seeds keys of every kind, and the
// flat and shrinking ones, and returns the figures by kind then
// contender.
func compare() map[string][]tally {
	out := map[string][]tally{}
	for _, k := range kinds {
		ts := make([]tally, len(contenders))
		for seed := range uint64(seeds) {
			g := k.draw(rand.New(rand.NewPCG(seed, 1)))
			s, clean := g.series(seed), Series{}
			if g.spike != 0 {
				twin := g
				twin.spike = 0
				clean = twin.series(seed)
			}
			for c, ct := range contenders {
				ts[c].add(ct, s, clean, g.truth(DefaultHorizon))
			}
		}
		out[k.name] = ts
	}
	for _, k := range steady {
		ts := make([]tally, len(contenders))
		for seed := range uint64(seeds) {
			s := k.draw(rand.New(rand.NewPCG(seed, 1))).series(seed)
			for c, ct := range contenders {
				if est, _, _ := ct.run(s); est <= DefaultHorizon {
					ts[c].dated++
				}
			}
		}
		out[k.name] = ts
	}
	return out
}

// add runs ct on s, whose truth is truth, and on its clean twin when s
// has an outlier day.
func (t *tally) add(ct contender, s, clean Series, truth int) {
	if s.Days[len(s.Days)-1].Peak >= limit {
		t.atLimit++ // 0 by rule, by noise alone: not a forecast
		return
	}
	est, low, high := ct.run(s)
	t.forecasts++
	covered := low <= truth && truth <= high
	if covered {
		t.covered++
	}
	if low <= DefaultHorizon {
		t.ranged++
		if covered {
			t.rangeCovered++
		}
	}
	if est > DefaultHorizon {
		t.undated++
	}
	e := math.Abs(float64(est - truth))
	t.errs, t.rel, t.widths = append(t.errs, e), append(t.rel, e/float64(truth)), append(t.widths, float64(high-low))
	if clean.Days != nil {
		c, cl, ch := ct.run(clean)
		shift := math.Abs(float64(est - c))
		t.shifts, t.shares = append(t.shifts, shift), append(t.shares, shift/float64(max(ch-cl, 1)))
	}
}

// quantile returns the q-quantile of xs (sorting it), nearest rank.
func quantile(xs []float64, q float64) float64 {
	slices.Sort(xs)
	return xs[min(int(math.Ceil(q*float64(len(xs))))-1, len(xs)-1)]
}

func percent(n, of int) string { return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(max(of, 1))) }

// writeComparison prints the figures as docs/forecast.md shows them.
func writeComparison(w io.Writer, figs map[string][]tally) {
	table := func(title string, header []string, row func(c int) []string) {
		fmt.Fprintf(w, "%s\n\n| method | %s |\n|---|%s\n", title, strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for c, ct := range contenders {
			fmt.Fprintf(w, "| %s | %s |\n", ct.name, strings.Join(row(c), " | "))
		}
		fmt.Fprintln(w)
	}
	perKind := func(ks []kind, cell func(t tally) string) func(c int) []string {
		return func(c int) []string {
			var cells []string
			for _, k := range ks {
				cells = append(cells, cell(figs[k.name][c]))
			}
			return cells
		}
	}
	var growing, still []string
	for _, k := range kinds {
		growing = append(growing, k.name)
	}
	for _, k := range steady {
		still = append(still, k.name)
	}
	table("**Coverage**: the share of keys whose range contains the true day (aim: 80 %)", growing,
		perKind(kinds, func(t tally) string { return percent(t.covered, t.forecasts) }))
	table("**Coverage of the keys given a range** (its low end within the horizon)", growing,
		perKind(kinds, func(t tally) string { return percent(t.rangeCovered, t.ranged) }))
	table(fmt.Sprintf("**Growing keys without an estimate** within the horizon (growth not significant, or too slow), of %d", seeds), growing,
		perKind(kinds, func(t tally) string { return fmt.Sprint(t.undated) }))
	table("**Error of the estimate**, days: median (90th percentile); no estimate counts as day 91", growing,
		perKind(kinds, func(t tally) string { return fmt.Sprintf("%.0f (%.0f)", quantile(t.errs, 0.5), quantile(t.errs, 0.9)) }))
	table("**Error relative to the true days**: median (90th percentile)", growing,
		perKind(kinds, func(t tally) string { return fmt.Sprintf("%.2f (%.2f)", quantile(t.rel, 0.5), quantile(t.rel, 0.9)) }))
	table("**Width of the range**, days: median (90th percentile); a range open past the horizon ends at 91", growing,
		perKind(kinds, func(t tally) string {
			return fmt.Sprintf("%.0f (%.0f)", quantile(t.widths, 0.5), quantile(t.widths, 0.9))
		}))
	table(fmt.Sprintf("**One outlier day**: how far it moves the estimate against the same key without it, over the %d keys of that kind", seeds),
		[]string{"days: median, 90th percentile, 99th, largest", "largest, as a share of the range's width"}, func(c int) []string {
			t := figs[kinds[len(kinds)-1].name][c]
			return []string{fmt.Sprintf("%.0f, %.0f, %.0f, %.0f", quantile(t.shifts, 0.5), quantile(t.shifts, 0.9), quantile(t.shifts, 0.99), quantile(t.shifts, 1)),
				fmt.Sprintf("%.2f", quantile(t.shares, 1))}
		})
	table(fmt.Sprintf("**Keys that do not grow but get a date**, of %d", seeds), still,
		perKind(steady, func(t tally) string { return fmt.Sprint(t.dated) }))
	n := 0
	for _, k := range kinds {
		n += figs[k.name][0].atLimit
	}
	fmt.Fprintf(w, "Of the %d growing keys, %d were at the limit on their last day by noise alone: they get 0 days by rule, and are left out of the figures above.\n", seeds*len(kinds), n)
}
