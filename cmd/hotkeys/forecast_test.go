package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/forecast"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// synthLimit is the partition limit the synthetic history is scaled to
// (--partition-limit), so that its peaks take few records.
const synthLimit = 100

// synthDays is how many days of traffic the synthetic history spans.
const synthDays = 42

// synthKey is a key of known behaviour: its noiseless daily peak, in WCU
// per second, on day i (0 the first); 0 is no window that day.
type synthKey struct {
	name  string
	peak  func(i int) float64
	grows bool
}

var synthStart = time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC) // a Monday

func weekend(i int) bool {
	wd := synthStart.AddDate(0, 0, i).Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

var synthKeys = []synthKey{
	{"EXP", func(i int) float64 { return 21 * math.Pow(1.03, float64(i)) }, true},
	{"LINEAR", func(i int) float64 { return 30 + float64(i) }, true},
	{"WEEKLY", func(i int) float64 {
		p := 25 * math.Pow(1.025, float64(i))
		if weekend(i) {
			p /= 2
		}
		return p
	}, true},
	{"OUTLIER", func(i int) float64 {
		p := 18 * math.Pow(1.03, float64(i))
		if i == 30 {
			p *= 4 // one incident day
		}
		return p
	}, true},
	{"OUTLIER_TWIN", func(i int) float64 { return 18 * math.Pow(1.03, float64(i)) }, true},
	{"LATE", func(i int) float64 {
		if i < 20 {
			return 0
		}
		return 30 * math.Pow(1.04, float64(i-20))
	}, true},
	{"FLAT", func(int) float64 { return 50 }, false},
	{"SHRINK", func(i int) float64 { return 80 * math.Pow(0.98, float64(i)) }, false},
	{"NEW", func(i int) float64 {
		if i < synthDays-4 {
			return 0
		}
		return 60
	}, false},
}

// trueDay is the first day after the last observed whose own noiseless
// peak reaches the limit, in days from the end of the last day.
func (k synthKey) trueDay() int {
	for i := synthDays; i < synthDays+1000; i++ {
		if k.peak(i) >= synthLimit {
			return i - (synthDays - 1)
		}
	}
	return -1
}

// writeSynthHistory writes the synthetic history as stream records, one
// per line: each day, at noon, every key's peak second (1 WCU a write, so
// the peak is rounded to whole WCU), in one minute's window. Rounding is
// its only noise: this test holds the path from stream records to a
// forecast to the known truth; the method's coverage under noise, 200 keys
// of each kind, is history/forecast's TestCoverageAndComparison.
func writeSynthHistory(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	seq := 0
	for i := range synthDays {
		sec := synthStart.AddDate(0, 0, i).Add(12 * time.Hour).Unix()
		for ki, k := range synthKeys {
			p := k.peak(i)
			if p == 0 {
				continue
			}
			n := int(math.Round(p))
			for w := range n {
				seq++
				at := float64(sec+int64(ki)) + float64(w)/float64(n+1)
				fmt.Fprintf(&b, `{"eventID":"%d","eventName":"INSERT","eventSource":"aws:dynamodb","eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-10-05T00:00:00.000","dynamodb":{"ApproximateCreationDateTime":%.6f,"Keys":{"id":{"S":"%s"}},"SequenceNumber":"%d","SizeBytes":30,"StreamViewType":"NEW_AND_OLD_IMAGES","NewImage":{"id":{"S":"%s"},"n":{"N":"%d"}}}}`+"\n",
					seq, at, k.name, seq, k.name, seq)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestForecastCommand: 42 days of synthetic traffic with keys of known
// behaviour, read as stream files, forecast as a table and as JSON, both
// held whole to goldens; and held to the oracle: each growing key's range
// contains its true day, flat and shrinking keys get no date, a key of 4
// days gets no forecast, and one outlier day moves the forecast by at
// most a third of its range's width (docs/forecast.md's bound).
func TestForecastCommand(t *testing.T) {
	path := writeSynthHistory(t)
	args := []string{"forecast", "--partition-key", "id", "--partition-limit", fmt.Sprint(synthLimit)}
	for _, format := range []string{"table", "json"} {
		code, out, errs := hotkeys(t, "", append(args, "--format", format, path)...)
		got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs)
		golden.Equal(t, filepath.Join("testdata/golden", "forecast-"+format+".golden"), []byte(got))
	}
	code, out, errs := hotkeys(t, "", append(args, "--format", "json", path)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct{ Forecasts []forecast.Result }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]forecast.Result{}
	for _, r := range doc.Forecasts {
		byKey[r.Key] = r
	}
	for _, k := range synthKeys {
		r, ok := byKey[k.name]
		if !ok {
			t.Errorf("%s: not forecast", k.name)
			continue
		}
		switch {
		case k.name == "NEW":
			if r.DaysToLimit != nil || r.Trend != forecast.TrendUnknown || !strings.Contains(r.Reason, "fewer than the 7") {
				t.Errorf("NEW: %+v, want no forecast for 4 days", r)
			}
		case k.grows:
			truth := k.trueDay()
			if r.DaysToLimit == nil || r.DaysToLimitLow == nil || *r.DaysToLimitLow > truth || (r.DaysToLimitHigh != nil && *r.DaysToLimitHigh < truth) {
				t.Errorf("%s: range %s, want it to contain the true day %d", k.name, daysCell(r), truth)
			}
		default:
			if r.DaysToLimit != nil || r.LimitDate != nil {
				t.Errorf("%s: a date (%s), want none for a key that does not grow", k.name, daysCell(r))
			}
		}
	}
	o, twin := byKey["OUTLIER"], byKey["OUTLIER_TWIN"]
	if o.DaysToLimit != nil && twin.DaysToLimit != nil && twin.DaysToLimitHigh != nil {
		shift, width := math.Abs(float64(*o.DaysToLimit-*twin.DaysToLimit)), float64(*twin.DaysToLimitHigh-*twin.DaysToLimitLow)
		if shift > width/3 {
			t.Errorf("the outlier day moved the forecast %v days, more than a third of the range's width %v", shift, width)
		}
	}
}

// windowCollector keeps the windows a pipeline writes.
type windowCollector struct{ reps []report.Report }

func (c *windowCollector) Write(reps []report.Report) error {
	c.reps = append(c.reps, reps...)
	return nil
}
func (c *windowCollector) WriteOnsets([]report.Onset) error { return nil }
func (c *windowCollector) Close([]string) error             { return nil }

// TestForecastFromHistoryTable: the synthetic history's windows, stored in
// a history table on DynamoDB Local as the Lambda stores them, give
// `hotkeys forecast --table` the very forecasts the stream files give.
func TestForecastFromHistoryTable(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "forecast", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	path := writeSynthHistory(t)
	payload, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &options{cfg: detector.DefaultConfig(), partitionKey: "id"}
	o.cfg.PartitionLimit = synthLimit
	var got windowCollector
	p, err := newPipeline("forecast", o, outputOptions{format: "json"}, io.Discard, io.Discard, time.Now, false)
	if err != nil {
		t.Fatal(err)
	}
	p.writeTo(&got, o, time.Now)
	if err := p.feed(path, payload, ""); err != nil {
		t.Fatal(err)
	}
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	stored, err := store.New(api, table, store.Options{WriteShards: 1, Retention: 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range got.reps {
		if err := stored.Put(context.Background(), history.FromReport(rep, "shardId-0", nil)); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.reps) != synthDays {
		t.Fatalf("%d windows, want one a day, %d", len(got.reps), synthDays)
	}
	historyEnv(t)
	to := synthStart.AddDate(0, 0, synthDays).Format(time.RFC3339)
	code, fromTable, errs := hotkeys(t, "", "forecast", "--format", "json", "--partition-limit", fmt.Sprint(synthLimit),
		"--table", table, "--write-shards", "1", "--since", fmt.Sprint(24*synthDays, "h"), "--to", to)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, fromFiles, _ := hotkeys(t, "", "forecast", "--format", "json", "--partition-key", "id", "--partition-limit", fmt.Sprint(synthLimit), path)
	if fromTable != fromFiles {
		t.Errorf("the history table's forecast\n%s\ndiffers from the stream files'\n%s", fromTable, fromFiles)
	}
}

// TestForecastTableWidth: the table output fits --width as the CLI's other
// tables do (100 columns when not a terminal): no line past it, none
// ending in a space, and at 160 columns every column is shown.
func TestForecastTableWidth(t *testing.T) {
	path := writeSynthHistory(t)
	for _, width := range []int{0, 60, 80, 160} {
		args := []string{"forecast", "--partition-key", "id", "--partition-limit", fmt.Sprint(synthLimit)}
		if width > 0 {
			args = append(args, "--width", fmt.Sprint(width))
		}
		args = append(args, path)
		code, out, errs := hotkeys(t, "", args...)
		if code != exitOK {
			t.Fatalf("--width %d: exit %d: %s", width, code, errs)
		}
		limit := cmp.Or(width, defaultWidth)
		for line := range strings.Lines(out) {
			line = strings.TrimSuffix(line, "\n")
			if runes(line) > limit || strings.HasSuffix(line, " ") {
				t.Errorf("--width %d: line of %d columns %q, want at most %d and no trailing space", width, runes(line), line, limit)
			}
		}
		if all := strings.Contains(out, "LAST DAY") && strings.Contains(out, "TREND"); all != (width == 160) {
			t.Errorf("--width %d: every column shown = %v\n%s", width, all, out)
		}
	}
}
