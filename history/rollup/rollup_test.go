package rollup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const writeShards = 4

// windows returns the stored windows of shards stream shards for the
// minutes starting at start, the table's and index GSI1's, as the Lambda
// makes them: keys USER#n, and HOT at 150 WCU/s on shard m%shards.
func windows(t testing.TB, shards, minutes int, start time.Time) []*history.Summary {
	rng := rand.New(rand.NewPCG(uint64(shards), uint64(minutes)))
	cfg := detector.DefaultConfig()
	var out []*history.Summary
	for m := range minutes {
		ws := start.Add(time.Duration(m) * time.Minute)
		for sh := range shards {
			shard := fmt.Sprintf("shardId-%03d", sh)
			w, err := detector.NewWindow(cfg.Sketch, "Orders", ws, ws.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			iw, err := detector.NewIndexWindow(cfg.IndexSketchConfig(), "Orders", "GSI1", ws, ws.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			for sec := range 60 {
				r := record.Record{Table: "Orders", Shard: shard, Time: ws.Add(time.Duration(sec) * time.Second), WCUExact: true}
				for range 3 {
					r.PartitionKey, r.WCU = ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "USER#%d", rng.IntN(500))}, 1
					w.Add(&r)
				}
				if m%shards == sh {
					r.PartitionKey, r.WCU = ddb.Key{Type: ddb.String, Value: []byte("HOT")}, 150
					w.Add(&r)
				}
				iw.AddIndex(&r, &record.IndexWrite{Index: "GSI1", WCU: 2, Exact: true,
					Put: ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: []byte("OPS_LOG")}, WCU: 2}})
			}
			for _, win := range []*detector.Window{w, iw} {
				hll, err := win.AppendDistinct(nil)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, history.FromReport(win.Report(cfg), shard, hll))
			}
		}
	}
	return out
}

type fixture struct {
	api   *dynamodb.Client
	table *store.Table
	job   *Job
	logs  *bytes.Buffer
	clock time.Time
}

func newFixture(t *testing.T) *fixture {
	api, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "rollup", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	f := &fixture{api: api, table: newTable(t, api, name), logs: &bytes.Buffer{}}
	f.job = f.newJob(t, f.table)
	return f
}

// newTable returns the history table name, as the stream function writes
// it: writeShards write shards, items kept a day.
func newTable(t *testing.T, api store.API, name string) *store.Table {
	table, err := store.New(api, name, store.Options{WriteShards: writeShards, Retention: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func (f *fixture) newJob(t *testing.T, table *store.Table) *Job {
	job, err := New(table, Config{Window: time.Minute}, slog.New(slog.NewJSONHandler(f.logs, nil)), func() time.Time { return f.clock })
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func (f *fixture) store(t *testing.T, sums ...*history.Summary) {
	for _, s := range sums {
		if err := f.table.Put(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs the job as scheduled at scheduled, with its clock at the
// scheduled time (EventBridge Scheduler may be up to 59 s later: nothing
// depends on it).
func (f *fixture) run(t *testing.T, scheduled time.Time) Result {
	t.Helper()
	f.clock = scheduled.Add(37 * time.Second)
	res, err := f.job.Run(context.Background(), scheduled)
	if err != nil {
		t.Fatalf("run at %s: %v", scheduled.Format("15:04"), err)
	}
	return res
}

// items returns every item of the table, each as a line of its
// attributes in name order, sorted: for comparing a table before and
// after, byte for byte.
func (f *fixture) items(t *testing.T) []string {
	out, err := f.api.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(f.table.Name()), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, item := range out.Items {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(item)) {
			switch v := item[name].(type) {
			case *types.AttributeValueMemberS:
				fmt.Fprintf(&b, "%s=S:%s ", name, v.Value)
			case *types.AttributeValueMemberN:
				fmt.Fprintf(&b, "%s=N:%s ", name, v.Value)
			case *types.AttributeValueMemberB:
				fmt.Fprintf(&b, "%s=B:%x ", name, v.Value)
			case *types.AttributeValueMemberBOOL:
				fmt.Fprintf(&b, "%s=BOOL:%v ", name, v.Value)
			case *types.AttributeValueMemberNS:
				fmt.Fprintf(&b, "%s=NS:%v ", name, slices.Sorted(slices.Values(v.Value)))
			default:
				t.Fatalf("attribute %s of type %T", name, v)
			}
		}
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	return lines
}

// rollups reads the rollups of level over [from, to) back.
func (f *fixture) rollups(t *testing.T, level store.Level, from, to time.Time) []*history.Summary {
	r := f.table.Reader(0)
	var out []*history.Summary
	err := r.Rollups(context.Background(), level, from, to, func(s *history.Summary) error { out = append(out, s); return nil },
		func(key string, err error) { t.Errorf("skipped %s: %v", key, err) })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *fixture) coverage(t *testing.T, from, to time.Time) *store.Coverage {
	c, err := f.table.Reader(0).Coverage(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// direct merges the windows into steps, as reading every shard's window
// does: what a rollup must report.
func direct(t *testing.T, sums []*history.Summary, step time.Duration) map[string]report.Report {
	out := map[string]report.Report{}
	ms := map[string]*history.Merger{}
	for _, s := range sums {
		id := history.Source(s.Table, s.Index)
		if ms[id] == nil {
			ms[id], _ = history.NewMerger(s.Table, s.Index, step, 10)
		}
		if err := ms[id].Add(s); err != nil {
			t.Fatal(err)
		}
	}
	for id, m := range ms {
		for _, rep := range m.Reports() {
			out[fmt.Sprintf("%s %s", id, rep.Start.Format("15:04"))] = rep
		}
	}
	return out
}

func reportsOf(sums []*history.Summary) map[string]report.Report {
	out := map[string]report.Report{}
	for _, s := range sums {
		out[fmt.Sprintf("%s %s", history.Source(s.Table, s.Index), s.Start.Format("15:04"))] = s.Report(10)
	}
	return out
}

// TestRunRollsUpAWindowAndRerunsIdempotently: the run scheduled a minute
// after a window's end rolls it up, the table's and the index's, not
// settled; each rollup reports exactly what the shards' windows merged
// report; running it again (Lambda retries; Scheduler may deliver twice)
// leaves every item byte for byte as it was.
func TestRunRollsUpAWindowAndRerunsIdempotently(t *testing.T) {
	f := newFixture(t)
	sums := windows(t, 3, 2, t0)
	f.store(t, sums...)
	res := f.run(t, t0.Add(time.Minute+Grace))
	if !res.First.Equal(t0) || !res.Settled.Equal(t0.Add(Grace-Settle)) || res.Rollups != 2 || res.Sources != 6 || res.Skipped != 0 {
		t.Fatalf("result %+v: want the window of 10:00 rolled up (2 rollups of 3 windows each), that of 08:51 settled (none)", res)
	}
	got := f.rollups(t, store.Windows, t0, t0.Add(time.Hour))
	if diff := cmp.Diff(direct(t, sums[:6], time.Minute), reportsOf(got)); diff != "" {
		t.Errorf("rollups (-merged from the shards +rolled up):\n%s", diff)
	}
	if c := f.coverage(t, t0, t0.Add(time.Hour)); !cmp.Equal(c.Windows, map[int64]bool{t0.Unix(): false}) || c.WriteShards != writeShards {
		t.Errorf("coverage %+v: want 10:00 rolled up, not settled, under %d write shards", c, writeShards)
	}
	before := f.items(t)
	f.run(t, t0.Add(time.Minute+Grace))
	if diff := cmp.Diff(before, f.items(t)); diff != "" {
		t.Errorf("a rerun changed the table (-before +after):\n%s", diff)
	}
}

// TestRunSettlesALateWindow: a shard's window stored after the first
// rollup (its final invoke came late) is missing from it, and the rollup
// says it is not settled; the run Settle after the window's end rolls it
// up again with the late window, and marks it settled.
func TestRunSettlesALateWindow(t *testing.T) {
	f := newFixture(t)
	sums := windows(t, 3, 1, t0)
	late := sums[4:] // shard 2's windows, the table's and the index's
	f.store(t, sums[:4]...)
	f.run(t, t0.Add(time.Minute+Grace))
	first := f.rollups(t, store.Windows, t0, t0.Add(time.Minute))
	if len(first) != 2 || first[0].Sources != 2 {
		t.Fatalf("first rollups %d, sources %d: want 2 of 2 windows each", len(first), first[0].Sources)
	}
	f.store(t, late...)
	res := f.run(t, t0.Add(time.Minute+Settle))
	if !res.Settled.Equal(t0) || res.Rollups != 2 || res.Sources != 6 {
		t.Fatalf("settling run %+v: want 10:00 settled, 2 rollups of 3 windows", res)
	}
	got := f.rollups(t, store.Windows, t0, t0.Add(time.Minute))
	if diff := cmp.Diff(direct(t, sums, time.Minute), reportsOf(got)); diff != "" {
		t.Errorf("settled rollups (-merged from the shards +rolled up):\n%s", diff)
	}
	if c := f.coverage(t, t0, t0.Add(time.Minute)); !cmp.Equal(c.Windows, map[int64]bool{t0.Unix(): true}) {
		t.Errorf("coverage %v: want 10:00 settled", c.Windows)
	}
	// The first run, retried after the settling one, changes nothing: a
	// rollup of fewer windows never replaces one of more.
	before := f.items(t)
	f.run(t, t0.Add(time.Minute+Grace))
	after := f.items(t)
	// Only the coverage's window set may change (it already holds 10:00).
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the first run retried after the settling one (-before +after):\n%s", diff)
	}
}

// TestRunRollsUpAnHour: the settling run of an hour's last window rolls
// up the hour from the settled window rollups, after settling the windows
// whose runs never happened (here every other one): its report has every
// shard window's totals, and bounds that contain those of the shards'
// windows merged directly.
func TestRunRollsUpAnHour(t *testing.T) {
	f := newFixture(t)
	sums := windows(t, 2, 60, t0)
	f.store(t, sums...)
	for m := 0; m < 60; m += 2 {
		f.run(t, t0.Add(time.Duration(m+1)*time.Minute+Settle))
	}
	res := f.run(t, t0.Add(time.Hour+Settle))
	if !res.Hour.Equal(t0) {
		t.Fatalf("result %+v: want the hour of 10:00 rolled up", res)
	}
	c := f.coverage(t, t0, t0.Add(time.Hour))
	if len(c.Windows) != 60 || !c.Hours[t0.Unix()] {
		t.Errorf("coverage: %d windows, hour %v; want 60, the hour", len(c.Windows), c.Hours)
	}
	for at, settled := range c.Windows {
		if !settled {
			t.Errorf("window %s not settled", time.Unix(at, 0).UTC().Format("15:04"))
		}
	}
	hours := f.rollups(t, store.Hours, t0, t0.Add(time.Hour))
	want := direct(t, sums, time.Hour)
	if len(hours) != 2 {
		t.Fatalf("%d hour rollups, want the table's and the index's", len(hours))
	}
	for _, h := range hours {
		got := h.Report(10)
		w := want[fmt.Sprintf("%s %s", history.Source(h.Table, h.Index), h.Start.Format("15:04"))]
		if h.Sources != 120 || got.WCU != w.WCU || got.Records != w.Records || got.DistinctKeys != w.DistinctKeys {
			t.Errorf("%s: %d sources, WCU %d, records %d, distinct %d; want 120, %d, %d, %d", history.Source(h.Table, h.Index),
				h.Sources, got.WCU, got.Records, got.DistinctKeys, w.WCU, w.Records, w.DistinctKeys)
		}
		bounds := map[string]report.KeyReport{}
		for _, k := range got.TopKeys {
			bounds[k.Key] = k
		}
		for _, k := range w.TopKeys {
			if g, ok := bounds[k.Key]; !ok || g.WCULower > k.WCULower || g.WCUUpper < k.WCUUpper {
				t.Errorf("%s %s: [%d, %d] rolled up, [%d, %d] merged directly", history.Source(h.Table, h.Index), k.Key, g.WCULower, g.WCUUpper, k.WCULower, k.WCUUpper)
			}
		}
	}
}

// TestRunFailsAndIsRetried: a run whose rollups DynamoDB refuses (every
// put of the hour's window rollups throttled, through a proxy speaking
// DynamoDB's error) returns the error, so that Lambda retries it and the
// alarm on the function's errors fires, and marks nothing rolled up:
// readers keep reading the shards' windows. Run again once DynamoDB takes
// the writes, it stores what a run that never failed stores.
func TestRunFailsAndIsRetried(t *testing.T) {
	f := newFixture(t)
	sums := windows(t, 2, 1, t0)
	f.store(t, sums...)
	proxy := faultproxy.Start(t, dynamodblocal.Endpoint(t), faultproxy.Rule{Attribute: store.AttrDay, Value: "2026-11-22#m10",
		Period: 1, Throttle: 1, Reason: "TableWriteKeyRangeThroughputExceeded"})
	throttled := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(proxy.URL), Region: dynamodblocal.Region,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), DisableValidateResponseChecksum: true,
		Retryer: retry.AddWithMaxBackoffDelay(retry.AddWithMaxAttempts(retry.NewStandard(), 2), time.Millisecond)})
	failing := f.newJob(t, newTable(t, throttled, f.table.Name()))
	f.clock = t0.Add(2 * time.Minute)
	_, err := failing.Run(context.Background(), t0.Add(time.Minute+Grace))
	var api smithy.APIError
	if err == nil || !errors.As(err, &api) || api.ErrorCode() != "ProvisionedThroughputExceededException" || proxy.Throttled() == 0 {
		t.Fatalf("a run whose writes are throttled: %v; want the throttling error", err)
	}
	if c := f.coverage(t, t0, t0.Add(time.Hour)); len(c.Windows) != 0 {
		t.Errorf("coverage after the failed run: %v, want nothing rolled up", c.Windows)
	}
	f.run(t, t0.Add(time.Minute+Grace))
	clean := newFixture(t)
	clean.store(t, sums...)
	clean.run(t, t0.Add(time.Minute+Grace))
	strip := func(lines []string) []string { // the table names differ
		for i, l := range lines {
			lines[i] = strings.ReplaceAll(l, f.table.Name(), "T")
		}
		return lines
	}
	if diff := cmp.Diff(strip(clean.items(t)), strip(f.items(t))); diff != "" {
		t.Errorf("retried after a failure (-never failed +retried):\n%s", diff)
	}
}

// TestNew refuses what the job cannot roll up, and sizes a rollup as the
// shortest whole number of windows that is whole minutes. (store.New
// refuses a table without a name or with write shards out of bounds.)
func TestNew(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	table := newTable(t, api, "H")
	for _, c := range []struct {
		window, length time.Duration
	}{{time.Minute, time.Minute}, {45 * time.Second, 3 * time.Minute}, {5 * time.Minute, 5 * time.Minute},
		{400 * time.Second, 20 * time.Minute}, {10 * time.Second, time.Minute}, {15 * time.Minute, 15 * time.Minute}} {
		j, err := New(table, Config{Window: c.window}, slog.Default(), time.Now)
		if err != nil || j.length != c.length {
			t.Errorf("window %s: %v, rollups of %v; want %s", c.window, err, j, c.length)
		}
	}
	for name, window := range map[string]time.Duration{
		"7-minute windows":   7 * time.Minute,
		"1.5-second windows": 1500 * time.Millisecond,
	} {
		if _, err := New(table, Config{Window: window}, slog.Default(), time.Now); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	readOnly, err := store.New(api, "H", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(readOnly, Config{Window: time.Minute}, slog.Default(), time.Now); !errors.Is(err, ErrConfig) {
		t.Errorf("no retention: %v, want ErrConfig", err)
	}
}
