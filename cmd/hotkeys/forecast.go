package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/history/forecast"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

const forecastAbout = `Forecasts, per heavy key, the day its daily peak reaches the partition limit
at its current growth, with a range: "reaches the partition limit in 12 days
(9–16)". A key's series is its daily peak: the highest peak WCU within one
second of its windows that day (a day without a window is missing, not zero).

It reads the same windows as history (--table, from the hour rollups) or as
replay (FILE..., stream events spanning days). It forecasts every key whose
last daily peak is at least --min-share of the limit, or that is among the
--top heaviest keys of the last day, for the table and each index.

The method (docs/forecast.md): a robust trend (Theil–Sen) on the logarithm of
the daily peaks, after taking out a weekly cycle when one is significant and
leaving out outlier days, with a range aimed at 80 % coverage that spans growth
by a fixed percentage and by a fixed amount a day. Days count from the end of
the last day observed. A key with fewer than 7 days gets no forecast, a flat or
shrinking key no date, and a key already at the limit 0; each says why.

AWS configuration (--table) comes from the standard chain; it needs
dynamodb:Query on the history table.

Examples:
  hotkeys forecast --table H                     # H: the stack's HistoryTable output; 30 days
  hotkeys forecast --table H --since 1344h --horizon 30 --format json
  hotkeys forecast --partition-key PK --partition-limit 100 captured/*.json
`

// forecastFlags are forecast's own flags, beside the stream flags (the
// files' windows) and history's (the history table).
type forecastFlags struct {
	hist     historyFlags
	horizon  int
	minShare float64
}

func runForecast(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, now func() time.Time) error {
	fs, o := newFlagSet("forecast", "[flags] --table NAME | FILE...", forecastAbout, stderr)
	o.registerStreamFlags(fs)
	var f forecastFlags
	fs.StringVar(&f.hist.table, "table", "", "`name` of the history table to read (the stack's HistoryTable output), instead of FILEs")
	durationFlag(fs, &f.hist.since, "since", 720*time.Hour, "with --table: the `span` of history to read, up to --to")
	fs.StringVar(&f.hist.to, "to", "", "with --table: the end `time` of the span, RFC 3339 (default: now)")
	intFlag(fs, &f.hist.writeShards, "write-shards", 0, "with --table: query `n` write shards of the shards' windows (default: what the rollups record, else 64)")
	intFlag(fs, &f.horizon, "horizon", forecast.DefaultHorizon, "look this many `days` ahead for the crossing")
	floatFlag(fs, &f.minShare, "min-share", 0.10, "forecast every key whose last daily peak is at least this `fraction` of the partition limit")
	f.hist.aws.register(fs)
	if err := o.parse(fs, args); err != nil {
		return err
	}
	opt := forecast.Options{PartitionLimit: o.cfg.PartitionLimit, Horizon: f.horizon}
	switch {
	case f.horizon < 1 || f.horizon > forecast.MaxHorizon:
		return usageError{fmt.Errorf("--horizon %d: want 1 to %d days", f.horizon, forecast.MaxHorizon)}
	case !(f.minShare >= 0 && f.minShare <= 10):
		return usageError{fmt.Errorf("--min-share %g: want 0 to 10 (a fraction of the limit)", f.minShare)}
	case f.hist.table != "" && fs.NArg() > 0:
		return usageError{errors.New("forecast: give --table or FILEs, not both")}
	case f.hist.table == "" && fs.NArg() == 0:
		fs.Usage()
		return usageError{errors.New("forecast: give --table NAME (the history table) or at least one FILE of stream events")}
	}
	peaks := forecast.NewPeaks()
	if f.hist.table != "" {
		if err := f.readHistory(ctx, o.cfg.PartitionLimit, peaks, stderr, now()); err != nil {
			return err
		}
	} else if err := readStreamFiles(ctx, o, fs.Args(), stdin, peaks, stderr); err != nil {
		return err
	}
	results, err := peaks.Forecasts(opt, f.minShare, o.cfg.Top)
	if err != nil {
		return err
	}
	if o.format == "json" {
		return writeForecastJSON(stdout, results)
	}
	_, err = io.WriteString(stdout, forecastTable(results, opt, o.output(stdout, false, false).table.width))
	return err
}

// readHistory reads the history table's hour rollups (and the shards'
// windows not rolled up yet) into peaks.
func (f *forecastFlags) readHistory(ctx context.Context, limit float64, peaks *forecast.Peaks, stderr io.Writer, now time.Time) error {
	h := f.hist
	h.step, h.source, h.limit, h.top = time.Hour, "auto", limit, 1000
	switch {
	case h.since <= 0:
		return usageError{fmt.Errorf("--since %s: want > 0", h.since)}
	case h.writeShards < 0 || h.writeShards > store.MaxWriteShards:
		return usageError{fmt.Errorf("--write-shards %d: want 1 to %d", h.writeShards, store.MaxWriteShards)}
	}
	to := now.UTC()
	if h.to != "" {
		var err error
		if to, err = time.Parse(time.RFC3339, h.to); err != nil {
			return usageError{fmt.Errorf("--to %q: want RFC 3339, e.g. 2026-11-22T10:00:00Z", h.to)}
		}
	}
	awsCfg, err := h.aws.load(ctx, "forecast")
	if err != nil {
		return err
	}
	n, skipped, err := h.read(ctx, dynamodb.NewFromConfig(awsCfg, store.ClientOptions), to.Add(-h.since), to, peaksWriter{peaks}, stderr)
	switch {
	case err != nil:
		return err
	case n == 0:
		return inputError{fmt.Sprintf("no stored windows in %s in the last %s: nothing to forecast", h.table, h.since)}
	case skipped > 0:
		fmt.Fprintf(stderr, "hotkeys forecast: %d stored item(s) could not be used and were skipped\n", skipped)
	}
	return nil
}

// readStreamFiles runs the files through replay's pipeline into peaks.
func readStreamFiles(ctx context.Context, o *options, files []string, stdin io.Reader, peaks *forecast.Peaks, stderr io.Writer) error {
	if err := o.requireIndexSource("forecast"); err != nil {
		return err
	}
	p, err := newPipeline("forecast", o, outputOptions{format: "json"}, io.Discard, stderr, time.Now, false)
	if err != nil {
		return err
	}
	p.writeTo(peaksWriter{peaks}, o, time.Now)
	for _, name := range files {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		payload, err := readInput(name, stdin)
		if err == nil {
			err = p.feed(name, payload, "")
		}
		if err != nil {
			return err
		}
	}
	if err := p.finish(); err != nil {
		return err
	}
	if p.malformed > 0 {
		fmt.Fprintf(stderr, "hotkeys forecast: %s\n", p.malformedError())
	}
	return nil
}

func writeForecastJSON(w io.Writer, results []forecast.Result) error {
	if results == nil {
		results = []forecast.Result{}
	}
	b, err := json.MarshalIndent(struct {
		Forecasts []forecast.Result `json:"forecasts"`
	}{results}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// forecastTable prints one line per key, fitted to width as the other
// tables are (layout.go: no line past it, none ending in a space), and
// under it the forecast in words.
func forecastTable(results []forecast.Result, opt forecast.Options, width int) string {
	var b strings.Builder
	fitLine(&b, fmt.Sprintf("FORECAST · partition limit %s WCU/s · horizon %d days · range aimed at %.0f %%",
		strings.TrimSuffix(fmt.Sprintf("%.3f", opt.PartitionLimit), ".000"), opt.Horizon, forecast.Coverage*100), width)
	if len(results) == 0 {
		b.WriteString("\n")
		wrap(&b, "", "", "no key to forecast: none reached --min-share of the limit or the last day's --top", width)
		return b.String()
	}
	b.WriteString("\n")
	// The columns that explain give way first; the key, its headroom,
	// the days to the limit and the date stay.
	t := table{indent: "  ", cols: []column{{head: "TABLE"}, {head: "KEY", key: true}, {head: "DAYS", drop: 3}, {head: "LAST DAY", drop: 2},
		{head: "PEAK WCU/s", drop: 4}, {head: "HEADROOM"}, {head: "GROWTH/DAY", drop: 5}, {head: "TREND", drop: 1}, {head: "DAYS TO LIMIT"}, {head: "DATE"}}}
	for _, r := range results {
		name := printable(r.Table, 40)
		if r.Index != "" {
			name += " · " + printable(r.Index, 40)
		}
		growth := "-"
		if r.GrowthPerDay != nil {
			growth = fmt.Sprintf("%+.1f %%", *r.GrowthPerDay*100)
		}
		date := "-"
		if r.LimitDate != nil {
			date = r.LimitDate.String()
		}
		t.add(text(name), keyCell(r.Key), text(fmt.Sprint(r.DaysObserved)), text(r.LastDay.String()), text(fmt.Sprintf("%.0f", r.PeakWCUPerSecond)),
			text(headroomCell(&report.KeyFigures{Headroom: r.Headroom})), text(growth), text(string(r.Trend)), text(daysCell(r)), text(date))
	}
	var notes keyNotes
	t.write(&b, width, &notes)
	b.WriteString("\n")
	for _, r := range results {
		wrap(&b, "  ▸ ", "    ", notes.cell(r.Key, keyCellWidth)+": "+forecastText(r, opt.Horizon), width)
	}
	notes.writeFull(&b)
	return b.String()
}

// daysCell is the days to the limit and their range: "12 (9–16)".
func daysCell(r forecast.Result) string {
	if r.DaysToLimit == nil {
		return "-"
	}
	return fmt.Sprintf("%d (%s–%s)", *r.DaysToLimit, dayOrBeyond(r.DaysToLimitLow), dayOrBeyond(r.DaysToLimitHigh))
}

func dayOrBeyond(d *int) string {
	if d == nil {
		return "beyond"
	}
	return fmt.Sprint(*d)
}

// forecastText says a forecast in words.
func forecastText(r forecast.Result, horizon int) string {
	switch {
	case r.DaysToLimit != nil && *r.DaysToLimit == 0:
		return fmt.Sprintf("at the partition limit now (%s)", r.Reason)
	case r.DaysToLimit != nil:
		high := "more than the horizon"
		if r.DaysToLimitHigh != nil {
			high = fmt.Sprint(*r.DaysToLimitHigh)
		}
		return fmt.Sprintf("reaches the partition limit in %d days (%d–%s), on %s, growing %.1f %% a day", *r.DaysToLimit, *r.DaysToLimitLow, high, r.LimitDate, *r.GrowthPerDay*100)
	case r.DaysToLimitLow != nil:
		return fmt.Sprintf("not within %d days at the estimated growth, but possibly in %d (the range's fast end)", horizon, *r.DaysToLimitLow)
	}
	return "no forecast: " + r.Reason
}

// peaksWriter makes forecast.Peaks a streamWriter, so that history's
// reader and replay's pipeline feed it as they feed a table: a forecast
// reads windows, not onsets, and the pipeline says its warnings on stderr.
type peaksWriter struct{ *forecast.Peaks }

func (peaksWriter) WriteOnsets([]report.Onset) error { return nil }
func (peaksWriter) Close([]string) error             { return nil }
