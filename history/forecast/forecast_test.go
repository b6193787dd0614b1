package forecast

import (
	"errors"
	"math"
	"testing"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// TestForecast holds each kind of key to its guarantee, on series with a
// known truth: a growing key's range contains the first day whose own
// noiseless peak reaches the limit (its estimate is that day, without
// noise, when the growth is exponential, or linear and noiseless), a flat
// or shrinking one gets no date and a reason, and without noise its trend
// is named right.
func TestForecast(t *testing.T) {
	const quiet, noisy = 0.0, 0.05
	flat := func(float64) float64 { return 500 }
	tests := []struct {
		name  string
		g     gen
		trend Trend
	}{
		{"exponential", gen{peak: daily(exponential(200, 0.03)), end: 42, noise: quiet}, TrendGrowing},
		{"exponential, noisy", gen{peak: daily(exponential(200, 0.03)), end: 42, noise: noisy}, TrendGrowing},
		{"linear", gen{peak: daily(linear(300, 12)), end: 42, noise: quiet}, TrendGrowing},
		{"linear, noisy", gen{peak: daily(linear(300, 12)), end: 42, noise: noisy}, TrendGrowing},
		{"weekly cycle on exponential growth", gen{peak: halfOnWeekends(exponential(200, 0.03)), end: 42, noise: quiet}, TrendGrowing},
		{"weekly cycle on exponential growth, noisy", gen{peak: halfOnWeekends(exponential(200, 0.03)), end: 42, noise: noisy}, TrendGrowing},
		{"weekly cycle on linear growth", gen{peak: halfOnWeekends(linear(300, 12)), end: 42, noise: quiet}, TrendGrowing},
		{"weekly cycle on linear growth, noisy", gen{peak: halfOnWeekends(linear(300, 12)), end: 42, noise: noisy}, TrendGrowing},
		{"one outlier day", gen{peak: daily(exponential(200, 0.03)), end: 42, noise: noisy, spike: 5, spikeAt: 25}, TrendGrowing},
		{"one outlier dip", gen{peak: daily(linear(300, 12)), end: 42, noise: noisy, spike: 0.2, spikeAt: 40}, TrendGrowing},
		{"appears on day 20", gen{peak: daily(exponential(250, 0.04)), first: 20, end: 35, noise: noisy}, TrendGrowing},
		{"flat", gen{peak: daily(flat), end: 42, noise: quiet}, TrendFlat},
		{"flat, noisy", gen{peak: daily(flat), end: 42, noise: noisy}, TrendFlat},
		{"weekly cycle, flat", gen{peak: halfOnWeekends(flat), end: 42, noise: noisy}, TrendFlat},
		{"shrinking", gen{peak: daily(exponential(900, -0.01)), end: 42, noise: noisy}, TrendShrinking},
		{"weekly cycle, shrinking", gen{peak: halfOnWeekends(linear(900, -8)), end: 42, noise: noisy}, TrendShrinking},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Forecast(tt.g.series(1), Options{PartitionLimit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if (r.Trend == TrendGrowing) != (tt.trend == TrendGrowing) || (tt.g.noise == 0 && r.Trend != tt.trend) {
				t.Fatalf("trend %s, want %s: %s", r.Trend, tt.trend, show(r))
			}
			checkConsistent(t, r, DefaultHorizon)
			if tt.trend != TrendGrowing {
				if r.DaysToLimit != nil || r.DaysToLimitLow != nil || r.DaysToLimitHigh != nil || r.LimitDate != nil || r.Reason == "" {
					t.Errorf("a %s key got a date, or no reason: %s", r.Trend, show(r))
				}
				return
			}
			truth := tt.g.truth(DefaultHorizon)
			est, low, high := days(r.DaysToLimit, DefaultHorizon), days(r.DaysToLimitLow, DefaultHorizon), days(r.DaysToLimitHigh, DefaultHorizon)
			if low > truth || truth > high {
				t.Errorf("truth %d days outside the range: %s", truth, show(r))
			}
			if tt.g.noise == 0 && est != truth {
				t.Errorf("noiseless: estimate %d days, truth %d: %s", est, truth, show(r))
			}
		})
	}
}

// TestWeeklyCycleCrossesOnBusyDays: under a weekly cycle the limit is
// reached on the first busy weekday whose own peak reaches it, days
// before the week's mean does, and the forecast says so.
func TestWeeklyCycleCrossesOnBusyDays(t *testing.T) {
	trend := exponential(200, 0.03)
	g := gen{peak: halfOnWeekends(trend), end: 42}
	r, err := Forecast(g.series(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	truth := g.truth(DefaultHorizon)
	mean := func(i int) float64 { // the mean of a week whose weekends are at half
		return trend(float64(i)) * 6 / 7
	}
	meanDay := gen{peak: mean, end: 42}.truth(DefaultHorizon)
	if weekend(41+truth) || truth >= meanDay {
		t.Fatalf("the test's series: truth day %d (a weekend: %v), mean's day %d", truth, weekend(41+truth), meanDay)
	}
	if !r.WeeklyCycle || days(r.DaysToLimit, DefaultHorizon) != truth {
		t.Errorf("weekly cycle found: %v, %d days to the limit, want %d (the mean would say %d)", r.WeeklyCycle, days(r.DaysToLimit, DefaultHorizon), truth, meanDay)
	}
}

// TestAtTheLimit: a key at or past the limit on its last day, or
// saturated there, gets 0 days and that day as its date, whatever its
// trend, even with too few days to fit one.
func TestAtTheLimit(t *testing.T) {
	past := gen{peak: daily(exponential(330, 0.03)), end: 42}.series(1)
	few := gen{peak: daily(linear(1000, 10)), first: 38, end: 42}.series(1)
	saturated := gen{peak: daily(linear(950, 0)), end: 42}.series(1)
	saturated.Days[41].Saturated = true
	for name, s := range map[string]Series{"past": past, "few days": few, "saturated": saturated} {
		r, err := Forecast(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		zero, lastDay := 0, s.Days[len(s.Days)-1].Date
		if days(r.DaysToLimit, 90) != 0 || days(r.DaysToLimitLow, 90) != 0 || days(r.DaysToLimitHigh, 90) != 0 ||
			r.LimitDate == nil || *r.LimitDate != lastDay || r.Reason == "" {
			t.Errorf("%s: %s, want %d days, dated %s", name, show(r), zero, lastDay)
		}
		if name != "saturated" && r.Headroom > 1 {
			t.Errorf("%s: headroom %v, want at most 1", name, r.Headroom)
		}
		checkConsistent(t, r, DefaultHorizon)
	}
}

// TestTooFewDays: under MinDays days, no forecast and the reason.
func TestTooFewDays(t *testing.T) {
	s := gen{peak: daily(exponential(50, 0.05)), first: 36, end: 42}.series(1)
	r, err := Forecast(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.DaysObserved != 6 || r.Trend != TrendUnknown || r.GrowthPerDay != nil || r.Shape != nil || r.SlowestShape != nil || r.DaysToLimit != nil ||
		r.DaysToLimitLow != nil || r.DaysToLimitHigh != nil || r.LimitDate != nil || r.Reason != "6 days of data, fewer than the 7 a forecast needs" {
		t.Errorf("%s", show(r))
	}
	if want := ddb.Headroom(s.Days[5].Peak, limit); r.Headroom != want || r.PeakWCUPerSecond != s.Days[5].Peak {
		t.Errorf("headroom %v of peak %v, want %v", r.Headroom, r.PeakWCUPerSecond, want)
	}
	if _, _, _, ok := r.Projected(30); ok {
		t.Error("Projected without a fit")
	}
}

// TestMissingDaysAreNotZero: leaving days out (no window) changes the
// forecast of a noiseless key not at all; zero peaks would.
func TestMissingDaysAreNotZero(t *testing.T) {
	g := gen{peak: daily(exponential(200, 0.03)), end: 42}
	full, gappy := g.series(1), g.series(1)
	gappy.Days = append(gappy.Days[:10:10], gappy.Days[17:]...) // a week without windows
	a, err := Forecast(full, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Forecast(gappy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if *a.DaysToLimit != *b.DaysToLimit || b.DaysObserved != 35 || math.Abs(*a.GrowthPerDay-*b.GrowthPerDay) > 1e-9 {
		t.Errorf("with a week missing: %s; without: %s", show(b), show(a))
	}
}

// TestBoundsWidenTheRange: peaks whose bounds are loose give a range at
// least as wide, the estimate unchanged.
func TestBoundsWidenTheRange(t *testing.T) {
	s := gen{peak: daily(exponential(200, 0.03)), end: 42, noise: 0.05}.series(1)
	tight, _ := Forecast(s, Options{})
	for i := range s.Days {
		s.Days[i].Lower, s.Days[i].Upper = s.Days[i].Peak*0.8, s.Days[i].Peak*1.25
	}
	loose, _ := Forecast(s, Options{})
	if *loose.DaysToLimit != *tight.DaysToLimit || *loose.DaysToLimitLow >= *tight.DaysToLimitLow || *loose.DaysToLimitHigh <= *tight.DaysToLimitHigh {
		t.Errorf("tight bounds: %s; loose: %s", show(tight), show(loose))
	}
}

// TestInvalidInput: what cannot be a key's daily peaks, or options out of
// range, are refused with their sentinel.
func TestInvalidInput(t *testing.T) {
	ok := gen{peak: daily(exponential(200, 0.03)), end: 10}.series(1)
	dup := ok
	dup.Days = append([]Day{ok.Days[3]}, ok.Days...)
	bad := func(d Day) Series { s := ok; s.Days = append([]Day{d}, ok.Days[1:]...); return s }
	for name, s := range map[string]Series{
		"no days":          {Key: "K"},
		"a date twice":     dup,
		"NaN":              bad(Day{Date: day0, Peak: math.NaN()}),
		"negative":         bad(Day{Date: day0, Peak: -1, Lower: -1, Upper: -1}),
		"infinite":         bad(Day{Date: day0, Peak: math.Inf(1), Lower: 1, Upper: math.Inf(1)}),
		"peak above upper": bad(Day{Date: day0, Peak: 10, Lower: 10, Upper: 9}),
		"peak below lower": bad(Day{Date: day0, Peak: 10, Lower: 11, Upper: 11}),
	} {
		if _, err := Forecast(s, Options{}); !errors.Is(err, ErrSeries) {
			t.Errorf("%s: %v, want ErrSeries", name, err)
		}
	}
	for _, o := range []Options{{PartitionLimit: -1}, {PartitionLimit: math.NaN()}, {Horizon: -1}, {Horizon: MaxHorizon + 1}, {MinDays: 2}, {MinDays: 10, Span: 9}} {
		if _, err := Forecast(ok, o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
}

// TestOutlierDayIsLeftOut: a day off the trend by more than the outlier
// cut is left out, so the key is forecast exactly as if that day had no
// window; and the forecast moves from the clean key's by less than a
// third of the range's width (docs/forecast.md's bound).
func TestOutlierDayIsLeftOut(t *testing.T) {
	for _, tt := range []struct {
		name string
		g    gen
	}{
		{"spike", gen{peak: daily(exponential(200, 0.03)), end: 42, noise: 0.1, spike: 5, spikeAt: 25}},
		{"dip", gen{peak: daily(linear(300, 12)), end: 42, noise: 0.1, spike: 0.5, spikeAt: 3}},
		{"spike on a weekday", gen{peak: halfOnWeekends(exponential(200, 0.03)), end: 42, noise: 0.1, spike: 3, spikeAt: 40}},
		{"an incident on a weekend", gen{peak: halfOnWeekends(linear(300, 12)), end: 42, noise: 0.1, spike: 0.1, spikeAt: 30}},
	} {
		spiked := tt.g.series(7)
		missing := spiked
		i := tt.g.spikeAt - tt.g.first
		missing.Days = append(spiked.Days[:i:i], spiked.Days[i+1:]...)
		clean := tt.g
		clean.spike = 0
		a, errA := Forecast(spiked, Options{})
		b, errB := Forecast(missing, Options{})
		c, errC := Forecast(clean.series(7), Options{})
		if err := errors.Join(errA, errB, errC); err != nil {
			t.Fatal(err)
		}
		if a.OutlierDays != 1 || b.OutlierDays != 0 {
			t.Errorf("%s: %d outlier days, %d without the day", tt.name, a.OutlierDays, b.OutlierDays)
		}
		a.DaysObserved, a.OutlierDays, a.fit, b.fit = b.DaysObserved, b.OutlierDays, nil, nil
		if show(a) != show(b) {
			t.Errorf("%s: with the day: %s\nwithout it: %s", tt.name, show(a), show(b))
		}
		shift := math.Abs(float64(days(a.DaysToLimit, 90) - days(c.DaysToLimit, 90)))
		if width := float64(days(c.DaysToLimitHigh, 90) - days(c.DaysToLimitLow, 90)); shift > width/3 {
			t.Errorf("%s: moved %v days, a range of %v: %s, clean %s", tt.name, shift, width, show(a), show(c))
		}
	}
}
