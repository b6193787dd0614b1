package clientwatch_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
)

// instantServer answers every GetItem at once with a small item, and with
// ConsumedCapacity when the request asked for it (INDEXES or TOTAL), as
// DynamoDB does.
func instantServer(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write(instantAnswer(body))
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// instantAnswer is what the instant server answers a GetItem request body.
func instantAnswer(req []byte) []byte {
	switch {
	case bytes.Contains(req, []byte(`"ReturnConsumedCapacity":"INDEXES"`)):
		return instantWithCapacity
	case bytes.Contains(req, []byte(`"ReturnConsumedCapacity":"TOTAL"`)):
		return instantWithTotal
	}
	return instantPlain
}

var (
	instantPlain        = []byte(`{"Item":{"pk":{"S":"user#1"},"name":{"S":"Ada"}}}`)
	instantWithCapacity = []byte(`{"Item":{"pk":{"S":"user#1"},"name":{"S":"Ada"}},"ConsumedCapacity":{"TableName":"Users","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}}`)
	instantWithTotal    = []byte(`{"Item":{"pk":{"S":"user#1"},"name":{"S":"Ada"}},"ConsumedCapacity":{"TableName":"Users","CapacityUnits":0.5}}`)
)

// memoryHTTP is an HTTP client that answers as the instant server does,
// from memory: no sockets, no server goroutines, so that the SDK's own
// work (about 30 µs of CPU per call) is all that surrounds the
// middleware's, and a difference of a few hundred nanoseconds can be seen.
type memoryHTTP struct{ buf bytes.Buffer }

func (m *memoryHTTP) Do(r *http.Request) (*http.Response, error) {
	m.buf.Reset()
	if _, err := m.buf.ReadFrom(r.Body); err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	body := instantAnswer(m.buf.Bytes())
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}, nil
}

// workload is a benchmark's key distribution: the calls cycle over keys
// distinct keys, drawn uniformly or skewed (Zipf, s = 1.1) as real traffic
// is.
type workload struct {
	name string
	keys int
	zipf bool
}

var workloads = []workload{{"keys=1", 1, false}, {"keys=1000-zipf", 1000, true}, {"keys=100000-uniform", 100000, false}}

// order returns the sequence of key indexes the calls follow.
func (wl workload) order() []int {
	order := make([]int, 1<<16)
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, uint64(max(wl.keys-1, 1)))
	for i := range order {
		if wl.zipf {
			order[i] = int(z.Uint64())
		} else {
			order[i] = r.IntN(wl.keys)
		}
	}
	return order
}

// keyOf is the key of the i-th call, built afresh as a caller builds it:
// its bytes are in cache, as they are when the SDK has just serialised
// them (a key built in advance, left cold among 100,000, would charge a
// middleware that reads it for the cache miss).
func keyOf(order []int, i int) string { return "user#" + strconv.Itoa(order[i%len(order)]) }

// allocsPerCall counts the heap allocations of calls calls of run, with
// runtime.ReadMemStats, as testing's allocs/op does: it flushes every P's
// cached counts (runtime/metrics' count lags by what those caches hold,
// which turned a steady 4 allocations per call into anything from 1 to 9
// over a block of 64 calls). It stops the world, so the benchmarks count
// allocations in a pass of their own, after the timed one, never inside
// a block whose CPU time they measure.
func allocsPerCall(calls int, run func(j int)) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for j := range calls {
		run(j)
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(calls)
}

// BenchmarkOverhead is the overhead budget's measure: what the middleware
// adds to a GetItem, end to end, over the same client without it, in both
// of its modes. Seven clients call the same local HTTP server (or an
// in-memory one), which answers at once:
//
//   - plain;
//   - noop: one no-op middleware added through APIOptions, what the SDK
//     charges any middleware before its own work (the budget's floor);
//   - floor2: two no-op middlewares where the detector puts its two, last
//     in the Initialize step and just inside the deserializer: what the SDK
//     charges the detector's design before it does anything;
//   - caller-total, caller-indexes: the no-op middleware, and the caller
//     sets ReturnConsumedCapacity (TOTAL, or INDEXES as the detector asks)
//     itself: what the SDK charges anyone who asks for capacity (the
//     larger request signed, the larger answer read and decoded), the
//     platform's own cost of asking, beside which the asking mode's own
//     work is measured;
//   - asking: the detector, asking DynamoDB for ConsumedCapacity;
//   - estimating: the detector with EstimateCapacity.
//
// They take turns in blocks of 64 calls, so that all see the same
// machine, and each call builds its input afresh, as a real caller does.
// It reports per call the process's CPU time (client and server
// goroutines: on a shared machine wall time says little) and heap
// allocations of the plain side, and what each other side adds to it
// (<side>-added-cpu-ns/op, <side>-added-allocs/op), and what each
// detector mode adds beyond the no-op middleware (<mode>-beyond-noop-*)
// and beyond the two no-ops (<mode>-beyond-floor2-*), and what the asking
// mode adds beyond a caller who asks for capacity himself
// (asking-beyond-caller-*). The budget: at most
// 1 allocation and 1 µs of CPU beyond the no-op; compare runs with
// benchstat.
func BenchmarkOverhead(b *testing.B) {
	for _, wl := range workloads {
		for _, transport := range []string{"http", "memory"} {
			b.Run(wl.name+"/"+transport, func(b *testing.B) { benchmarkOverhead(b, wl, transport) })
		}
	}
}

// The sides of BenchmarkOverhead, in the order they take turns.
const (
	plainSide = iota
	noopSide
	floor2Side
	callerTotalSide
	callerIndexesSide
	askingSide
	estimatingSide
	sides
)

var sideNames = [sides]string{"plain", "noop", "floor2", "caller-total", "caller-indexes", "asking", "estimating"}

// callerAsks is what each side's caller sets ReturnConsumedCapacity to.
var callerAsks = [sides]types.ReturnConsumedCapacity{
	callerTotalSide:   types.ReturnConsumedCapacityTotal,
	callerIndexesSide: types.ReturnConsumedCapacityIndexes,
}

func benchmarkOverhead(b *testing.B, wl workload, transport string) {
	clients := overheadClients(b, transport)
	order := wl.order()
	call := benchGetItem(b, order)
	for i := range 50_000 { // warm up: connections, buffers, pools, the window's sketches
		call(clients[i%sides], callerAsks[i%sides], i)
	}
	const block = 64
	var cpu [sides]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for side, c := range clients {
			c0 := cpuTime()
			for j := range block {
				call(c, callerAsks[side], n+j)
			}
			cpu[side] += cpuTime() - c0
		}
		n += block
	}
	b.StopTimer()
	var allocs [sides]float64
	for side, c := range clients {
		allocs[side] = allocsPerCall(4096, func(j int) { call(c, callerAsks[side], n+j) })
	}
	reportSides(b, n, cpu, allocs)
}

// overheadClients makes BenchmarkOverhead's seven clients, over a local
// HTTP server or in memory.
func overheadClients(b *testing.B, transport string) [sides]*dynamodb.Client {
	srv := instantServer(b)
	watcher := func(estimate bool) *clientwatch.Watcher {
		opts := clientwatch.DefaultOptions()
		opts.PartitionKeys = map[string]string{"Users": "pk"}
		opts.EstimateCapacity = estimate
		w, err := clientwatch.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	hc := func() dynamodb.HTTPClient {
		if transport == "memory" {
			return &memoryHTTP{}
		}
		return srv.Client()
	}
	with := func(c *dynamodb.Client, m func(*middleware.Stack) error) *dynamodb.Client {
		return dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, m) })
	}
	return [sides]*dynamodb.Client{
		plainSide:         newClient(srv.URL, nil, hc()),
		noopSide:          with(newClient(srv.URL, nil, hc()), noopMiddleware),
		floor2Side:        with(newClient(srv.URL, nil, hc()), noopPair),
		callerTotalSide:   with(newClient(srv.URL, nil, hc()), noopMiddleware),
		callerIndexesSide: with(newClient(srv.URL, nil, hc()), noopMiddleware),
		askingSide:        newClient(srv.URL, watcher(false), hc()),
		estimatingSide:    newClient(srv.URL, watcher(true), hc()),
	}
}

// benchGetItem returns the benchmarks' call: a GetItem of the i-th key of
// order, its input built afresh as a real caller builds it, asking for
// capacity as rcc says.
func benchGetItem(b *testing.B, order []int) func(c *dynamodb.Client, rcc types.ReturnConsumedCapacity, i int) {
	table := "Users"
	ctx := context.Background()
	return func(c *dynamodb.Client, rcc types.ReturnConsumedCapacity, i int) {
		in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: keyOf(order, i)},
		}, ReturnConsumedCapacity: rcc}
		if _, err := c.GetItem(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetItem runs each side of BenchmarkOverhead alone, in memory,
// over 1,000 keys (Zipf): for counting the instructions a call executes
// with cachegrind, which is deterministic where the clock of a shared
// machine is not. One call's count is the count of a run of N calls
// minus that of a run of M, over N − M (the warm-up and setup cancel).
func BenchmarkGetItem(b *testing.B) {
	for side := range sides {
		b.Run(sideNames[side], func(b *testing.B) {
			c := overheadClients(b, "memory")[side]
			call := benchGetItem(b, workloads[1].order())
			for i := range 5_000 { // warm up: buffers, pools, the window's sketches
				call(c, callerAsks[side], i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				call(c, callerAsks[side], i)
			}
		})
	}
}

// noopMiddleware is an Initialize-step middleware that does nothing: what
// the SDK charges for any middleware added through APIOptions.
func noopMiddleware(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("Noop", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		return next.HandleInitialize(ctx, in)
	}), middleware.After)
}

// noopInitialize and noopDeserialize do nothing, where the detector's two
// middlewares are.
type (
	noopInitialize  struct{}
	noopDeserialize struct{}
)

func (noopInitialize) ID() string { return "NoopInitialize" }
func (noopInitialize) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	return next.HandleInitialize(ctx, in)
}
func (noopDeserialize) ID() string { return "NoopDeserialize" }
func (noopDeserialize) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	return next.HandleDeserialize(ctx, in)
}

// noopPair adds the two no-ops where the detector adds its middlewares.
func noopPair(s *middleware.Stack) error {
	if err := s.Initialize.Add(noopInitialize{}, middleware.After); err != nil {
		return err
	}
	return s.Deserialize.Insert(noopDeserialize{}, "OperationDeserializer", middleware.After)
}

// reportSides reports per call, from the sides' CPU time over calls calls
// and their allocations per call: the plain side's, what each other side
// adds to it, and what each detector mode adds beyond the no-op
// middleware and beyond the two no-ops, and the asking mode beyond a
// caller who asks for capacity himself.
func reportSides(b *testing.B, calls int, cpu [sides]time.Duration, allocs [sides]float64) {
	perCall := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(calls) }
	b.ReportMetric(perCall(cpu[plainSide]), "plain-cpu-ns/op")
	b.ReportMetric(allocs[plainSide], "plain-allocs/op")
	for side := noopSide; side < sides; side++ {
		b.ReportMetric(perCall(cpu[side]-cpu[plainSide]), sideNames[side]+"-added-cpu-ns/op")
		b.ReportMetric(allocs[side]-allocs[plainSide], sideNames[side]+"-added-allocs/op")
	}
	beyond := func(mode, floor int) {
		what := sideNames[mode] + "-beyond-" + sideNames[floor]
		b.ReportMetric(perCall(cpu[mode]-cpu[floor]), what+"-cpu-ns/op")
		b.ReportMetric(allocs[mode]-allocs[floor], what+"-allocs/op")
	}
	for _, mode := range []int{askingSide, estimatingSide} {
		beyond(mode, noopSide)
		beyond(mode, floor2Side)
	}
	beyond(askingSide, callerTotalSide)
	beyond(askingSide, callerIndexesSide)
}

// reportCPU reports the process's CPU time per op: on a shared machine
// wall time says little.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMiddleware measures the middleware's own work, without HTTP,
// the same way, in both modes: HandleInitialize around a next handler
// that answers at once with what DynamoDB would (an item, and its
// ConsumedCapacity when asked), taking turns in blocks with the same next
// handler called directly, on freshly built inputs.
// <mode>-added-cpu-ns/op is the middleware's cost (profile it with
// -cpuprofile); the wire step (wire.go) is not in it.
func BenchmarkMiddleware(b *testing.B) {
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) { benchmarkMiddleware(b, wl, false) })
	}
	// With OnHotKey set, each charge also looks up the key's peaks.
	b.Run(workloads[2].name+"/onhotkey", func(b *testing.B) { benchmarkMiddleware(b, workloads[2], true) })
}

func benchmarkMiddleware(b *testing.B, wl workload, onHotKey bool) {
	const plain, asking, estimating, n = 0, 1, 2, 3
	var ws [n]*clientwatch.Watcher
	for side := asking; side < n; side++ {
		opts := clientwatch.DefaultOptions()
		opts.PartitionKeys = map[string]string{"Users": "pk"}
		opts.EstimateCapacity = side == estimating
		if onHotKey {
			opts.OnHotKey = func(clientwatch.HotKeyEvent) {}
		}
		w, err := clientwatch.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		ws[side] = w
	}
	order := wl.order()
	table := "Users"
	units := 0.5
	cc := &types.ConsumedCapacity{TableName: &table, CapacityUnits: &units, Table: &types.Capacity{CapacityUnits: &units}}
	out := &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{"pk": s("user#1")}}
	next := middleware.InitializeHandlerFunc(func(ctx context.Context, in middleware.InitializeInput) (middleware.InitializeOutput, middleware.Metadata, error) {
		if p := in.Parameters.(*dynamodb.GetItemInput); p.ReturnConsumedCapacity != "" {
			out.ConsumedCapacity = cc
		}
		return middleware.InitializeOutput{Result: out}, middleware.Metadata{}, nil
	})
	ctx := context.Background()
	call := func(side, i int) {
		in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: keyOf(order, i)},
		}}
		if side == plain {
			_, _, _ = next.HandleInitialize(ctx, middleware.InitializeInput{Parameters: in})
		} else {
			_, _, _ = ws[side].HandleInitialize(ctx, middleware.InitializeInput{Parameters: in}, next)
		}
		out.ConsumedCapacity = nil
	}
	for i := range 150_000 {
		call(i%n, i)
	}
	const block = 1024
	var cpu [n]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	calls := 0
	for b.Loop() {
		for side := range n {
			c0 := cpuTime()
			for j := range block {
				call(side, calls+j)
			}
			cpu[side] += cpuTime() - c0
		}
		calls += block
	}
	b.StopTimer()
	var allocs [n]float64
	for side := range n {
		allocs[side] = allocsPerCall(4096, func(j int) { call(side, calls+j) })
	}
	perCall := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(calls) }
	b.ReportMetric(perCall(cpu[plain]), "plain-cpu-ns/op")
	for side, name := range map[int]string{asking: "asking", estimating: "estimating"} {
		b.ReportMetric(perCall(cpu[side]-cpu[plain]), name+"-added-cpu-ns/op")
		b.ReportMetric(allocs[side]-allocs[plain], name+"-added-allocs/op")
	}
}

// BenchmarkRecord measures the recording alone, without the HTTP round
// trip around it: a window charged one GetItem.
func BenchmarkRecord(b *testing.B) {
	cw, err := clientwindow.New(detector.DefaultConfig().Sketch, "Users", t0, t0.Add(60e9))
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
		k := ddb.Key{Type: ddb.String, Value: keys[i%len(keys)]}
		cw.AddRequest(k, t0, 1e6, true, true)
		cw.AddCapacity(k, t0, 1, 0)
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
