package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// tumblingHandler is a handler of table Logs (partition key PK, index
// GSI1) whose JSON log lines go to logs.
func tumblingHandler(t *testing.T, pub *capture, logs *bytes.Buffer, now time.Time) *handler {
	t.Helper()
	h, err := newHandler(detector.DefaultConfig(), "PK", indexesAuto, &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", Indexes: gsi1}},
		pub, slog.New(slog.NewJSONHandler(logs, nil)), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// logged returns the log lines whose msg starts with msg.
func logged(logs *bytes.Buffer, msg string) []map[string]any {
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && strings.HasPrefix(m["msg"].(string), msg) {
			out = append(out, m)
		}
	}
	return out
}

// TestUnreadableStateRestartsTheWindow: a state the function cannot read
// (here damaged; in production, written by a deploy with other sketch
// sizes) never fails the batch: the window restarts from this batch, says
// so at ERROR, and counts every record of it, the state's last sequence
// number included, since the records it covered are no longer counted.
func TestUnreadableStateRestartsTheWindow(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	pub, logs := &capture{}, &bytes.Buffer{}
	h := tumblingHandler(t, pub, logs, start)
	var recs []string
	for i := range 5 {
		recs = append(recs, gsiRecord(i+1, "A", "X", start.Add(time.Duration(i)*time.Second)))
	}
	resp, err := h.Invoke(context.Background(), tumblingEvent(recs[:3], map[string]string{}, start, false))
	if err != nil {
		t.Fatal(err)
	}
	state := tumblingResponse(t, resp)
	if state["hotkeys.last_seq"] != "000000000000000000003" || state["hotkeys.window"] == "" || state["hotkeys.index.0"] == "" {
		t.Fatalf("state after the first batch: %v", state)
	}
	w := []byte(state["hotkeys.window"])
	w[len(w)/2] ^= 'A' ^ 'B' // still base64, no longer the window
	state["hotkeys.window"] = string(w)

	resp, err = h.Invoke(context.Background(), tumblingEvent(recs[1:], state, start, true))
	if err != nil {
		t.Fatal(err)
	}
	tumblingResponse(t, resp)
	if lines := logged(logs, "tumbling-window state unreadable"); len(lines) != 1 || lines[0]["level"] != "ERROR" || lines[0]["shard"] != "shardId-1" {
		t.Errorf("log lines about the state: %v\n%s", lines, logs)
	}
	got := map[string]uint64{}
	for _, r := range pub.reps {
		got[r.Index] = r.Records
	}
	if want := map[string]uint64{"": 4, "GSI1": 4}; !maps.Equal(got, want) {
		t.Errorf("records by window %v, want %v: the second batch's four", got, want)
	}
}

// TestTumblingBatchOfNoTable: a tumbling batch whose records all fail
// before naming a table (no eventSourceARN anywhere) has no window to
// count them in: it succeeds with an empty state, and a WARN line counts
// what no window's metrics will.
func TestTumblingBatchOfNoTable(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	pub, logs := &capture{}, &bytes.Buffer{}
	h := tumblingHandler(t, pub, logs, start)
	bad := []string{`{"eventID":"bad-1","dynamodb":{}}`, `{"eventID":"bad-2"}`}
	resp, err := h.Invoke(context.Background(), tumblingEvent(bad, map[string]string{}, start, true))
	if err != nil {
		t.Fatal(err)
	}
	if state := tumblingResponse(t, resp); len(state) != 0 || len(pub.reps) != 0 {
		t.Errorf("state %v, reports %v; want neither", state, pub.reps)
	}
	lines := logged(logs, "batch names no table")
	if len(lines) != 1 || lines[0]["level"] != "WARN" || lines[0]["malformed"] != 2.0 || lines[0]["internal_errors"] != 0.0 {
		t.Errorf("log lines about the batch: %v\n%s", lines, logs)
	}
}
