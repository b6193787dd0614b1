package main

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/forecast"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
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
