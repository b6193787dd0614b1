package clientwatch_test

import (
	"context"
	"github.com/aws/smithy-go/middleware"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// instantServer answers every GetItem at once with a small item, and with
// ConsumedCapacity when the request asked for it, as DynamoDB does.
func instantServer(tb testing.TB) *httptest.Server {
	const item = `"Item":{"pk":{"S":"user#1"},"name":{"S":"Ada"}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if strings.Contains(string(body), `"ReturnConsumedCapacity":"INDEXES"`) {
			_, _ = io.WriteString(w, `{`+item+`,"ConsumedCapacity":{"TableName":"Users","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}}`)
			return
		}
		_, _ = io.WriteString(w, `{`+item+`}`)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkGetItem measures the middleware's cost: the same client, with
// and without it, over a server that answers at once. Compare the two
// sub-benchmarks of one run (benchstat): the difference is what the
// middleware adds per call.
func BenchmarkGetItem(b *testing.B) {
	srv := instantServer(b)
	keys := make([]map[string]types.AttributeValue, 1000)
	for i := range keys {
		keys[i] = map[string]types.AttributeValue{"pk": s("user#" + strconv.Itoa(i))}
	}
	for _, mode := range []string{"plain", "instrumented"} {
		b.Run(mode, func(b *testing.B) {
			var w *clientwatch.Watcher
			if mode == "instrumented" {
				opts := clientwatch.DefaultOptions()
				opts.PartitionKeys = map[string]string{"Users": "pk"}
				var err error
				if w, err = clientwatch.New(opts); err != nil {
					b.Fatal(err)
				}
			}
			c := newClient(srv.URL, w, srv.Client())
			table := "Users"
			ctx := context.Background()
			in := make([]dynamodb.GetItemInput, len(keys))
			for i := range in {
				in[i] = dynamodb.GetItemInput{TableName: &table, Key: keys[i]}
			}
			for i := range 2000 { // warm up: connections, buffers, the window
				if _, err := c.GetItem(ctx, &in[i%len(in)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; b.Loop(); i++ {
				if _, err := c.GetItem(ctx, &in[i%len(in)]); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// reportCPU reports the process's CPU time per op (client and server
// goroutines both): on a shared machine wall time says little.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMiddleware measures the middleware alone: HandleInitialize
// around a next handler that answers at once with what DynamoDB would
// (an item and its ConsumedCapacity), so that nothing but the middleware's
// own work is timed. keys: how many distinct keys the calls cycle over;
// "zipf" draws them skewed, as real traffic is.
func BenchmarkMiddleware(b *testing.B) {
	for _, bc := range []struct {
		name string
		keys int
		zipf bool
	}{{"keys=1", 1, false}, {"keys=1000-zipf", 1000, true}, {"keys=100000-uniform", 100000, false}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := clientwatch.DefaultOptions()
			opts.PartitionKeys = map[string]string{"Users": "pk"}
			w, err := clientwatch.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			table := "Users"
			in := make([]dynamodb.GetItemInput, bc.keys)
			for i := range in {
				in[i] = dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("user#" + strconv.Itoa(i))}}
			}
			order := make([]int, 1<<16)
			r := rand.New(rand.NewPCG(1, 2))
			z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(bc.keys-1))
			for i := range order {
				if bc.zipf {
					order[i] = int(z.Uint64())
				} else {
					order[i] = r.IntN(bc.keys)
				}
			}
			units := 0.5
			cc := &types.ConsumedCapacity{TableName: &table, CapacityUnits: &units, Table: &types.Capacity{CapacityUnits: &units}}
			out := &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{"pk": s("user#1")}}
			next := middleware.InitializeHandlerFunc(func(ctx context.Context, in middleware.InitializeInput) (middleware.InitializeOutput, middleware.Metadata, error) {
				out.ConsumedCapacity = cc
				return middleware.InitializeOutput{Result: out}, middleware.Metadata{}, nil
			})
			ctx := context.Background()
			for i := range 100_000 {
				_, _, _ = w.HandleInitialize(ctx, middleware.InitializeInput{Parameters: &in[order[i%len(order)]]}, next)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; b.Loop(); i++ {
				_, _, _ = w.HandleInitialize(ctx, middleware.InitializeInput{Parameters: &in[order[i%len(order)]]}, next)
			}
			reportCPU(b, start)
			if out.ConsumedCapacity != nil {
				b.Fatal("ConsumedCapacity left in the output")
			}
		})
	}
}

// BenchmarkRecord measures the recording alone, without the HTTP round
// trip around it: a window charged one GetItem.
func BenchmarkRecord(b *testing.B) {
	cw, err := detector.NewClientWindow(detector.DefaultConfig().Sketch, "Users", t0, t0.Add(60e9))
	if err != nil {
		b.Fatal(err)
	}
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte("user#" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	start := cpuTime()
	for i := 0; b.Loop(); i++ {
		k := record.Key{Type: record.String, Value: keys[i%len(keys)]}
		cw.AddRequest(k, t0, 1e6, true, true)
		cw.AddCapacity(k, t0, 1, 0, false)
	}
	reportCPU(b, start)
}

// TestMemoryMillionKeys: one million distinct keys through a Watcher,
// over five one-minute windows with no one draining the queue (so it is
// full: the worst case), keep the heap it holds under 4 MB. The heap is
// measured after a GC, with the Watcher alive.
func TestMemoryMillionKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("a million keys")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var now time.Time
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	opts.Now = func() time.Time { return now }
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	table := "Users"
	units := 1.0
	key := &types.AttributeValueMemberS{}
	in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": key}}
	out := &dynamodb.GetItemOutput{}
	next := middleware.InitializeHandlerFunc(func(ctx context.Context, in middleware.InitializeInput) (middleware.InitializeOutput, middleware.Metadata, error) {
		out.ConsumedCapacity = &types.ConsumedCapacity{TableName: &table, CapacityUnits: &units, Table: &types.Capacity{CapacityUnits: &units}}
		return middleware.InitializeOutput{Result: out}, middleware.Metadata{}, nil
	})
	const n = 1_000_000
	for i := range n {
		now = t0.Add(time.Duration(i) * 5 * time.Minute / n)
		key.Value = "user#" + strconv.Itoa(i) + "#a-longer-key-like-real-ones-have"
		_, _, _ = w.HandleInitialize(context.Background(), middleware.InitializeInput{Parameters: in}, next)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a Watcher after 1,000,000 distinct keys over 5 windows, queue full: %d KB of heap", held/1024)
	if held > 4<<20 {
		t.Errorf("a Watcher holds %d KB, want at most 4 MB", held/1024)
	}
	reps := w.Reports()
	var calls, dropped uint64
	for _, r := range reps {
		calls += r.Requests
		dropped += r.Dropped
	}
	if calls+dropped != n || len(reps) != 3 {
		t.Errorf("%d reports: %d calls reported, %d dropped; want 3 reports (two queued, one open) and %d calls in all", len(reps), calls, dropped, n)
	}
	runtime.KeepAlive(w)
}
