package otelwatch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/clientwatch/otelwatch"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

// A Publisher is what clientwatch publishes its windows through: set
// clientwatch.Options.Publisher to one, and the Watcher's Run publishes
// each closed window's report with it.
var _ clientwatch.Publisher = (*otelwatch.Publisher)(nil)

// A client's window as OpenTelemetry metrics. The application's meter
// provider reads into memory here (an exporter would send the same points
// on), and the window is the client engine's own, published as Run
// publishes it: a 40 KB profile read 400 times in a second with strongly
// consistent reads (10 RCU each), among reads of small items. The key's
// severity gauge reads 2: critical (1 is a warning).
func Example() {
	reader := sdkmetric.NewManualReader()
	pub, err := otelwatch.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("hotkeys"), otelwatch.Options{Keys: 1})
	if err != nil {
		panic(err)
	}

	cfg := detector.DefaultConfig()
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w, err := clientwindow.New(cfg.Sketch, "Profiles", start, start.Add(time.Minute))
	if err != nil {
		panic(err)
	}
	for i := range 400 {
		celebrity := ddb.Key{Type: ddb.String, Value: []byte("celebrity")}
		user := ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "user#%d", i%40)}
		w.AddRequest(celebrity, start, 3*time.Millisecond, true, true)
		w.AddCapacity(celebrity, start, 20, 0) // in half units
		w.AddRequest(user, start, time.Millisecond, true, true)
		w.AddCapacity(user, start, 1, 0)
	}
	if err := pub.Publish(context.Background(), []report.ClientReport{w.Report(cfg)}); err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	shown := []string{"hotkeys.client.requests", "hotkeys.client.key.peak_rcu_per_second", "hotkeys.client.key.severity"}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !slices.Contains(shown, m.Name) {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				lines = appendPoints(lines, m.Name, d.DataPoints)
			case metricdata.Gauge[int64]:
				lines = appendPoints(lines, m.Name, d.DataPoints)
			case metricdata.Gauge[float64]:
				lines = appendPoints(lines, m.Name, d.DataPoints)
			}
		}
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// hotkeys.client.key.peak_rcu_per_second aws.dynamodb.table_names=["Profiles"] hotkeys.partition_key=celebrity hotkeys.partition_key.type=S: 4000
	// hotkeys.client.key.severity aws.dynamodb.table_names=["Profiles"] hotkeys.partition_key=celebrity hotkeys.partition_key.type=S: 2
	// hotkeys.client.requests aws.dynamodb.table_names=["Profiles"]: 800
}

// appendPoints appends a line per point: the instrument, its attributes
// and its value.
func appendPoints[N int64 | float64](lines []string, name string, points []metricdata.DataPoint[N]) []string {
	for _, p := range points {
		var attrs []string
		for _, kv := range p.Attributes.ToSlice() {
			attrs = append(attrs, string(kv.Key)+"="+kv.Value.String())
		}
		lines = append(lines, fmt.Sprintf("%s %s: %v", name, strings.Join(attrs, " "), p.Value))
	}
	return lines
}
