package alert

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// clientReport is a client-side window's report: a read-hot, throttled key
// among quiet ones, its key hashed.
func clientReport(t *testing.T, start time.Time) detector.Report {
	t.Helper()
	w, err := detector.NewClientWindow(detector.DefaultConfig().Sketch, "Users", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		k := ddb.Key{Type: ddb.String, Value: []byte("alice@example.com")}
		if i%4 != 0 {
			k.Value = []byte("user#" + string(rune('a'+i%20)))
		}
		w.AddRequest(k, start, time.Duration(1+i%7)*time.Millisecond, true, true)
		w.AddCapacity(k, start, 40, 1, false)
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
	if _, err := p.Publish(context.Background(), []detector.Report{rep}); err != nil {
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
		MetricClientDroppedCalls: 0,
	}
	if diff := cmp.Diff(want, table); diff != "" {
		t.Errorf("table metrics (-want +got):\n%s", diff)
	}
	if strings.Contains(string(out.Bytes()), "alice") || !strings.Contains(string(out.Bytes()), `"source":"client"`) {
		t.Errorf("findings log: %s", string(out.Bytes()))
	}
}
