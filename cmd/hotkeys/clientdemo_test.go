package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestClientDemoOnDynamoDBLocal runs the client demo end to end. How hot
// the keys run depends on the machine's speed, so the test checks what
// does not: every call counted, the capacity totals, and which key carries
// the reads and which the writes. The demo runs on the wall clock, so a
// 15-minute boundary may fall inside the run: the totals are summed over
// windows, and each heaviest key leads by far in any part of the run
// (half the calls read a 40 KB item, a quarter update the counter, whose
// ~100 WCU beat the 40 of the celebrity's one seeding write).
func TestClientDemoOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"client-demo", "--endpoint", ep, "--calls", "400", "--format", "json", "--window", "15m"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc struct{ Windows []report.ClientReport } // each refuses any but a client's report
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	var requests uint64
	var rcu float64
	heaviest := map[string]string{}
	var maxRCU, maxWCU float64
	for _, r := range doc.Windows {
		if !strings.HasPrefix(r.Table, "hotkeys-client-demo-") {
			t.Errorf("report of %q", r.Table)
		}
		requests += r.Requests
		rcu += r.RCU
		for _, k := range r.TopKeys {
			if k.RCU > maxRCU {
				maxRCU, heaviest["reads"] = k.RCU, k.Key
			}
			if float64(k.WCU) > maxWCU {
				maxWCU, heaviest["writes"] = float64(k.WCU), k.Key
			}
		}
	}
	if requests != 400+52 || rcu == 0 {
		t.Errorf("%d calls counted (want 400 and 52 seeding writes), %g RCU", requests, rcu)
	}
	if heaviest["reads"] != "PROFILE#celebrity" || heaviest["writes"] != "COUNTER#page-views" {
		t.Errorf("heaviest keys %v", heaviest)
	}
}

func TestClientDemoNeedsEndpoint(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"client-demo"}, nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--endpoint: required") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// TestClientDemoRefusesStreamFlags: the flags about a stream's table would
// do nothing in client-demo (it makes its own table and reads no stream):
// they are refused, not ignored.
func TestClientDemoRefusesStreamFlags(t *testing.T) {
	for _, flag := range []string{"--heatmap", "--indexes", "--describe-table", "--partition-key"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"client-demo", "--endpoint", "http://127.0.0.1:1", flag, "x"}, nil, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "flag provided but not defined: "+flag[1:]) {
			t.Errorf("%s: exit %d: %s", flag, code, stderr.String())
		}
	}
}

// TestClientTable: a client report prints as a table of its own, with the
// reads, the throttles and the diagnosis.
func TestClientTable(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w, err := clientwindow.New(detector.DefaultConfig().Sketch, "Users", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		k := ddb.Key{Type: ddb.String, Value: []byte("PROFILE#celebrity")}
		w.AddRequest(k, start, 3*time.Millisecond, true, true)
		w.AddCapacity(k, start, 80, 0)
		w.AddThrottle(k, start, []string{"TableReadKeyRangeThroughputExceeded"})
	}
	w.AddUnattributed(3, 0)
	var out bytes.Buffer
	if err := newClientReportWriter("table", &out, defaultWidth).Write([]report.ClientReport{w.Report(detector.DefaultConfig())}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from the client", "calls 101   RCU 4,001.5   WCU 0   throttled attempts 100",
		"unattributed calls 1 (RCU 1.5", "critical  PROFILE#celebrity  reads,throttling  4,000  4,000", "DAX", "The reads are throttled"} {
		if !strings.Contains(flat(out.String()), flat(want)) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestClientDemoEstimatingOnDynamoDBLocal: --estimate-capacity runs the
// demo without asking DynamoDB for capacity; the report says so, and its
// figures are still the workload's: the celebrity's strongly consistent
// reads of 40 KB are 10 RCU each however they are counted.
func TestClientDemoEstimatingOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"client-demo", "--endpoint", ep, "--calls", "200", "--format", "json", "--window", "15m", "--estimate-capacity"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc struct{ Windows []report.ClientReport }
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	var requests, celebrity uint64
	var celebrityRCU float64
	for _, r := range doc.Windows {
		if !r.CapacityEstimated {
			t.Errorf("window %s: capacity_estimated not set", r.Start)
		}
		requests += r.Requests
		for _, k := range r.TopKeys {
			if k.Key == "PROFILE#celebrity" {
				celebrity += k.Requests
				celebrityRCU += k.RCU
			}
		}
	}
	// The celebrity's calls: one seeding put (40 WCU), then reads of 10 RCU.
	if requests != 200+52 || celebrity < 2 || celebrityRCU != 10*float64(celebrity-1) {
		t.Errorf("%d calls (want 252); the celebrity %d calls, %g RCU: want 10 a read", requests, celebrity, celebrityRCU)
	}
}

// TestClientTableSaysWhatItCounts: a client window's table names its
// index, its unprocessed batch items and internal errors, and says when
// its capacity is estimated.
func TestClientTableSaysWhatItCounts(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w, err := clientwindow.NewIndex(detector.DefaultConfig().Sketch, "Users", "byEmail", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	k := ddb.Key{Type: ddb.String, Value: []byte("a@example.com")}
	w.SetEstimated()
	w.AddRequest(k, start, time.Millisecond, true, true)
	w.AddCapacity(k, start, 3, 0)
	w.AddUnprocessed(k, start, 2)
	w.AddInternalErrors(1)
	rep := w.Report(detector.DefaultConfig())
	var b strings.Builder
	clientTable(&b, &rep, defaultWidth)
	for _, want := range []string{
		"── Users · index byEmail · 2026-11-23 12:00:00",
		"unprocessed batch items 2 (DynamoDB throttling part of a batch)   internal errors 1\n",
		"RCU and WCU estimated from item sizes (lower bounds)",
		"1.5 (estimated)",
		"left 2 of its batch items unprocessed",
	} {
		if !strings.Contains(flat(b.String()), flat(want)) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
