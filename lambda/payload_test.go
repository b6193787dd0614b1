package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Timestamps of the samples are moved to the recent past before posting,
// by a whole number of hours so that window alignment is kept. CloudWatch
// rejects datapoints more than two weeks old, and samples dated 2026-11-22
// must keep testing the API path whenever the test runs.
var (
	creationTimeRE = regexp.MustCompile(`"ApproximateCreationDateTime":(\d+)(\.\d+)?`)
	windowTimeRE   = regexp.MustCompile(`"(start|end)": "([0-9T:Z-]+)"`)
)

// recentShift is the whole number of hours that moves t0 to between one
// and two hours ago: old enough for a plain batch's window to close at
// once, young enough for CloudWatch. The outcome cannot depend on when the
// test runs: the windows keep their alignment, a plain batch's window
// closes by the clock a window plus the lateness (2 min) after its end (an
// hour of margin), CloudWatch takes two weeks (13 days of margin), and the
// shift is computed once per test, so a boundary crossed while it runs
// changes nothing.
func recentShift() time.Duration {
	h := math.Floor(time.Since(t0).Hours())
	return time.Duration(h-1) * time.Hour
}

func shiftEvent(payload []byte, by time.Duration) []byte {
	secs := int64(by / time.Second)
	out := creationTimeRE.ReplaceAllFunc(payload, func(m []byte) []byte {
		sub := creationTimeRE.FindSubmatch(m)
		n, err := strconv.ParseInt(string(sub[1]), 10, 64)
		if err != nil {
			panic(err)
		}
		return fmt.Appendf(nil, `"ApproximateCreationDateTime":%d%s`, n+secs, sub[2])
	})
	return windowTimeRE.ReplaceAllFunc(out, func(m []byte) []byte {
		sub := windowTimeRE.FindSubmatch(m)
		ts, err := time.Parse(time.RFC3339, string(sub[2]))
		if err != nil {
			panic(err)
		}
		return fmt.Appendf(nil, `"%s": %q`, sub[1], ts.Add(by).UTC().Format(time.RFC3339))
	})
}

// readSample reads a file of events/.
func readSample(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(eventsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withState returns the tumbling event with its state replaced, as the
// event source mapping passes the previous response's state on.
func withState(t testing.TB, payload []byte, state map[string]string) []byte {
	t.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	ev["state"] = b
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withFlags sets isFinalInvokeForWindow and isWindowTerminatedEarly.
func withFlags(t testing.TB, payload []byte, final, early bool) []byte {
	t.Helper()
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev["isFinalInvokeForWindow"] = json.RawMessage(strconv.FormatBool(final))
	ev["isWindowTerminatedEarly"] = json.RawMessage(strconv.FormatBool(early))
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// joinRecords returns the envelope of the last event with the records of
// all of them: one big batch.
func joinRecords(t testing.TB, events ...[]byte) []byte {
	t.Helper()
	var all []json.RawMessage
	var ev map[string]json.RawMessage
	for _, p := range events {
		ev = nil
		if err := json.Unmarshal(p, &ev); err != nil {
			t.Fatal(err)
		}
		var recs []json.RawMessage
		if err := json.Unmarshal(ev["Records"], &recs); err != nil {
			t.Fatal(err)
		}
		all = append(all, recs...)
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	ev["Records"] = b
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tumblingResponse decodes a DynamoDBTimeWindowEventResponse and checks
// what Lambda requires of it: a state object (never null) and a failure
// list that is empty (or null) for a batch that succeeded.
func tumblingResponse(t testing.TB, resp []byte) map[string]string {
	t.Helper()
	var r struct {
		State    *map[string]string `json:"state"`
		Failures []struct {
			ItemIdentifier string `json:"itemIdentifier"`
		} `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("tumbling response %s: %v", resp, err)
	}
	if r.State == nil || *r.State == nil {
		t.Fatalf("tumbling response %s: state is missing or null; Lambda fails the invocation", resp)
	}
	if len(r.Failures) != 0 {
		t.Fatalf("tumbling response reports batch item failures: %s", resp)
	}
	return *r.State
}

func plainResponse(t testing.TB, resp []byte) {
	t.Helper()
	var r struct {
		Failures *[]json.RawMessage `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("response %s: %v", resp, err)
	}
	if r.Failures != nil && len(*r.Failures) != 0 {
		t.Fatalf("response reports batch item failures: %s", resp)
	}
}
