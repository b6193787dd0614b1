package clientwindow_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

// goldenClientReports are client-side windows with every figure a client
// report carries: read-, write-, throttle- and latency-hot keys, typed
// keys, apportioned shares, unattributed and dropped calls; the same
// window redacted; a window of one unattributed call; an empty one.
func goldenClientReports(t *testing.T) []report.ClientReport {
	t.Helper()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := detector.DefaultConfig()
	cfg.Top = 6
	key := func(t ddb.KeyType, v string) ddb.Key { return ddb.Key{Type: t, Value: []byte(v)} }
	window := func(table string, start time.Time) *clientwindow.Window {
		w, err := clientwindow.New(cfg.Sketch, table, start, start.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	w := window("Users", t0)
	celeb := key(ddb.String, "PROFILE#celebrity")
	for i := range 100 {
		w.AddRequest(celeb, t0.Add(time.Second), time.Duration(1+i%3)*time.Millisecond, true, true)
		w.AddCapacity(celeb, t0.Add(time.Second), 60, 0)
	}
	counter := key(ddb.String, "DATE#2026-11-22")
	for range 50 {
		w.AddRequest(counter, t0.Add(2*time.Second), 2*time.Millisecond, true, true)
		w.AddCapacity(counter, t0.Add(2*time.Second), 0, 20)
	}
	w.AddConditionalCheckFailed(counter, t0.Add(2*time.Second))
	hot := key(ddb.String, "USER#7")
	for i := range 4 {
		w.AddRequest(hot, t0.Add(3*time.Second), 30*time.Millisecond, true, true)
		w.AddCapacity(hot, t0.Add(3*time.Second), 1, 1)
		if i < 3 {
			w.AddThrottle(hot, t0.Add(3*time.Second), []string{"TableWriteKeyRangeThroughputExceeded"})
		} else {
			w.AddThrottle(hot, t0.Add(3*time.Second), nil)
		}
	}
	w.AddThrottle(hot, t0.Add(3*time.Second), []string{"TableReadKeyRangeThroughputExceeded", "TableWriteKeyRangeThroughputExceeded"})
	for i, k := range []ddb.Key{key(ddb.String, "ORDER#1"), key(ddb.String, "ORDER#2"), key(ddb.Number, "42"), key(ddb.Binary, "\x00\x01\x02")} {
		w.AddRequest(k, t0.Add(4*time.Second), 0, false, i == 0)
		// A read share and a write share: the apportioned figures and
		// flag the report shows for a key charged its share of both.
		w.AddShare(k, t0.Add(4*time.Second), true, uint64(3+i), 0, 0)
		w.AddShare(k, t0.Add(4*time.Second), false, uint64(2+i), 0, 0)
	}
	for i := range 30 {
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			w.AddRequest(key(ddb.String, "LAT#"+name), t0.Add(5*time.Second), time.Millisecond, true, true)
		}
		d := time.Millisecond
		if i == 29 {
			d = 80 * time.Millisecond
		}
		w.AddRequest(key(ddb.String, "LAT#slow"), t0.Add(5*time.Second), d, true, true)
	}
	w.AddUnattributed(10, 3)
	w.AddThrottledAttempt()
	w.AddDropped(5)
	reps := []report.ClientReport{w.Report(cfg)}

	h, err := redact.New([]byte("pepper, sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	redacted := cfg
	redacted.Redactor = h
	reps = append(reps, w.Report(redacted))

	quiet := window("Quiet", t0.Add(time.Minute))
	quiet.AddUnattributed(1, 0)
	reps = append(reps, quiet.Report(cfg))
	return append(reps, window("Empty", t0.Add(time.Minute)).Report(cfg))
}

// TestClientReportGolden: the client side's reports, as JSON, are byte for
// byte those of the build before the report vocabulary left the detector
// (report/testdata/client.jsonl was written by it).
func TestClientReportGolden(t *testing.T) {
	var got bytes.Buffer
	for _, r := range goldenClientReports(t) {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(append(b, '\n'))
	}
	golden.Equal(t, "../../report/testdata/client.jsonl", got.Bytes())
}
