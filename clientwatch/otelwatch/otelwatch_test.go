package otelwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/clientwatch/otelwatch"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// points flattens what a reader collected: instrument name and attribute
// set -> value.
func points(t *testing.T, reader *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	put := func(name string, set attribute.Set, v float64) {
		k := name + " " + set.Encoded(attribute.DefaultEncoder())
		if _, dup := out[k]; dup {
			t.Fatalf("two points for %s", k)
		}
		out[k] = v
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					put(m.Name, p.Attributes, float64(p.Value))
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					put(m.Name, p.Attributes, p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					put(m.Name, p.Attributes, float64(p.Value))
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					put(m.Name, p.Attributes, p.Value)
				}
			default:
				t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	return out
}

// expected is what the instruments must hold after reps were published
// once each, computed from the reports themselves.
func expected(reps []report.ClientReport, keys int) map[string]float64 {
	out := map[string]float64{}
	enc := func(kvs ...attribute.KeyValue) string {
		s := attribute.NewSet(kvs...)
		return s.Encoded(attribute.DefaultEncoder())
	}
	for _, r := range reps {
		table := []attribute.KeyValue{otelwatch.AttrTable.StringSlice([]string{r.Table})}
		if r.Index != "" {
			table = append(table, otelwatch.AttrIndex.String(r.Index))
		}
		t := enc(table...)
		c := enc(append(slices.Clone(table), otelwatch.AttrCapacityEstimated.Bool(r.CapacityEstimated))...)
		for name, v := range map[string]float64{
			"hotkeys.client.requests " + t:                   float64(r.Requests),
			"hotkeys.client.read_capacity_units " + c:        r.RCU,
			"hotkeys.client.write_capacity_units " + c:       float64(r.WCU),
			"hotkeys.client.throttled_attempts " + t:         float64(r.ThrottledAttempts),
			"hotkeys.client.unprocessed_items " + t:          float64(r.UnprocessedItems),
			"hotkeys.client.conditional_check_failures " + t: float64(r.ConditionalCheckFailures),
			"hotkeys.client.unattributed_requests " + t:      float64(r.UnattributedRequests),
			"hotkeys.client.dropped_calls " + t:              float64(r.Dropped),
			"hotkeys.client.internal_errors " + t:            float64(r.InternalErrors),
			"hotkeys.client.hot_keys " + t:                   float64(len(r.HotKeys)),
		} {
			out[name] += v
		}
		for _, k := range otelwatch.Keys(&r, keys) {
			ka := append(slices.Clone(table), otelwatch.AttrKey.String(k.Key), otelwatch.AttrKeyType.String(k.Type))
			kt := enc(ka...)
			kc := enc(append(ka, otelwatch.AttrCapacityEstimated.Bool(r.CapacityEstimated))...)
			sev := map[report.Severity]float64{report.Warning: 1, report.Critical: 2}[k.Severity]
			for name, v := range map[string]float64{
				"hotkeys.client.key.requests " + kt:               float64(k.Requests),
				"hotkeys.client.key.read_capacity_units " + kc:    k.RCU,
				"hotkeys.client.key.write_capacity_units " + kc:   float64(k.WCU),
				"hotkeys.client.key.throttled_attempts " + kt:     float64(k.ThrottledAttempts),
				"hotkeys.client.key.unprocessed_items " + kt:      float64(k.UnprocessedItems),
				"hotkeys.client.key.peak_rcu_per_second " + kt:    k.PeakRCUPerSecond,
				"hotkeys.client.key.peak_wcu_per_second " + kt:    k.PeakWCUPerSecond,
				"hotkeys.client.key.latency_p99 " + kt:            k.LatencyP99Ms,
				"hotkeys.client.key.severity " + kt:               sev,
				"hotkeys.client.key.read_saturated_seconds " + kt: float64(k.ReadSaturatedSeconds),
				"hotkeys.client.key.saturated_seconds " + kt:      float64(k.SaturatedSeconds),
			} {
				out[name] += v
			}
		}
	}
	return out
}

// window is a client window with every figure: a read-hot key, a
// write-hot one, a throttled one, one with unprocessed items, and a tail
// of 30 keys; an index's window beside it.
func window(t *testing.T) []report.ClientReport {
	t.Helper()
	cfg := detector.DefaultConfig()
	w, err := clientwindow.New(cfg.Sketch, "Users", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	key := func(s string) ddb.Key { return ddb.Key{Type: ddb.String, Value: []byte(s)} }
	for i := range 100 {
		w.AddRequest(key("celebrity"), t0, time.Millisecond, true, true)
		w.AddCapacity(key("celebrity"), t0, 60, 0)
		w.AddRequest(key("counter"), t0.Add(time.Second), time.Millisecond, true, true)
		w.AddCapacity(key("counter"), t0.Add(time.Second), 0, 20)
		w.AddRequest(key(fmt.Sprintf("user#%d", i%30)), t0, 2*time.Millisecond, true, true)
		w.AddCapacity(key(fmt.Sprintf("user#%d", i%30)), t0, 1, 1)
	}
	w.AddThrottle(key("user#3"), t0, []string{"TableWriteKeyRangeThroughputExceeded"})
	w.AddUnprocessed(key("user#4"), t0, 2)
	w.AddUnattributed(4, 1)
	w.AddDropped(3)
	w.AddInternalErrors(1)
	ix, err := clientwindow.NewIndex(cfg.Sketch, "Users", "byEmail", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ix.SetEstimated()
	ix.AddRequest(key("a@example.com"), t0, time.Millisecond, true, true)
	ix.AddCapacity(key("a@example.com"), t0, 3, 0)
	return []report.ClientReport{w.Report(cfg), ix.Report(cfg)}
}

// TestPublishedAsTheReportsSay: the instruments hold, point for point,
// the figures of the reports published, twice (counters add up, gauges
// keep the last), with a key attribute only on the flagged keys and then
// the heaviest, up to Keys.
func TestPublishedAsTheReportsSay(t *testing.T) {
	reps := window(t)
	if len(reps[0].HotKeys) < 3 || len(reps[0].TopKeys) < 10 {
		t.Fatalf("the test window flags %d keys and lists %d: want several of each", len(reps[0].HotKeys), len(reps[0].TopKeys))
	}
	for _, keys := range []int{0, 4} {
		reader := sdkmetric.NewManualReader()
		p, err := otelwatch.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("hotkeys"), otelwatch.Options{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := p.Publish(context.Background(), reps); err != nil {
				t.Fatal(err)
			}
		}
		if keys == 0 {
			keys = otelwatch.DefaultKeys
		}
		want := expected(append(slices.Clone(reps), reps...), keys)
		for name := range want { // gauges keep the last window's value, not the sum
			if strings.Contains(name, "peak_") || strings.Contains(name, "latency_p99") || strings.Contains(name, "severity") || strings.Contains(name, "hot_keys") || strings.Contains(name, "saturated_seconds") {
				want[name] /= 2
			}
		}
		got := points(t, reader)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Keys %d: points (-from the reports +collected):\n%s", keys, diff)
		}
		withKey := map[string]bool{}
		for name := range got {
			if strings.Contains(name, string(otelwatch.AttrKey)+"=") {
				withKey[name[strings.Index(name, string(otelwatch.AttrKey)+"="):]] = true
			}
		}
		if len(withKey) > keys*2 { // a key's attribute sets: with and without the capacity flag
			t.Errorf("Keys %d: %d attribute sets carry a key", keys, len(withKey))
		}
	}
}

// tee publishes through p and keeps what it published.
type tee struct {
	p    clientwatch.Publisher
	mu   sync.Mutex
	reps []report.ClientReport
}

func (t *tee) Publish(ctx context.Context, reps []report.ClientReport) error {
	t.mu.Lock()
	t.reps = append(t.reps, reps...)
	t.mu.Unlock()
	return t.p.Publish(ctx, reps)
}

// TestThroughAWatcher: a watcher publishing through the adapter: what the
// reader collects is what the watcher's own report says.
func TestThroughAWatcher(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		units := "0.5"
		if strings.Contains(string(body), "celebrity") {
			units = "10"
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprintf(w, `{"Item":{"pk":{"S":"x"}},"ConsumedCapacity":{"TableName":"Profiles","CapacityUnits":%s,"Table":{"CapacityUnits":%[1]s}}}`, units)
	}))
	defer srv.Close()
	reader := sdkmetric.NewManualReader()
	p, err := otelwatch.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("hotkeys"), otelwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	published := &tee{p: p}
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Profiles": "pk"}
	opts.Publisher = published
	opts.Now = func() time.Time { return t0 }
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	client := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("id", "secret", "")}, w.ClientOption())
	for i := range 300 {
		for _, key := range []string{"celebrity", fmt.Sprintf("user#%d", i%40)} {
			if _, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("Profiles"),
				Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Run(ctx); err != nil { // publishes the open window and returns
		t.Fatal(err)
	}
	if len(published.reps) != 1 || len(published.reps[0].HotKeys) != 1 {
		t.Fatalf("published %+v: want one report flagging the celebrity", published.reps)
	}
	if diff := cmp.Diff(expected(published.reps, otelwatch.DefaultKeys), points(t, reader)); diff != "" {
		t.Errorf("points (-from the report +collected):\n%s", diff)
	}
}

func TestNewRejects(t *testing.T) {
	meter := sdkmetric.NewMeterProvider().Meter("hotkeys")
	if _, err := otelwatch.New(meter, otelwatch.Options{Keys: -1}); err == nil {
		t.Error("Keys -1 accepted")
	}
}
