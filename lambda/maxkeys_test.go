package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/maxkeys"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// TestMaximumLengthKeysInTheLambda: keys at DynamoDB's limits cross three
// invocations of one tumbling window (so the window's state carries them
// twice) and come out byte for byte in the findings log, with the
// PartitionKey dimension the alert package derives from each, in the EMF
// lines too.
func TestMaximumLengthKeysInTheLambda(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	records, _ := maxkeys.Records("Orders", start)
	cfg := detector.DefaultConfig()
	cfg.ShareThreshold, cfg.MinWCUPerSecond, cfg.Top = 0.001, 0, 40 // flag every key
	var out bytes.Buffer
	pub, err := alert.NewPublisher(alert.Config{Namespace: "HotKeyDetector", Mode: alert.ModeEMF, Top: 40, StorageResolution: 60}, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(cfg, "pk", indexesOff, keyschema.NewCache(nil), pub, slog.New(slog.NewJSONHandler(io.Discard, nil)), func() time.Time { return start })
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]string{}
	third := len(records) / 3
	for i, part := range [][]string{records[:third], records[third : 2*third], records[2*third:]} {
		ev := map[string]any{
			"Records": json.RawMessage(maxkeys.Event(part)[len(`{"Records":`) : len(maxkeys.Event(part))-1]),
			"window":  map[string]string{"start": start.Format(time.RFC3339), "end": start.Add(time.Minute).Format(time.RFC3339)},
			"state":   state, "shardId": "shardId-1", "isFinalInvokeForWindow": i == 2, "isWindowTerminatedEarly": false,
			"eventSourceARN": "arn:aws:dynamodb:eu-west-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000",
		}
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := h.Invoke(context.Background(), payload)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ State map[string]string }
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatal(err)
		}
		state = r.State
		if i < 2 && len(state["hotkeys.window"]) == 0 {
			t.Fatalf("invocation %d returned no window state", i)
		}
	}

	want := map[string]string{} // key -> dimension
	for _, k := range maxkeys.Keys() {
		want[k.Printed] = alert.DimensionValue(k.Printed)
	}
	logged, emf := map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("output line is not JSON: %v", err)
		}
		if line["msg"] == "hot partition key" {
			logged[line["key"].(string)] = line["dimension"].(string)
		}
		if d, ok := line["PartitionKey"].(string); ok {
			emf[d] = d
		}
	}
	if diff := cmp.Diff(want, logged); diff != "" {
		t.Errorf("findings log: key -> dimension (-want +got):\n%s", diff)
	}
	wantDims := map[string]string{}
	for _, d := range want {
		wantDims[d] = d
	}
	if diff := cmp.Diff(wantDims, emf); diff != "" {
		t.Errorf("EMF PartitionKey dimensions (-want +got):\n%s", diff)
	}
}

// TestStateAtMaximumLengthKeys measures the worst tumbling-window state:
// every heavy-hitter counter holding a 2,048-byte key. Lambda caps state at
// 1 MB per shard, counting the base64 this function stores; docs/limits.md
// quotes the size this test logs.
func TestStateAtMaximumLengthKeys(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := detector.DefaultConfig()
	pub, err := alert.NewPublisher(alert.Config{Namespace: "HotKeyDetector", Mode: alert.ModeOff, Top: 10, StorageResolution: 60}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(cfg, "pk", indexesOff, keyschema.NewCache(nil), pub, slog.New(slog.NewJSONHandler(io.Discard, nil)), func() time.Time { return start })
	if err != nil {
		t.Fatal(err)
	}
	// Four times as many distinct keys as counters, each 2,048 bytes and
	// different from its first byte on, so no counter can hold a short one.
	keys := 4 * cfg.Sketch.Counters
	var recs []string
	for i := range keys {
		v := fmt.Sprintf("%08d", i) + strings.Repeat("k", maxkeys.MaxBytes-8)
		recs = append(recs, maxkeys.Record("Orders", maxkeys.Key{Type: "S", Attr: `{"S":"` + v + `"}`}, i+1, start.Add(time.Duration(i%60)*time.Second)))
	}
	ev := `{"Records":[` + strings.Join(recs, ",") + `],"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:15:00Z"},` +
		`"state":{},"shardId":"shardId-00000001795305600000-4f2a9c1b","isFinalInvokeForWindow":false,"isWindowTerminatedEarly":false}`
	resp, err := h.Invoke(context.Background(), []byte(ev))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ State map[string]string }
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	size := 0
	for k, v := range r.State {
		size += len(k) + len(v)
	}
	t.Logf("state with %d counters of 2,048-byte keys: %d bytes (%.0f KB) of Lambda's 1 MB", cfg.Sketch.Counters, size, float64(size)/1024)
	if size < cfg.Sketch.Counters*maxkeys.MaxBytes || size >= 1<<20 {
		t.Errorf("state is %d bytes: want every counter's key in it (at least %d) and under 1 MB", size, cfg.Sketch.Counters*maxkeys.MaxBytes)
	}
}
