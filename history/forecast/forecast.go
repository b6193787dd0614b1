package forecast

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Defaults and limits of Options.
const (
	DefaultHorizon = 90 // days
	DefaultMinDays = 7
	// DefaultSpan is how many days back from the last one the fit reads:
	// eight weeks, whole weeks so that every weekday counts alike.
	DefaultSpan = 56
	MaxHorizon  = 3650
	// MaxPeak bounds a day's peak, WCU per second: far beyond any
	// partition, and low enough that no figure overflows.
	MaxPeak = 1e12
	// Coverage is the share of forecasts whose range [DaysToLimitLow,
	// DaysToLimitHigh] the method aims to have contain the true day.
	Coverage = 0.80
)

// minPeak is the floor of a peak on the log scale: a day whose peak is
// under it (0, when a day's window saw the key without a peak) counts as
// that much, so that logarithms and headroom stay finite.
const minPeak = 1e-3

// ErrOptions is returned for options out of range, ErrSeries for a series
// that cannot be a key's daily peaks.
var (
	ErrOptions = errors.New("forecast: invalid options")
	ErrSeries  = errors.New("forecast: invalid series")
)

// Options are the caller's settings; the zero value of each field takes
// its default.
type Options struct {
	// PartitionLimit is the limit a key's peak is compared with, in WCU
	// per second: ddb.PartitionWriteUnits (1,000) by default.
	PartitionLimit float64
	// Horizon is how many days ahead a crossing is looked for
	// (DefaultHorizon, at most MaxHorizon).
	Horizon int
	// MinDays is the fewest days of data a forecast needs
	// (DefaultMinDays, at least 3).
	MinDays int
	// Span is how many days back from the last day observed the fit reads
	// (DefaultSpan, at least MinDays): older days are left out.
	Span int
}

// resolve returns the options with their defaults filled in, or
// ErrOptions.
func (o Options) resolve() (Options, error) {
	o.PartitionLimit = cmp.Or(o.PartitionLimit, ddb.PartitionWriteUnits)
	o.Horizon = cmp.Or(o.Horizon, DefaultHorizon)
	o.MinDays = cmp.Or(o.MinDays, DefaultMinDays)
	o.Span = cmp.Or(o.Span, DefaultSpan)
	switch {
	case !(o.PartitionLimit > 0 && o.PartitionLimit <= MaxPeak):
		return o, fmt.Errorf("%w: partition limit %v WCU/s: want more than 0, at most %g", ErrOptions, o.PartitionLimit, MaxPeak)
	case o.Horizon < 1 || o.Horizon > MaxHorizon:
		return o, fmt.Errorf("%w: horizon %d days: want 1 to %d", ErrOptions, o.Horizon, MaxHorizon)
	case o.MinDays < 3:
		return o, fmt.Errorf("%w: minimum of %d days: want at least 3", ErrOptions, o.MinDays)
	case o.Span < o.MinDays:
		return o, fmt.Errorf("%w: span of %d days: want at least the minimum, %d", ErrOptions, o.Span, o.MinDays)
	}
	return o, nil
}

// Day is a key's daily peak: the highest peak_wcu_per_second of its
// windows that day, with the bounds history gives it (Lower ≤ Peak ≤
// Upper; a caller without bounds passes the peak as both).
type Day struct {
	Date               Date
	Peak, Lower, Upper float64 // WCU per second
	// Saturated marks a day on which the key's writes were pinned at the
	// limit (the detector's saturation): its demand was hidden, so a
	// saturated last day counts as at the limit.
	Saturated bool
}

// Series is one key's daily peaks, in any order, one Day per date at
// most; a date without data is left out, never given as zero.
type Series struct {
	Table string
	Index string // "" for the table itself
	Key   string
	Type  string // "S", "N" or "B", as in report.KeyFigures
	Days  []Day
}

// days returns the series' days in date order, those within span days of
// the last one, after checking them all.
func (s Series) days(span int) ([]Day, error) {
	if len(s.Days) == 0 {
		return nil, fmt.Errorf("%w: key %q has no days", ErrSeries, s.Key)
	}
	days := slices.SortedFunc(slices.Values(s.Days), func(a, b Day) int { return cmp.Compare(a.Date, b.Date) })
	for i, d := range days {
		if !(0 <= d.Lower && d.Lower <= d.Peak && d.Peak <= d.Upper && d.Upper <= MaxPeak) {
			return nil, fmt.Errorf("%w: key %q, %s: want 0 ≤ lower %v ≤ peak %v ≤ upper %v ≤ %g WCU/s", ErrSeries, s.Key, d.Date, d.Lower, d.Peak, d.Upper, MaxPeak)
		}
		if i > 0 && days[i-1].Date == d.Date {
			return nil, fmt.Errorf("%w: key %q, %s: two days of one date (a daily peak is the highest of the day's windows)", ErrSeries, s.Key, d.Date)
		}
	}
	first := days[len(days)-1].Date - Date(span) + 1
	i, _ := slices.BinarySearchFunc(days, first, func(d Day, t Date) int { return cmp.Compare(d.Date, t) })
	return days[i:], nil
}

// Trend says which way a key's daily peaks go.
type Trend string

const (
	TrendGrowing   Trend = "growing"   // significant growth: a forecast
	TrendFlat      Trend = "flat"      // no significant trend: no date
	TrendShrinking Trend = "shrinking" // significant decline: no date
	TrendUnknown   Trend = "unknown"   // too few days to tell
)

// Result is one key's forecast. Its JSON is the object `hotkeys forecast
// --format json` prints per key: a figure that does not apply is null.
// Days count from the end of the last day observed: 0 is that day, 1 the
// day after it.
type Result struct {
	Table        string `json:"table"`
	Index        string `json:"index,omitempty"`
	Key          string `json:"key"`
	Type         string `json:"type,omitempty"`
	DaysObserved int    `json:"days_observed"` // days with data within the span
	LastDay      Date   `json:"last_day"`
	// PeakWCUPerSecond is the last day's peak, Headroom the partition
	// limit over it (1 or less: at or past the limit).
	PeakWCUPerSecond float64 `json:"peak_wcu_per_second"`
	Headroom         float64 `json:"headroom"`
	// GrowthPerDay is the estimate's growth as a fraction a day (0.03 is
	// 3 % a day): e^slope − 1 for an exponential trend; for a linear one,
	// its daily amount over its level on the last day. Null with too few
	// days.
	GrowthPerDay *float64 `json:"growth_per_day"`
	// DaysToLimit is the first day whose own peak reaches the limit, at
	// the estimated trend; the range aims at Coverage. Null: not within
	// the horizon (Low, High: that end is not), or no forecast (Reason).
	DaysToLimit     *int  `json:"days_to_limit"`
	DaysToLimitLow  *int  `json:"days_to_limit_low"`
	DaysToLimitHigh *int  `json:"days_to_limit_high"`
	LimitDate       *Date `json:"limit_date"` // LastDay + DaysToLimit
	Trend           Trend `json:"trend"`
	// Shape is the estimate's shape of growth, the Box–Cox power of its
	// trend: 0 is a fixed percentage a day, 1 a fixed amount a day;
	// SlowestShape is the range's slow end's, the slowest shape the data
	// allow. Null with too few days. WeeklyCycle says a weekly cycle was
	// found and taken out, OutlierDays how many days were left out of the
	// fit as outliers.
	Shape        *float64 `json:"shape"`
	SlowestShape *float64 `json:"slowest_shape"`
	WeeklyCycle  bool     `json:"weekly_cycle,omitempty"`
	OutlierDays  int      `json:"outlier_days,omitempty"`
	Reason       string   `json:"reason,omitempty"` // why a figure is null, or 0

	fit *fit
}

// Forecast fits a key's series and forecasts when its daily peak reaches
// the partition limit. It returns ErrOptions or ErrSeries for input it
// cannot use; a key with too little data, or without growth, gets a
// Result without a date and the Reason.
func Forecast(s Series, opt Options) (Result, error) { return forecast(s, opt, theMethod) }

func forecast(s Series, opt Options, how method) (Result, error) {
	opt, err := opt.resolve()
	if err != nil {
		return Result{}, err
	}
	days, err := s.days(opt.Span)
	if err != nil {
		return Result{}, err
	}
	last := days[len(days)-1]
	r := Result{Table: s.Table, Index: s.Index, Key: s.Key, Type: s.Type, DaysObserved: len(days), LastDay: last.Date,
		PeakWCUPerSecond: last.Peak, Headroom: ddb.Headroom(last.Peak, opt.PartitionLimit), Trend: TrendUnknown}
	if len(days) >= opt.MinDays {
		r.describe(newFit(days, how))
	}
	switch {
	case last.Peak >= opt.PartitionLimit:
		r.reached("at or past the limit on the last day")
	case last.Saturated:
		r.reached("saturated on the last day: its writes pinned at the limit, its demand hidden")
	case r.fit == nil:
		r.Reason = fmt.Sprintf("%d day%s of data, fewer than the %d a forecast needs", len(days), plural(len(days)), opt.MinDays)
	case r.Trend == TrendFlat:
		r.Reason = fmt.Sprintf("no significant growth (Mann–Kendall score %.2f, under %.2f)", r.fit.score, zGrowth)
	case r.Trend == TrendShrinking:
		r.Reason = "shrinking"
	default:
		r.forecast(opt.PartitionLimit, opt.Horizon)
	}
	return r, nil
}

// describe sets what the fit says whatever the forecast: trend, growth,
// shape, cycle and outliers.
func (r *Result) describe(f *fit) {
	r.fit = f
	// Shapes are found by bisection to 2⁻¹⁶; three decimals say it.
	g, shape, slowest := f.models[0].growth(), math.Round(f.models[0].shape*1000)/1000, math.Round(f.models[1].shape*1000)/1000
	r.GrowthPerDay, r.Shape, r.SlowestShape, r.WeeklyCycle, r.OutlierDays = &g, &shape, &slowest, f.weekly, f.outliers
	switch {
	case f.score >= zGrowth:
		r.Trend = TrendGrowing
	case f.score <= -zGrowth:
		r.Trend = TrendShrinking
	default:
		r.Trend = TrendFlat
	}
}

// reached gives a key at the limit on its last day 0 days, its range too.
func (r *Result) reached(why string) {
	zero, date := 0, r.LastDay
	r.DaysToLimit, r.DaysToLimitLow, r.DaysToLimitHigh, r.LimitDate = &zero, &zero, &zero, &date
	r.Reason = why
}

// forecast sets a growing key's days to the limit and their range.
func (r *Result) forecast(limit float64, horizon int) {
	est, low, high := r.fit.crossings(limit, horizon)
	within := func(k int) *int {
		if k > horizon {
			return nil
		}
		return &k
	}
	r.DaysToLimit, r.DaysToLimitLow, r.DaysToLimitHigh = within(est), within(low), within(high)
	if r.DaysToLimit == nil {
		r.Reason = fmt.Sprintf("not reached within the %d-day horizon at the estimated growth", horizon)
		return
	}
	date := r.LastDay + Date(est)
	r.LimitDate = &date
}

// Projected returns the highest daily peak the forecast expects over the
// next days days (1 is the day after the last observed), in WCU per
// second: the estimate and the ends of its range, the peak a fix must
// hold (detector's shard count follows from it). ok is false without a
// fit (too few days).
func (r *Result) Projected(days int) (low, est, high float64, ok bool) {
	if r.fit == nil || days < 1 {
		return 0, 0, 0, false
	}
	days = min(days, MaxHorizon)
	f := r.fit
	best := f.models[0]
	est = f.curve(best, mid).highest(days, f.last)
	low, high = math.MaxFloat64, 0
	for _, m := range f.models {
		low = min(low, f.curve(m, slow).highest(days, f.last))
		high = max(high, f.curve(m, fast).highest(days, f.last))
	}
	return min(low, est), est, max(high, est), true
}

// plural is the s of "days" but for one.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
