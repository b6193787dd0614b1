package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/maxkeys"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/report"
)

func TestIndexesFromEnv(t *testing.T) {
	for v, want := range map[string]indexMode{"": indexesAuto, "auto": indexesAuto, "on": indexesOn, "off": indexesOff, " ON ": indexesOn} {
		got, err := indexesFromEnv(env("HOTKEYS_INDEXES", v))
		if err != nil || got != want {
			t.Errorf("HOTKEYS_INDEXES=%q: %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []string{"yes", "true", "1", "gsi"} {
		_, err := indexesFromEnv(env("HOTKEYS_INDEXES", v))
		if !errors.Is(err, detector.ErrConfig) || !strings.Contains(err.Error(), "HOTKEYS_INDEXES") || !strings.Contains(err.Error(), "auto") {
			t.Errorf("HOTKEYS_INDEXES=%q: error %v; want one wrapping ErrConfig that names the variable and its values", v, err)
		}
	}
}

// fakeSchemas is a schemaLookup whose answer the test sets, counting calls.
type fakeSchemas struct {
	mu     sync.Mutex
	schema keyschema.Schema
	err    error
	calls  int
}

func (f *fakeSchemas) Lookup(_ context.Context, table string) (keyschema.Schema, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return keyschema.Schema{}, f.err
	}
	s := f.schema
	s.Table = table
	return s, nil
}

// capture is a publisher that keeps the reports and the onsets.
type capture struct {
	reps   []report.Report
	onsets []report.Onset
}

func (c *capture) Publish(_ context.Context, reps []report.Report) (alert.Result, error) {
	c.reps = append(c.reps, reps...)
	return alert.Result{}, nil
}

func (c *capture) PublishOnsets(_ context.Context, onsets []report.Onset) (alert.Result, error) {
	c.onsets = append(c.onsets, onsets...)
	return alert.Result{}, nil
}

// gsiRecord is an INSERT of item pk whose GSI1PK is gsi ("" for none).
func gsiRecord(seq int, pk, gsi string, at time.Time) string {
	img := fmt.Sprintf(`"PK":{"S":%q}`, pk)
	if gsi != "" {
		img += fmt.Sprintf(`,"GSI1PK":{"S":%q}`, gsi)
	}
	return fmt.Sprintf(`{"eventID":"e%d","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:eu-west-1:123456789012:table/Logs/stream/x",`+
		`"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":{"PK":{"S":%q}},"NewImage":{%s},"SequenceNumber":"%021d","SizeBytes":100,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`,
		seq, at.Unix(), pk, img, seq)
}

var gsi1 = []ddb.Index{{Name: "GSI1", PartitionKey: "GSI1PK", Projection: ddb.ProjectKeysOnly}}

// tumblingEvent wraps records in a tumbling-window event over [start,
// start+15m).
func tumblingEvent(records []string, state map[string]string, start time.Time, final bool) []byte {
	st, _ := json.Marshal(state)
	return fmt.Appendf(nil, `{"Records":[%s],"window":{"start":%q,"end":%q},"state":%s,"shardId":"shardId-1","isFinalInvokeForWindow":%t,"isWindowTerminatedEarly":false}`,
		strings.Join(records, ","), start.Format(time.RFC3339), start.Add(15*time.Minute).Format(time.RFC3339), st, final)
}

// TestIndexLookup: how the handler lives with DescribeTable, by mode.
// auto and on analyse the index the lookup gives; off never asks. A failed
// lookup fails the batch only under on and only when a retry can help;
// otherwise the batch is counted without index windows, the failure is
// logged, and the lookup is not tried again for a minute.
func TestIndexLookup(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	batch := []string{gsiRecord(1, "OPS_LOG#2026-11-22", "OPS_LOG", start), gsiRecord(2, "OPS_LOG#2026-11-22", "OPS_LOG", start.Add(time.Second))}
	throttled := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	denied := &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform dynamodb:DescribeTable"}
	for _, tc := range []struct {
		name      string
		mode      indexMode
		err       error
		failBatch bool
		index     bool   // a GSI1 window is reported
		level     string // of the log line about the failure
	}{
		{"auto", indexesAuto, nil, false, true, ""},
		{"on", indexesOn, nil, false, true, ""},
		{"off", indexesOff, nil, false, false, ""},
		{"auto, throttled", indexesAuto, throttled, false, false, "WARN"},
		{"auto, denied", indexesAuto, denied, false, false, "WARN"},
		{"on, throttled", indexesOn, throttled, true, false, ""},
		{"on, network", indexesOn, errors.New("dial tcp: connection refused"), true, false, ""},
		{"on, denied", indexesOn, denied, false, false, "ERROR"},
		{"on, no such table", indexesOn, fmt.Errorf("%w: %q", keyschema.ErrTableNotFound, "Logs"), false, false, "ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := start
			schemas := &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", Indexes: gsi1}, err: tc.err}
			pub := &capture{}
			var logs bytes.Buffer
			h, err := newHandler(detector.DefaultConfig(), "PK", tc.mode, schemas, pub, slog.New(slog.NewJSONHandler(&logs, nil)), func() time.Time { return clock })
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Invoke(context.Background(), tumblingEvent(batch, map[string]string{}, start, true))
			if (err != nil) != tc.failBatch {
				t.Fatalf("Invoke: %v; want the batch failed: %v", err, tc.failBatch)
			}
			if tc.failBatch {
				if !strings.Contains(err.Error(), "HOTKEYS_INDEXES=on") {
					t.Errorf("the batch's error %q does not say why", err)
				}
				return
			}
			var got []string
			for _, r := range pub.reps {
				got = append(got, r.Index)
			}
			want := []string{""}
			if tc.index {
				want = append(want, "GSI1")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("windows reported %q, want %q", got, want)
			}
			if tc.index && (pub.reps[1].WCU != 2 || len(pub.reps[1].TopKeys) != 1 || pub.reps[1].TopKeys[0].Key != "OPS_LOG") {
				t.Errorf("GSI1's window: %+v; want OPS_LOG with 2 WCU", pub.reps[1])
			}
			wantCalls := map[indexMode]int{indexesOff: 0}[tc.mode]
			if tc.mode != indexesOff {
				wantCalls = 1
			}
			if schemas.calls != wantCalls {
				t.Errorf("%d lookups, want %d", schemas.calls, wantCalls)
			}
			if tc.level != "" {
				if !strings.Contains(logs.String(), `"level":"`+tc.level+`","msg":"global secondary indexes could not be read`) {
					t.Errorf("no %s line about the failed lookup in:\n%s", tc.level, logs.String())
				}
				// Within the minute: no new lookup. After it: one.
				clock = clock.Add(59 * time.Second)
				if _, err := h.Invoke(context.Background(), tumblingEvent(batch, map[string]string{}, start, true)); err != nil {
					t.Fatal(err)
				}
				if schemas.calls != 1 {
					t.Errorf("%d lookups 59 s after a failure, want 1", schemas.calls)
				}
				clock = clock.Add(time.Second)
				schemas.err = nil
				pub.reps = nil
				if _, err := h.Invoke(context.Background(), tumblingEvent(batch, map[string]string{}, start, true)); err != nil {
					t.Fatal(err)
				}
				if schemas.calls != 2 || len(pub.reps) != 2 || pub.reps[1].Index != "GSI1" {
					t.Errorf("a minute after the failure: %d lookups and %d windows, want 2 and the table's and GSI1's", schemas.calls, len(pub.reps))
				}
			}
		})
	}
}

// TestIndexesChange: when the table's description changes (UpdateTable
// added a GSI), the next batch is analysed with it, in plain batches too.
func TestIndexesChange(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := start
	schemas := &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK"}}
	pub := &capture{}
	h, err := newHandler(detector.DefaultConfig(), "PK", indexesAuto, schemas, pub, slog.New(slog.NewJSONHandler(io.Discard, nil)), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	plain := func(seq int) {
		t.Helper()
		ev := maxkeys.Event([]string{gsiRecord(seq, "OPS_LOG#2026-11-22", "OPS_LOG", start.Add(time.Duration(seq)*time.Second))})
		if _, err := h.Invoke(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	plain(1)
	schemas.schema.Indexes = gsi1
	plain(2)
	plain(3)
	clock = start.Add(10 * time.Minute) // the window closes by the clock
	if _, err := h.Invoke(context.Background(), []byte(`{"Records":[]}`)); err != nil {
		t.Fatal(err)
	}
	if len(pub.reps) != 2 || pub.reps[0].Index != "" || pub.reps[0].WCU != 3 || pub.reps[1].Index != "GSI1" || pub.reps[1].WCU != 2 {
		t.Fatalf("reports %+v; want the table's 3 WCU and GSI1's 2 (its first write came before it was known)", pub.reps)
	}
}

// TestStateWorstCase: a table with 20 GSIs, every key of the table and of
// every index 2,048 bytes long, many more keys than counters, across ten
// invocations of one tumbling window. The state, as Lambda counts it,
// stays under detector.StateBudget (and so under 1 MB) after every invocation; the
// windows are trimmed and say so; and every bound of every report still
// holds against the exact per-key WCU.
func TestStateWorstCase(t *testing.T) {
	const nIndexes, perBatch, batches = maxIndexes, 48, 10
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var defs []ddb.Index
	for i := range nIndexes {
		name := fmt.Sprintf("GSI%02d", i)
		defs = append(defs, ddb.Index{Name: name, PartitionKey: name, Projection: ddb.ProjectKeysOnly})
	}
	schemas := &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", Indexes: defs}}
	pub := &capture{}
	cfg := detector.DefaultConfig()
	h, err := newHandler(cfg, "PK", indexesAuto, schemas, pub, slog.New(slog.NewJSONHandler(io.Discard, nil)), func() time.Time { return start })
	if err != nil {
		t.Fatal(err)
	}
	long := func(prefix string, n int) string {
		k := fmt.Sprintf("%s:%06d:", prefix, n)
		return k + strings.Repeat("k", maxkeys.MaxBytes-len(k))
	}
	// Skewed draws, so that weights differ and a trim has light keys to
	// drop and heavy ones to keep.
	r := rand.New(rand.NewPCG(1, 2))
	skewed := func(n int) int { u := r.Float64(); return int(float64(n) * u * u * u) }
	truth := map[string]map[string]uint64{} // window ("" or index) -> key -> WCU
	add := func(w, k string, wcu uint64) {
		if truth[w] == nil {
			truth[w] = map[string]uint64{}
		}
		truth[w][k] += wcu
	}
	state := map[string]string{}
	seq := 0
	for b := range batches {
		var recs []string
		for range perBatch {
			seq++
			pk := long("T", skewed(4*cfg.Sketch.Counters))
			img := fmt.Sprintf(`"PK":{"S":%q}`, pk)
			size := 2 + len(pk)
			for _, d := range defs {
				v := long(d.Name, skewed(4*detector.DefaultIndexSketch().Counters))
				img += fmt.Sprintf(`,%q:{"S":%q}`, d.PartitionKey, v)
				size += len(d.PartitionKey) + len(v)
				// KEYS_ONLY: the entry is the table's key and the index's.
				add(d.Name, v, uint64((2+len(pk)+len(d.PartitionKey)+len(v)+1023)/1024))
			}
			at := start.Add(time.Duration(seq%600) * time.Second)
			recs = append(recs, fmt.Sprintf(`{"eventID":"e%d","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:eu-west-1:123456789012:table/Wide/stream/x",`+
				`"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":{"PK":{"S":%q}},"NewImage":{%s},"SequenceNumber":"%021d","SizeBytes":100,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`,
				seq, at.Unix(), pk, img, seq))
			add("", pk, uint64((size+1023)/1024))
		}
		final := b == batches-1
		resp, err := h.Invoke(context.Background(), tumblingEvent(recs, state, start, final))
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ State map[string]string }
		if err := json.Unmarshal(resp, &out); err != nil {
			t.Fatal(err)
		}
		state = out.State
		if final {
			break
		}
		size := 0
		for k, v := range state {
			size += len(k) + len(v)
		}
		if size >= detector.StateBudget || len(state) != nIndexes+2 {
			t.Fatalf("invocation %d: state of %d keys, %d bytes; want %d keys under %d bytes", b, len(state), size, nIndexes+2, detector.StateBudget)
		}
		t.Logf("invocation %d: state %d bytes (%.0f KB) of Lambda's 1 MB", b, size, float64(size)/1024)
	}
	if len(pub.reps) != nIndexes+1 {
		t.Fatalf("%d windows reported, want %d", len(pub.reps), nIndexes+1)
	}
	trimmed := 0
	for _, rep := range pub.reps {
		exact := truth[rep.Index]
		var total uint64
		for _, w := range exact {
			total += w
		}
		if rep.WCU != total {
			t.Errorf("%q: WCU %d, exact %d", rep.Index, rep.WCU, total)
		}
		if rep.Trimmed {
			trimmed++
		}
		t.Logf("%-6q trimmed %-5v WCU %6d, other_keys_wcu_upper %5d (%.1f %% of the window's WCU)",
			rep.Index, rep.Trimmed, rep.WCU, rep.OtherKeysWCUUpper, 100*float64(rep.OtherKeysWCUUpper)/float64(rep.WCU))
		listed := map[string]bool{}
		for _, k := range rep.TopKeys {
			listed[k.Key] = true
			if w := exact[k.Key]; w < k.WCULower || w > k.WCUUpper {
				t.Errorf("%q: key %.20s… bounds [%d, %d], exact %d", rep.Index, k.Key, k.WCULower, k.WCUUpper, w)
			}
		}
		for k, w := range exact {
			if !listed[k] && w > rep.OtherKeysWCUUpper {
				t.Errorf("%q: key %.20s… of %d WCU is not listed, but other_keys_wcu_upper is %d", rep.Index, k, w, rep.OtherKeysWCUUpper)
			}
		}
	}
	if trimmed == 0 {
		t.Error("no window was trimmed: the test does not reach the worst case")
	}
}
