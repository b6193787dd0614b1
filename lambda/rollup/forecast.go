package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/forecast"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

const (
	// forecastAt is when, after 00:00 UTC, the run forecasting the day
	// before is scheduled: the day's last hour rollup is stored at 01:10
	// at the latest (a shard's window stored late settles 70 minutes after
	// its end), so the forecast sees the whole day.
	forecastAt = 2 * time.Hour
	// forecastTimeout bounds the forecast's reads and its claim, within
	// the invocation's own deadline (the function's 300-s timeout): the
	// run's rollups are done before it starts.
	forecastTimeout = 60 * time.Second
	// forecastTop and forecastMinShare choose the keys forecast, as
	// `hotkeys forecast` does by default: the top keys of the last day,
	// and any key whose last daily peak is 10 % of the limit.
	forecastTop      = 10
	forecastMinShare = 0.10
	// forecastKeys is how many keys of each hour rollup are read: every
	// key a rollup holds (history keeps at most a few hundred a window).
	forecastKeys = 1000
)

// forecaster publishes, once a day, MinDaysToLimit per table and index:
// the fewest days until any key's daily peak reaches the partition limit,
// from the hour rollups of the last forecast.DefaultSpan days.
type forecaster struct {
	table     *store.Table
	opt       forecast.Options
	namespace string
	out       io.Writer // EMF lines, one a table and index: the function's stdout
	log       *slog.Logger
	now       func() time.Time
}

// forecastDay returns the day the run scheduled at t forecasts (its
// midnight) and whether t is the run that forecasts it.
func forecastDay(t time.Time) (time.Time, bool) {
	t = t.UTC().Truncate(time.Minute)
	midnight := t.Truncate(24 * time.Hour)
	return midnight.Add(-24 * time.Hour), t.Sub(midnight) == forecastAt
}

// Run forecasts the day before t, if t is the run that does, and writes
// one MinDaysToLimit line per table and index that has a forecast date
// within the horizon, stamped with the end of that day. The day is
// claimed in the history table after the forecast and before the lines
// are written, so that a rerun of the same run (a retry) writes nothing
// again; what remains possible is a crash between the claim and the
// write, which loses the day's point rather than doubling it. A failure
// is logged and returned, never retried here.
func (f *forecaster) Run(ctx context.Context, t time.Time) error {
	day, ok := forecastDay(t)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, forecastTimeout)
	defer cancel()
	end := day.Add(24 * time.Hour)
	peaks := forecast.NewPeaks()
	var skipped int
	err := f.table.Reader(0).Rollups(ctx, store.Hours, end.Add(-forecast.DefaultSpan*24*time.Hour), end,
		func(s *history.Summary) error { return peaks.Write([]report.Report{s.Report(forecastKeys)}) },
		func(string, error) { skipped++ })
	if err != nil {
		return fmt.Errorf("forecast of %s: reading the hour rollups: %w", day.Format(time.DateOnly), err)
	}
	results, err := peaks.Forecasts(f.opt, forecastMinShare, forecastTop)
	if err != nil {
		return fmt.Errorf("forecast of %s: %w", day.Format(time.DateOnly), err)
	}
	lines := minDaysLines(f.namespace, end, results)
	claimed, err := f.table.ClaimForecast(ctx, day, f.now())
	if err != nil {
		return fmt.Errorf("forecast of %s: %w", day.Format(time.DateOnly), err)
	}
	f.log.Info("forecast", "day", day.Format(time.DateOnly), "keys", len(results), "lines", bytes.Count(lines, []byte{'\n'}),
		"skipped", skipped, "published", claimed)
	if !claimed {
		return nil
	}
	logReaching(ctx, f.log, results)
	_, err = f.out.Write(lines)
	return err
}

// MsgReachesLimit is the message of the line logged per key forecast to
// reach the partition limit within the horizon, for Logs Insights filters.
const MsgReachesLimit = "key forecast to reach the partition limit"

// logReaching logs one WARN line per key of results forecast to reach the
// limit within the horizon, once per day forecast (after the claim). The
// key is printed exactly as the history holds it, that is as the stream
// function's detector reported it: already redacted when redaction is on
// (history.Summary keeps a report's keys as they are), the rule of the
// stream function's findings log, so the raw key never appears here
// either.
func logReaching(ctx context.Context, log *slog.Logger, results []forecast.Result) {
	for i := range results {
		r := &results[i]
		if r.DaysToLimit == nil {
			continue
		}
		attrs := make([]slog.Attr, 0, 14)
		attrs = append(attrs, slog.String("table", r.Table))
		if r.Index != "" {
			attrs = append(attrs, slog.String("index", r.Index))
		}
		attrs = append(attrs,
			slog.String("key", r.Key),
			slog.String("type", r.Type),
			slog.String("dimension", alert.DimensionValue(r.Key)),
			slog.String("last_day", r.LastDay.String()),
			slog.Int("days_observed", r.DaysObserved),
			slog.Float64("peak_wcu_per_second", r.PeakWCUPerSecond),
			slog.Float64("headroom", r.Headroom),
			slog.Any("growth_per_day", r.GrowthPerDay),
			slog.Int("days_to_limit", *r.DaysToLimit),
			slog.Any("days_to_limit_low", r.DaysToLimitLow),
			slog.Any("days_to_limit_high", r.DaysToLimitHigh),
			slog.Any("limit_date", r.LimitDate),
		)
		log.LogAttrs(ctx, slog.LevelWarn, MsgReachesLimit, attrs...)
	}
}

// minDaysLines returns the EMF lines of MinDaysToLimit, one per table
// and index with at least one key forecast to reach the limit within the
// horizon, in the order of results' first appearance of each. A table
// none of whose keys gets there has no line: the alarm treats missing
// data as not breaching.
func minDaysLines(namespace string, at time.Time, results []forecast.Result) []byte {
	type source struct{ table, index string }
	least := map[source]int{}
	var order []source
	for _, r := range results {
		if r.DaysToLimit == nil {
			continue
		}
		s := source{r.Table, r.Index}
		d, seen := least[s]
		if !seen {
			order = append(order, s)
		}
		if !seen || *r.DaysToLimit < d {
			least[s] = *r.DaysToLimit
		}
	}
	var b []byte
	for _, s := range order {
		b = alert.AppendEMFTableValue(b, namespace, at, s.table, s.index, alert.MetricMinDaysToLimit, "None", float64(least[s]))
	}
	return b
}
