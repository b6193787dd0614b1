package alert

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

// ClientPublisher is clientwatch's Publisher for CloudWatch. The assertion
// lives in a test: clientwatch does not import alert, nor alert clientwatch.
var _ clientwatch.Publisher = ClientPublisher{}

// clientReport is a client-side window's report: a read-hot, throttled key
// among quiet ones, its key hashed.
func clientReport(t testing.TB, start time.Time) report.ClientReport {
	t.Helper()
	w, err := clientwindow.New(detector.DefaultConfig().Sketch, "Users", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		k := ddb.Key{Type: ddb.String, Value: []byte("alice@example.com")}
		if i%4 != 0 {
			k.Value = []byte("user#" + string(rune('a'+i%20)))
		}
		w.AddRequest(k, start, time.Duration(1+i%7)*time.Millisecond, true, true)
		w.AddCapacity(k, start, 40, 1)
		if i%8 == 0 {
			w.AddThrottle(k, start, []string{"TableReadKeyRangeThroughputExceeded"})
		}
	}
	cfg := detector.DefaultConfig()
	h, err := redact.New([]byte("sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Redactor = h
	return w.Report(cfg)
}

// TestClientMetricsPublished: a client report publishes exactly the client
// catalogue, with its units and dimensions, nothing of the stream's, and
// no raw key in any metric or log line.
func TestClientMetricsPublished(t *testing.T) {
	srv := fakecloudwatch.New()
	defer srv.Close()
	p, out := newAPIPublisher(t, DefaultConfig(), srv, 1)
	rep := clientReport(t, recentStart())
	if _, err := p.PublishClient(context.Background(), []report.ClientReport{rep}); err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	table := map[string]float64{}
	seen := map[string]bool{}
	for _, d := range srv.Data() {
		i := slices.IndexFunc(ClientMetrics(), func(m MetricDefinition) bool { return m.Name == d.MetricName })
		if i < 0 {
			t.Fatalf("%s published for a client report, but not in ClientMetrics()", d.MetricName)
		}
		def := ClientMetrics()[i]
		var names []string
		for _, dim := range d.Dimensions {
			names = append(names, dim.Name)
			if strings.Contains(dim.Value, "alice") {
				t.Errorf("%s: raw key in dimension %s", d.MetricName, dim.Value)
			}
		}
		if d.Unit != def.Unit || !slices.Equal(names, def.Dimensions) {
			t.Errorf("%s sent with unit %q dims %v; catalogue says %q %v", d.MetricName, d.Unit, names, def.Unit, def.Dimensions)
		}
		if len(names) == 1 {
			table[d.MetricName] = d.Value
		}
		seen[d.MetricName] = true
	}
	for _, m := range ClientMetrics() {
		if !seen[m.Name] {
			t.Errorf("catalogued client metric %s was never published", m.Name)
		}
	}
	want := map[string]float64{
		MetricClientRequests: 200, MetricClientReadCapacityUnits: 4000, MetricClientWriteCapacityUnits: 200,
		MetricClientThrottledAttempts: 25, MetricClientConditionalCheckFailures: 0, MetricClientUnattributedRequests: 0,
		MetricClientHotKeys: float64(len(rep.HotKeys)), MetricClientMaxKeyPeakRCUPerSecond: 1000, MetricClientMaxKeyPeakWCUPerSecond: 50,
		MetricClientDroppedCalls: 0, MetricClientUnprocessedItems: 0, MetricClientInternalErrors: 0,
	}
	if diff := cmp.Diff(want, table); diff != "" {
		t.Errorf("table metrics (-want +got):\n%s", diff)
	}
	if strings.Contains(string(out.Bytes()), "alice") || !strings.Contains(string(out.Bytes()), `"source":"client"`) {
		t.Errorf("findings log: %s", string(out.Bytes()))
	}
}

// TestClientPublisher: the adapter clientwatch publishes through returns
// nil when everything went out, and otherwise an error that says what did
// not: an invalid report, and a failed PutMetricData named by its error
// code alone (its message may quote keys), the API error still in the
// chain.
func TestClientPublisher(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, out := newAPIPublisher(t, DefaultConfig(), srv, 1)
	good := clientReport(t, recentStart())
	if err := (ClientPublisher{p}).Publish(context.Background(), []report.ClientReport{good}); err != nil {
		t.Fatalf("published: %v", err)
	}
	if len(srv.Data()) == 0 {
		t.Fatal("nothing reached CloudWatch")
	}

	srv.FailAll(fakecloudwatch.Failure{Status: 400, Code: "InvalidParameterValue", Message: "dimension PartitionKey alice@example.com (injected)"})
	bad := report.ClientReport{Window: report.Window{Table: "Users", Index: "GSI1", Start: recentStart(), End: recentStart().Add(time.Minute)}}
	err := (ClientPublisher{p}).Publish(context.Background(), []report.ClientReport{bad, good})
	var apiErr smithy.APIError
	if !errors.Is(err, ErrInvalidReport) || !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidParameterValue" {
		t.Fatalf("error %v: want ErrInvalidReport and the API's error in the chain", err)
	}
	if strings.Contains(err.Error(), "alice") || !strings.Contains(err.Error(), "PutMetricData failed: InvalidParameterValue") {
		t.Errorf("error %q: want the error code, never the message", err)
	}
	if !strings.Contains(string(out.Bytes()), `"ClientRequests":200`) {
		t.Errorf("the values PutMetricData refused did not go out as EMF:\n%s", out.Bytes())
	}
}

// TestSaturatedClientFindings: a saturated client key's findings line
// gives its seconds at the read and write levels, that it is saturated,
// and that its shard count is a lower bound; a key at a level for fewer
// seconds gives its seconds, unsaturated.
func TestSaturatedClientFindings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode = ModeOff
	var out bytes.Buffer
	p, err := newTestPublisher(cfg, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	start := recentStart()
	w, err := clientwindow.New(detector.DefaultConfig().Sketch, "Users", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	pinned, once := ddb.Key{Type: ddb.String, Value: []byte("pinned")}, ddb.Key{Type: ddb.String, Value: []byte("once")}
	for sec := range 4 {
		at := start.Add(time.Duration(sec) * time.Second)
		w.AddCapacity(pinned, at, 6000, 950) // 3,000 RCU and 950 WCU
		if sec == 0 {
			w.AddCapacity(once, at, 0, 1000)
		}
	}
	if _, err := p.PublishClient(context.Background(), []report.ClientReport{w.Report(detector.DefaultConfig())}); err != nil {
		t.Fatal(err)
	}
	_, logs := splitOutput(t, out.Bytes())
	type line struct {
		Level                     any
		Saturated, LowerBound     any
		WriteSeconds, ReadSeconds any
	}
	got := map[any]line{}
	for _, l := range logs {
		if l["msg"] == MsgHotKey {
			got[l["key"]] = line{l["level"], l["saturated"], l["recommended_shards_is_lower_bound"], l["saturated_seconds"], l["read_saturated_seconds"]}
		}
	}
	want := map[any]line{
		"pinned": {"ERROR", true, true, 4.0, 4.0},
		"once":   {"ERROR", false, false, 1.0, 0.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings lines (-want +got):\n%s", diff)
	}
}
