package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
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
