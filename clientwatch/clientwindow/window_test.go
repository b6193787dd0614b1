package clientwindow

import (
	"encoding/binary"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func skey(s string) ddb.Key { return ddb.Key{Type: ddb.String, Value: []byte(s)} }

// constant is a demand of n units every second.
func constant(n int) func(int) int { return func(int) int { return n } }

func newWindow(t *testing.T) *Window {
	t.Helper()
	w, err := New(detector.DefaultConfig().Sketch, "Users", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLatencyOutlierRule: a key whose p99 is over 10× the median key's p99
// is flagged, provided both have at least 20 samples.
func TestLatencyOutlierRule(t *testing.T) {
	w := newWindow(t)
	for i := range 30 {
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			w.AddRequest(skey(k), t0, time.Millisecond, true, true)
		}
		// slow: 29 fast calls and one of 50 ms: its p99 is that call.
		d := time.Millisecond
		if i == 29 {
			d = 50 * time.Millisecond
		}
		w.AddRequest(skey("slow"), t0, d, true, true)
		if i < 19 { // few: 19 slow samples, under the rule's 20
			w.AddRequest(skey("few"), t0, 200*time.Millisecond, true, true)
		}
	}
	rep := w.Report(detector.DefaultConfig())
	var flagged []string
	for _, k := range rep.HotKeys {
		flagged = append(flagged, k.Key)
		if k.Key == "slow" {
			// 1 ms lands in the bucket [7, 8) × 2^17 ns, 50 ms in [5, 6) × 2^23 ns.
			if k.LatencyP50Ms != 1.048576 || k.LatencyP99Ms != 50.331648 || k.MedianKeyP99Ms != 1.048576 || !k.LatencyOutlier ||
				!strings.Contains(k.Diagnosis, "over 10× the median key's p99") {
				t.Errorf("slow: %+v", k)
			}
		}
	}
	if diff := cmp.Diff([]string{"slow"}, flagged); diff != "" {
		t.Errorf("flagged (-want +got):\n%s", diff)
	}
}

func TestLatencyBuckets(t *testing.T) {
	for _, d := range []time.Duration{2 * time.Microsecond, 1500 * time.Microsecond, time.Millisecond, 123 * time.Millisecond, 3 * time.Second} {
		b := latencyBucket(d)
		up := latencyUpper(b)
		if d >= up || float64(up) > float64(d)*1.19+1 {
			t.Errorf("%v: bucket %d upper edge %v: want just above", d, b, up)
		}
		if b > 0 && latencyUpper(b-1) > d {
			t.Errorf("%v: bucket %d, but the one below ends at %v", d, b, latencyUpper(b-1))
		}
	}
	if latencyBucket(time.Nanosecond) != 0 || latencyBucket(time.Hour) != latencyBuckets-1 {
		t.Error("out-of-range durations are not clamped")
	}
}

// TestClientReportRedacted: with hash redaction no raw key appears
// anywhere in the report's JSON, diagnosis included.
func TestClientReportRedacted(t *testing.T) {
	w := newWindow(t)
	for range 100 {
		w.AddRequest(skey("alice@example.com"), t0, time.Millisecond, true, true)
		w.AddCapacity(skey("alice@example.com"), t0, 2000, 900)
		w.AddThrottle(skey("alice@example.com"), t0, []string{"TableReadKeyRangeThroughputExceeded"})
	}
	cfg := detector.DefaultConfig()
	h, err := redact.New([]byte("pepper, sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Redactor = h
	rep := w.Report(cfg)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "alice") || len(rep.HotKeys) != 1 || rep.HotKeys[0].Key != h.Key('S', []byte("alice@example.com")) {
		t.Errorf("redacted report: %s", b)
	}
	if got := rep.HotKeys[0].HotFor; !cmp.Equal(got, []report.Cause{report.CauseReads, report.CauseWrites, report.CauseThrottling}) {
		t.Errorf("hot for %v", got)
	}
}

// TestMaxBytes: a window fed every kind of figure for more
// distinct keys than its sketches track (their worst case: every counter
// holding a key of the longest length, the exact sets grown to their
// largest then dense HyperLogLogs, the latency table and the throttling
// reasons full) holds no more heap than MaxBytes says, and not
// much less: the bound is what a watcher's memory cap is built on.
func TestMaxBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills windows")
	}
	cfg := detector.DefaultConfig().Sketch
	for _, keyLen := range []int{8, 48, 100, sketch.MaxKeyLen} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w, err := New(cfg, "Users", t0, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		value := make([]byte, keyLen-1) // a typed key is one byte longer
		for i := range 6000 {
			binary.BigEndian.PutUint32(value[max(len(value)-4, 0):], uint32(i))
			k := ddb.Key{Type: ddb.Binary, Value: value}
			at := t0.Add(time.Duration(i%60) * time.Second)
			w.AddRequest(k, at, time.Duration(i)*time.Microsecond, true, true)
			w.AddCapacity(k, at, uint64(1+i%7), uint64(1+i%5))
			w.AddShare(k, at, i%2 == 0, 3, 1, 2)
			w.AddShare(k, at, i%2 == 1, 3, 1, 2)
			w.AddKeyThrottle(k, at, []string{"TableReadKeyRangeThroughputExceeded", "Reason" + strconv.Itoa(i%3)})
			w.AddUnprocessed(k, at, 1)
			w.AddConditionalCheckFailed(k, at)
			if i < 600 { // ten keys a second at both saturation levels: past detector.MaxWatchedKeys
				w.AddCapacity(k, at, 5400, 900)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := int(after.HeapAlloc) - int(before.HeapAlloc)
		bound := MaxBytes(cfg, keyLen)
		t.Logf("keys of %d bytes: a full window holds %d KB, MaxBytes says %d KB", keyLen, held/1024, bound/1024)
		if held > bound || bound > 2*held {
			t.Errorf("keys of %d bytes: a full window holds %d bytes; MaxBytes %d, want within [held, 2 × held]", keyLen, held, bound)
		}
		runtime.KeepAlive(w)
	}
}
