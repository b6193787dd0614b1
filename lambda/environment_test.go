package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
)

// TestEMFMode: HOTKEYS_METRICS=emf writes the same metrics as EMF lines on
// stdout, and makes no API call.
func TestEMFMode(t *testing.T) {
	s := sampleByFile("hot-key-ops-log.json")
	runSample(t, s, map[string]string{"HOTKEYS_METRICS": "emf"}, func(t *testing.T, f *function, w windowCheck) {
		if n := f.cw.Attempts(); n != 0 {
			t.Errorf("emf mode made %d CloudWatch requests", n)
		}
		lines := f.lines(t)
		checkWindow(t, w, fromEMF(t, lines), findings(lines))
	})
}

// TestCloudWatchDown: when PutMetricData keeps failing (HTTP 500), the
// client retries, then the metrics go out as EMF and the invocation
// succeeds.
func TestCloudWatchDown(t *testing.T) {
	s := sampleByFile("uneven-shards.json")
	runSample(t, s, nil, func(t *testing.T, f *function, w windowCheck) {
		lines := f.lines(t)
		if n := f.cw.Attempts(); n < 2 {
			t.Errorf("%d CloudWatch attempts: the SDK's retryer should have retried", n)
		}
		if len(f.cw.Data()) != 0 {
			t.Errorf("CloudWatch accepted data while failing every request")
		}
		checkWindow(t, w, fromEMF(t, lines), findings(lines))
		logged := false
		for _, l := range lines {
			logged = logged || (l.str("msg") == "cloudwatch PutMetricData failed" && l.str("error_code") == "InternalServiceFault")
		}
		if !logged {
			t.Error("the failed PutMetricData is not logged with its error code")
		}
	}, func(f *function) { f.cw.FailAll(fakecloudwatch.InternalError) })
}

// TestKeyRedaction: with HOTKEYS_KEY_REDACTION=hash no partition key of the
// batch appears in stdout, stderr or anything sent to CloudWatch, and the
// stand-ins are stable from one cold start to the next.
func TestKeyRedaction(t *testing.T) {
	env := redactionEnv
	dims := map[string][]string{}
	for _, file := range []string{"uneven-shards.json", "hot-key-ops-log.json", "malformed-record.json", "hot-key-ops-log.json"} {
		s := sampleByFile(file)
		runSample(t, s, env, func(t *testing.T, f *function, w windowCheck) {
			w.redacted = true
			lines := f.lines(t)
			checkWindow(t, w, fromCloudWatch(t, f.cw), findings(lines))
			var sent strings.Builder
			var keyDims []string
			for _, d := range f.cw.Data() {
				for _, dim := range d.Dimensions {
					sent.WriteString(dim.Value + "\n")
				}
				if k := d.Dimension("PartitionKey"); k != "" && d.MetricName == "KeyWriteCapacityUnits" {
					keyDims = append(keyDims, k)
				}
			}
			out := f.output() + sent.String()
			for _, key := range append(w.truth.keysOf(), "ORDERS", testSecret) {
				if strings.Contains(out, key) {
					t.Errorf("partition key %q appears in the output", key)
				}
			}
			if prev, ok := dims[file]; ok && strings.Join(prev, ",") != strings.Join(keyDims, ",") {
				t.Errorf("redacted keys changed between cold starts: %v then %v", prev, keyDims)
			}
			dims[file] = keyDims
		})
	}
}

// runSample runs one sample file through a fresh function with extra env,
// then hands the window's check to fn. setup runs before the invocation.
func runSample(t *testing.T, s *sample, env map[string]string, fn func(*testing.T, *function, windowCheck), setup ...func(*function)) {
	t.Helper()
	t.Run(s.File, func(t *testing.T) {
		shift := recentShift()
		raw := readSample(t, s.File)
		tr, err := analyse(s.PKName, raw)
		if err != nil {
			t.Fatal(err)
		}
		all := map[string]string{}
		for k, v := range s.Env {
			all[k] = v
		}
		for k, v := range env {
			all[k] = v
		}
		f := startFunction(t, all)
		for _, s := range setup {
			s(f)
		}
		resp := f.invoke(t, shiftEvent(raw, shift))
		if s.Shape == plainBatch {
			plainResponse(t, resp)
		} else {
			tumblingResponse(t, resp)
		}
		fn(t, f, windowCheck{table: s.Table, start: s.Window.Add(shift), want: s.Want, truth: tr, shard: s.Shard != ""})
	})
}

// TestBadEnvironment: a bad value stops the cold start, with a message
// naming the variable. Under the RIE, as in Lambda, the cold start happens
// at the first invocation, which fails (TestRIEInitError shows the shape).
func TestBadEnvironment(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"HOTKEYS_SHARE_THRESHOLD", "abc"},
		{"HOTKEYS_SHARE_THRESHOLD", "1.5"},
		{"HOTKEYS_WINDOW", "soon"},
		{"HOTKEYS_WINDOW", "2h"},
		{"HOTKEYS_MIN_WCU_PER_SECOND", "-5"},
		{"HOTKEYS_TOP", "ten"},
		{"HOTKEYS_METRICS", "cloudwatch"},
		{"HOTKEYS_KEY_REDACTION", "sha1"},
		{"HOTKEYS_NAMESPACE", "AWS/DynamoDB"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Parallel()
			f := startFunction(t, map[string]string{tc.name: tc.value})
			resp, err := f.invokeRaw([]byte(`{"Records":[]}`))
			if err != nil || !errors.Is(resp.Err(), rie.ErrInitFailed) {
				t.Fatalf("invocation: %d %q, %v, %v; want the cold start to fail", resp.Status, resp.Body, resp.Err(), err)
			}
			if line := initErrorLine(f.output()); !strings.Contains(line, tc.name) {
				t.Errorf("the cold start's error does not name %s: %q", tc.name, f.output())
			}
		})
	}
}

// initErrorLine returns the line the function writes to stderr when its
// cold start fails, or "" when that line, or the ERROR log line that goes
// with it, is missing.
func initErrorLine(output string) string {
	if !strings.Contains(output, `"level":"ERROR","msg":"configuration error"`) {
		return ""
	}
	for _, line := range strings.Split(output, "\n") {
		if strings.HasPrefix(line, "hotkeys: ") {
			return line
		}
	}
	return ""
}

// TestDescribeTableLookup: Keys hold a partition and a sort key and
// HOTKEYS_PARTITION_KEY is unset, so the function asks DescribeTable, here
// of DynamoDB Local, which attribute is the partition key. A table it
// cannot describe fails the invocation (a retry can help) without killing
// the function.
func TestDescribeTableLookup(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	endpoint := dynamodblocal.Endpoint(t)
	s := sampleByFile("describe-table-lookup.json")
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "CustomerOrders", HashKey: "customerId", RangeKey: "createdAt"})
	shift := recentShift()
	raw := readSample(t, s.File)
	tr, err := analyse(s.PKName, raw)
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(strings.ReplaceAll(string(shiftEvent(raw, shift)), "table/CustomerOrders/", "table/"+table+"/"))
	missing := []byte(strings.ReplaceAll(string(shiftEvent(raw, shift)), "table/CustomerOrders/", "table/NoSuchTable-"+table+"/"))

	f := startFunction(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "HOTKEYS_PARTITION_KEY": ""})
	resp, err := f.invokeRaw(missing)
	var fe *rie.FunctionError
	if err != nil || resp.Status != 200 || !errors.As(resp.Err(), &fe) || !strings.Contains(fe.Message, "HOTKEYS_PARTITION_KEY") {
		t.Errorf("a table DescribeTable cannot find: %d %s, %v; want a function error (status 200: the function lives on) that names HOTKEYS_PARTITION_KEY", resp.Status, resp.Body, err)
	}
	pid, err := f.em.BootstrapPID()
	if err != nil {
		t.Fatal(err)
	}
	tumblingResponse(t, f.invoke(t, payload))
	if again, err := f.em.BootstrapPID(); err != nil || again != pid {
		t.Errorf("the bootstrap was %d before, %d (%v) after: the failed invocation restarted it", pid, again, err)
	}
	lines := f.lines(t)
	checkWindow(t, windowCheck{table: table, start: s.Window.Add(shift), want: s.Want, truth: tr, shard: true}, fromCloudWatch(t, f.cw), findings(lines))
	looked := false
	for _, l := range lines {
		looked = looked || (l.str("msg") == "partition key looked up" && l.str("partition_key") == "customerId")
	}
	if !looked {
		t.Error("no log line says which partition key DescribeTable gave")
	}
}

// TestWindowOutsideCloudWatchRange: a window more than two weeks old (a
// sample replayed late, a stream read far behind) is never sent to
// PutMetricData, which would reject the whole request; the invocation
// succeeds, its findings are logged, and a warning says why no metrics went.
func TestWindowOutsideCloudWatchRange(t *testing.T) {
	raw := readSample(t, "hot-key-ops-log.json")
	f := startFunction(t, pkEnv)
	tumblingResponse(t, f.invoke(t, shiftEvent(raw, recentShift()-15*24*time.Hour)))
	lines := f.lines(t)
	if n := f.cw.Attempts(); n != 0 {
		t.Errorf("%d PutMetricData requests for a window CloudWatch rejects", n)
	}
	if len(findings(lines)) != 1 {
		t.Errorf("%d findings, want OPS_LOG's", len(findings(lines)))
	}
	warned := false
	for _, l := range lines {
		warned = warned || (strings.Contains(l.str("msg"), "outside CloudWatch's time range") && l.num("values") > 0)
	}
	if !warned {
		t.Error("no warning says the window's metrics were not sent")
	}
}
