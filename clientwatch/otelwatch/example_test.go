package otelwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/clientwatch/otelwatch"
)

// A Publisher is what clientwatch publishes its windows through.
var _ clientwatch.Publisher = (*otelwatch.Publisher)(nil)

// A client's windows as OpenTelemetry metrics: the Publisher goes into
// clientwatch's Options, and the Watcher's Run publishes each closed
// window through it. Here the application's meter provider reads into
// memory (an exporter would send the same points on), and a stand-in
// answers as DynamoDB would: a 40 KB profile read 400 times in a second
// with strongly consistent reads, 10 RCU each, among reads of small items.
// The key's severity gauge reads 2: critical (1 is a warning).
func Example() {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	pub, err := otelwatch.New(provider.Meter("hotkeys"), otelwatch.Options{Keys: 1})
	if err != nil {
		panic(err)
	}

	opts := clientwatch.DefaultOptions()
	opts.Publisher = pub
	opts.PartitionKeys = map[string]string{"Profiles": "pk"}
	opts.Now = func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) } // one second, for the example
	w, err := clientwatch.New(opts)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		units := "0.5"
		if strings.Contains(string(body), "celebrity") {
			units = "10"
		}
		rw.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprintf(rw, `{"Item":{"pk":{"S":"x"}},"ConsumedCapacity":{"TableName":"Profiles","CapacityUnits":%s,"Table":{"CapacityUnits":%[1]s}}}`, units)
	}))
	defer srv.Close()
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("id", "secret", ""),
	}, w.ClientOption())
	for i := range 400 {
		for _, key := range []string{"celebrity", fmt.Sprintf("user#%d", i%40)} {
			_, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("Profiles"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}},
			})
			if err != nil {
				panic(err)
			}
		}
	}

	// The application shuts down: Run publishes every open window, and
	// returns.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Run(ctx); err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, line := range pointsOf(rm, "hotkeys.client.requests", "hotkeys.client.key.peak_rcu_per_second", "hotkeys.client.key.severity") {
		fmt.Println(line)
	}
	// Output:
	// hotkeys.client.key.peak_rcu_per_second aws.dynamodb.table_names=["Profiles"] hotkeys.partition_key=celebrity hotkeys.partition_key.type=S: 4000
	// hotkeys.client.key.severity aws.dynamodb.table_names=["Profiles"] hotkeys.partition_key=celebrity hotkeys.partition_key.type=S: 2
	// hotkeys.client.requests aws.dynamodb.table_names=["Profiles"]: 800
}

// pointsOf prints the points of the instruments named, sorted.
func pointsOf(rm metricdata.ResourceMetrics, names ...string) []string {
	var out []string
	point := func(name string, set attribute.Set, v any) {
		var attrs []string
		for _, kv := range set.ToSlice() {
			attrs = append(attrs, string(kv.Key)+"="+kv.Value.String())
		}
		out = append(out, fmt.Sprintf("%s %s: %v", name, strings.Join(attrs, " "), v))
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !slices.Contains(names, m.Name) {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					point(m.Name, p.Attributes, p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					point(m.Name, p.Attributes, p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					point(m.Name, p.Attributes, p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					point(m.Name, p.Attributes, p.Value)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
