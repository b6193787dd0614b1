package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// TestPanicIsAnInternalErrorNotMalformedInput: a bug of ours while handling
// a record (here the clock, which a record without a time needs, panics) is
// recovered so the shard keeps moving, logged at ERROR with its stack, and
// counted in InternalErrors, never in MalformedRecords: the table's data
// did nothing wrong. The records around it are counted as usual.
func TestPanicIsAnInternalErrorNotMalformedInput(t *testing.T) {
	record := func(pk string, at string) string {
		return `{"eventID":"id-` + pk + `","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/Orders/stream/x",` +
			`"dynamodb":{"Keys":{"PK":{"S":"` + pk + `"}},"NewImage":{"PK":{"S":"` + pk + `"}},` +
			`"StreamViewType":"NEW_AND_OLD_IMAGES","SequenceNumber":"` + fmt.Sprint(len(pk)) + `"` + at + `}}`
	}
	// No time on the first record: the clock is asked, and panics.
	records := record("BUG", "") + "," + record("OK1", `,"ApproximateCreationDateTime":1795341630`) + "," +
		record("OK22", `,"ApproximateCreationDateTime":1795341631`)
	// The clock panics the first time only: the plain batch's window is
	// then closed by the clock, ten minutes on.
	calls := 0
	panicky := func() time.Time {
		if calls++; calls == 1 {
			panic("clock bug")
		}
		return time.Unix(1795341600, 0).Add(10 * time.Minute)
	}

	for _, tumbling := range []bool{true, false} {
		t.Run(fmt.Sprintf("tumbling=%v", tumbling), func(t *testing.T) {
			calls = 0
			var out, logs bytes.Buffer
			pub, err := alert.NewPublisher(alert.Config{Namespace: "HotKeyDetector", Mode: alert.ModeEMF, Top: 10, StorageResolution: 60}, nil, &out)
			if err != nil {
				t.Fatal(err)
			}
			h, err := newHandler(detector.DefaultConfig(), "PK", indexesOff, keyschema.NewCache(nil), pub, slog.New(slog.NewJSONHandler(&logs, nil)), panicky)
			if err != nil {
				t.Fatal(err)
			}
			payload := `{"Records":[` + records + `]}`
			if tumbling {
				payload = `{"Records":[` + records + `],"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},` +
					`"state":{},"shardId":"shard-1","eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/Orders/stream/x",` +
					`"isFinalInvokeForWindow":true,"isWindowTerminatedEarly":false}`
			}
			if _, err := h.Invoke(context.Background(), []byte(payload)); err != nil {
				t.Fatalf("the batch failed: %v", err)
			}
			got := map[string]float64{}
			sc := bufio.NewScanner(&out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var line map[string]any
				if json.Unmarshal(sc.Bytes(), &line) != nil || line["_aws"] == nil || line["PartitionKey"] != nil {
					continue
				}
				for _, m := range []string{"StreamRecords", "MalformedRecords", "InternalErrors"} {
					got[m] += line[m].(float64)
				}
			}
			want := map[string]float64{"StreamRecords": 2, "MalformedRecords": 0, "InternalErrors": 1}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("published %v, want %v", got, want)
			}
			var logged map[string]any
			for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil && strings.HasPrefix(fmt.Sprint(m["msg"]), "internal error") {
					logged = m
				}
			}
			if logged == nil || logged["level"] != "ERROR" || logged["event_id"] != "id-BUG" ||
				!strings.Contains(fmt.Sprint(logged["stack"]), "panic") || !strings.Contains(fmt.Sprint(logged["error"]), "clock bug") {
				t.Errorf("internal-error log line %v; all logs:\n%s", logged, logs.String())
			}
			if strings.Contains(logs.String(), "malformed") {
				t.Errorf("the bug was logged as malformed input:\n%s", logs.String())
			}
		})
	}
}

// panickyFeed is the handler's Feed with a bug: it panics, before handing
// over anything, on a batch that holds "PANIC", as a decoder bug would
// midway through the Records.
type panickyFeed struct{ feeder }

func (p panickyFeed) Decode(payload []byte, sink detector.Sink, h detector.Hooks) (detector.Counts, error) {
	if bytes.Contains(payload, []byte(`"PANIC`)) {
		panic("decoder bug")
	}
	return p.feeder.Decode(payload, sink, h)
}

// panickyProbe is the handler's probe with a bug.
type panickyProbe struct{}

func (panickyProbe) FirstTable([]byte) string { panic("probe bug") }

// TestDecoderPanicKeepsTheWindow: a panic of the decoder itself leaves the
// whole batch unread. The batch still succeeds; a tumbling window keeps
// its state (an answer without one fails the invocation, and Lambda would
// retry the same batch into the same bug), and every record of the batch
// is counted in InternalErrors of its table, in plain batches too. A panic
// of the probe that finds the batch's table is no worse: the batch is
// counted, without a lookup.
func TestDecoderPanicKeepsTheWindow(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	good := []string{gsiRecord(1, "A", "X", start), gsiRecord(2, "B", "X", start.Add(time.Second)), gsiRecord(3, "C", "", start.Add(2*time.Second))}
	bad := []string{gsiRecord(4, "PANIC", "X", start.Add(3*time.Second)), gsiRecord(5, "D", "X", start.Add(4*time.Second))}
	type counts struct{ records, internal, malformed uint64 }
	for _, tumbling := range []bool{true, false} {
		t.Run(fmt.Sprintf("tumbling=%v", tumbling), func(t *testing.T) {
			pub := &capture{}
			var logs bytes.Buffer
			clock := start.Add(time.Minute)
			h, err := newHandler(detector.DefaultConfig(), "PK", indexesAuto, &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", Indexes: gsi1}},
				pub, slog.New(slog.NewJSONHandler(&logs, nil)), func() time.Time { return clock })
			if err != nil {
				t.Fatal(err)
			}
			h.feed = panickyFeed{h.feed}
			invoke := func(payload []byte) []byte {
				t.Helper()
				resp, err := h.Invoke(context.Background(), payload)
				if err != nil {
					t.Fatalf("the batch failed: %v", err)
				}
				return resp
			}
			if tumbling {
				state := tumblingResponse(t, invoke(tumblingEvent(good, map[string]string{}, start, false)))
				state = tumblingResponse(t, invoke(tumblingEvent(bad, state, start, false)))
				h.probe = panickyProbe{}
				tumblingResponse(t, invoke(tumblingEvent(nil, state, start, true)))
			} else {
				plainResponse(t, invoke(fmt.Appendf(nil, `{"Records":[%s]}`, strings.Join(good, ","))))
				plainResponse(t, invoke(fmt.Appendf(nil, `{"Records":[%s]}`, strings.Join(bad, ","))))
				h.probe = panickyProbe{}
				clock = start.Add(time.Hour) // the window closes by the clock
				plainResponse(t, invoke([]byte(`{"Records":[]}`)))
			}
			got := map[string]counts{}
			for _, r := range pub.reps {
				got[r.Table+"/"+r.Index] = counts{r.Records, r.InternalErrors, r.Malformed}
			}
			want := map[string]counts{"Logs/": {3, 2, 0}, "Logs/GSI1": {2, 0, 0}}
			if !maps.Equal(got, want) {
				t.Errorf("reported %v, want %v", got, want)
			}
			for _, bug := range []string{"decoder bug", "probe bug"} {
				if !strings.Contains(logs.String(), `"level":"ERROR","msg":"internal error: a bug in hotkeys`) || !strings.Contains(logs.String(), bug) {
					t.Errorf("no internal-error line for the %s in:\n%s", bug, logs.String())
				}
			}
		})
	}
}

// TestIndexWindowsTerminatedEarly: when Lambda ends a window early, the
// index windows are reported as ended early too.
func TestIndexWindowsTerminatedEarly(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	pub := &capture{}
	h, err := newHandler(detector.DefaultConfig(), "PK", indexesAuto, &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", Indexes: gsi1}},
		pub, slog.New(slog.DiscardHandler), func() time.Time { return start })
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Replace(tumblingEvent([]string{gsiRecord(1, "A", "X", start)}, map[string]string{}, start, true),
		[]byte(`"isWindowTerminatedEarly":false`), []byte(`"isWindowTerminatedEarly":true`), 1)
	if _, err := h.Invoke(context.Background(), payload); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range pub.reps {
		got[r.Index] = r.TerminatedEarly
	}
	if want := map[string]bool{"": true, "GSI1": true}; !maps.Equal(got, want) {
		t.Errorf("terminated early by window: %v, want %v", got, want)
	}
}
