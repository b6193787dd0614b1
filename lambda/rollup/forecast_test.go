package main

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/forecast"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

// day0 is the first day of the stored history.
var day0 = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)

// storeDays stores, for each of days days from day0, one hour rollup
// (13:00) of table and index holding key at peak(d) WCU/s, and an hour
// before it a lower one, so that the daily peak is the day's highest.
func storeDays(t *testing.T, table *store.Table, tableName, index, key string, days int, peak func(d int) float64) {
	t.Helper()
	for d := range days {
		for h, p := range map[int]float64{12: peak(d) / 2, 13: peak(d)} {
			start := day0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour)
			wcu := uint64(math.Ceil(p * 60))
			s := &history.Summary{Table: tableName, Index: index, Start: start, End: start.Add(time.Hour), Sources: 1,
				Totals: report.Totals{Records: wcu, WCU: wcu}, DistinctKeys: 1,
				Keys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: key, Type: "S", WCU: wcu, WCULower: wcu, WCUUpper: wcu, PeakWCUPerSecond: p}}}}
			if _, err := table.PutRollup(context.Background(), store.Hours, s, start.Add(2*time.Hour), true); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func newForecaster(t *testing.T, prefix string) (*forecaster, *bytes.Buffer) {
	t.Helper()
	api, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: prefix, HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	table, err := store.New(api, name, store.Options{Retention: 90 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	return &forecaster{table: table, opt: forecast.Options{PartitionLimit: 1000}, namespace: alert.DefaultNamespace, out: &out,
		log: slog.New(slog.DiscardHandler), now: func() time.Time { return day0 }}, &out
}

// TestForecastPublishesMinDaysToLimitOnceADay: from 21 days of hour
// rollups on DynamoDB Local, where Orders' key OPS_LOG grows 10 % a day
// from 100 WCU/s (its daily peak first reaches the 1,000-WCU/s limit on day 25 of the series,
// 5 days after the end of the last day, day 20) and the
// index GSI1's key is flat, the 02:00 run of the next day writes one
// line: Orders' MinDaysToLimit, stamped with the end of the day it
// forecasts. The index, which has no forecast date, has no line. Every
// other run writes nothing, and so does the 02:00 run again (a retry).
func TestForecastPublishesMinDaysToLimitOnceADay(t *testing.T) {
	f, out := newForecaster(t, "forecastfn")
	const days = 21
	storeDays(t, f.table, "Orders", "", "OPS_LOG", days, func(d int) float64 { return 100 * math.Pow(1.1, float64(d)) })
	storeDays(t, f.table, "Orders", "GSI1", "STATUS#ACTIVE", days, func(int) float64 { return 300 })
	end := day0.AddDate(0, 0, days) // the end of the last day
	for _, at := range []time.Time{end.Add(time.Hour + 59*time.Minute), end.Add(2*time.Hour + time.Minute), end.Add(-21 * time.Hour)} {
		if err := f.Run(context.Background(), at); err != nil || out.Len() > 0 {
			t.Fatalf("run at %s: %v, wrote %q; want nothing", at.Format(time.RFC3339), err, out)
		}
	}
	if err := f.Run(context.Background(), end.Add(2*time.Hour+30*time.Second)); err != nil {
		t.Fatal(err)
	}
	want := `{"_aws":{"Timestamp":1792627200000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName"]],"Metrics":[{"Name":"MinDaysToLimit","Unit":"None"}]}]},"TableName":"Orders","MinDaysToLimit":5}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("02:00 run wrote\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	if err := f.Run(context.Background(), end.Add(2*time.Hour)); err != nil || out.Len() > 0 {
		t.Errorf("02:00 run again: %v, wrote %q; want nothing: the day is published", err, out)
	}
}

// TestForecastNoLineWithoutForecast: a table whose keys are all flat, or
// with too few days of data, gets no line, and its day is still claimed.
func TestForecastNoLineWithoutForecast(t *testing.T) {
	f, out := newForecaster(t, "forecastflat")
	storeDays(t, f.table, "Flat", "", "K", 14, func(int) float64 { return 500 })
	storeDays(t, f.table, "Young", "", "K", 3, func(d int) float64 { return 100 * math.Pow(2, float64(d)) })
	end := day0.AddDate(0, 0, 14)
	if err := f.Run(context.Background(), end.Add(2*time.Hour)); err != nil || out.Len() > 0 {
		t.Errorf("run: %v, wrote %q; want no line", err, out)
	}
	if ok, err := f.table.ClaimForecast(context.Background(), end.Add(-24*time.Hour), day0); ok || err != nil {
		t.Errorf("claim after the run: %v, %v; want the day claimed already", ok, err)
	}
}

// TestForecastIndexLine: an index's key forecast to reach the limit gets
// a line under TableName and IndexName, and TableName alone, so that the
// table's one alarm covers it.
func TestForecastIndexLine(t *testing.T) {
	var out []byte
	out = alert.AppendEMFTableValue(out, "HotKeyDetector", day0, "Orders", "GSI1", "MinDaysToLimit", "None", 3)
	want := `{"_aws":{"Timestamp":1790812800000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName","IndexName"],["TableName"]],"Metrics":[{"Name":"MinDaysToLimit","Unit":"None"}]}]},"TableName":"Orders","IndexName":"GSI1","MinDaysToLimit":3}` + "\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestForecastLogsKeysReachingLimit: the 02:00 run logs one WARN line per
// key forecast to reach the limit, compared whole, and none for a flat
// key. The stored key is as the stream function's detector reports it
// under redaction (a keyed hash), and the line carries that hash, never
// anything else; a rerun logs nothing again.
func TestForecastLogsKeysReachingLimit(t *testing.T) {
	f, _ := newForecaster(t, "forecastlog")
	var logs bytes.Buffer
	f.log = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	h, err := redact.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	key := h.Key('S', []byte("OPS_LOG"))
	const days = 21
	storeDays(t, f.table, "Orders", "GSI1", key, days, func(d int) float64 { return 100 * math.Pow(1.1, float64(d)) })
	storeDays(t, f.table, "Orders", "", "FLAT", days, func(int) float64 { return 300 })
	end := day0.AddDate(0, 0, days)
	if err := f.Run(context.Background(), end.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	var reaching []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, `"msg":"`+MsgReachesLimit+`"`) {
			reaching = append(reaching, line)
		}
	}
	// Day 20's peak, 100 × 1.1^20 = 672.75 WCU/s, is stored as history
	// rounds it (673, headroom 1000/673 to 3 digits); the exact series
	// leaves no room for a range: 1.1^25 × 100 = 1,083 is day 25.
	want := []string{`{"level":"WARN","msg":"key forecast to reach the partition limit","table":"Orders","index":"GSI1","key":"` + key +
		`","type":"S","dimension":"` + key + `","last_day":"2026-10-21","days_observed":21,"peak_wcu_per_second":673,` +
		`"headroom":1.486,"growth_per_day":0.10003663776313143,"days_to_limit":5,"days_to_limit_low":5,"days_to_limit_high":5,"limit_date":"2026-10-26"}` + "\n"}
	if !slices.Equal(reaching, want) {
		t.Errorf("logged\n%q\nwant\n%q", reaching, want)
	}
	if strings.Contains(logs.String(), "OPS_LOG") {
		t.Errorf("the raw key is in the log:\n%s", logs.String())
	}
	logs.Reset()
	if err := f.Run(context.Background(), end.Add(2*time.Hour)); err != nil || strings.Contains(logs.String(), MsgReachesLimit) {
		t.Errorf("rerun: %v, logged\n%s\nwant no key line: the day is published", err, logs.String())
	}
}
