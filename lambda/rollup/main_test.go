package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/rollup"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/envconfig"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
	"github.com/hotkeys-dev/hotkeys/report"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	cfg, err := configFromEnv(env(map[string]string{"HOTKEYS_HISTORY_TABLE": "H"}))
	if err != nil || cfg != (config{history: envconfig.History{Table: "H", Retention: 30 * 24 * time.Hour, WriteShards: store.DefaultWriteShards}, window: time.Minute, partitionLimit: 1000}) {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = configFromEnv(env(map[string]string{"HOTKEYS_HISTORY_TABLE": "H", "HOTKEYS_WINDOW": "300", "HOTKEYS_HISTORY_WRITE_SHARDS": "128", "HOTKEYS_HISTORY_RETENTION_DAYS": "7", "HOTKEYS_PARTITION_LIMIT": "12.5"}))
	if err != nil || cfg != (config{history: envconfig.History{Table: "H", Retention: 7 * 24 * time.Hour, WriteShards: 128}, window: 5 * time.Minute, partitionLimit: 12.5}) {
		t.Errorf("set: %+v, %v", cfg, err)
	}
	for name, bad := range map[string][]string{
		"HOTKEYS_HISTORY_TABLE":          {""},
		"HOTKEYS_WINDOW":                 {"7m", "0", "1.5s", "x", "2h"},
		"HOTKEYS_HISTORY_WRITE_SHARDS":   {"0", "1025", "x"},
		"HOTKEYS_HISTORY_RETENTION_DAYS": {"0", "3651", "x"},
		"HOTKEYS_PARTITION_LIMIT":        {"0", "-1", "x", "NaN", "1e13"},
	} {
		for _, v := range bad {
			m := map[string]string{"HOTKEYS_HISTORY_TABLE": "H", name: v}
			if _, err := configFromEnv(env(m)); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// TestInvoke runs the function on the event EventBridge Scheduler sends:
// it rolls up the window of its scheduled time, whatever the clock says,
// and refuses an event it cannot read.
func TestInvoke(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "rollupfn", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	start := storeWindows(t, api, name)
	h := newTestHandler(t, dynamodblocal.Endpoint(t), name, callCap, func() time.Time { return start.Add(24 * time.Hour) })
	out, err := h.Invoke(context.Background(), []byte(`{"scheduled_time": "2026-11-22T10:02:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	var res rollup.Result
	if err := json.Unmarshal(out, &res); err != nil || !res.First.Equal(start) || res.Rollups != 1 || res.Sources != 2 {
		t.Errorf("result %s, %v: want the window of 10:00 rolled up from 2 windows", out, err)
	}
	for _, bad := range []string{`{"scheduled_time": "yesterday"}`, `[1]`, `not json`} {
		if _, err := h.Invoke(context.Background(), []byte(bad)); err == nil || !strings.Contains(err.Error(), "rollup:") {
			t.Errorf("event %s: %v, want an error", bad, err)
		}
	}
}

// TestEnvVarsListed: envVars, which the template follows, lists exactly
// the variables configFromEnv reads.
func TestEnvVarsListed(t *testing.T) {
	read := map[string]bool{}
	if _, err := configFromEnv(func(k string) string { read[k] = true; return "H" }); err == nil {
		t.Fatal("HOTKEYS_WINDOW=H accepted")
	}
	read = map[string]bool{}
	configFromEnv(func(k string) string {
		read[k] = true
		if k == "HOTKEYS_HISTORY_TABLE" {
			return "H"
		}
		return ""
	})
	if got := slices.Sorted(maps.Keys(read)); !slices.Equal(got, slices.Sorted(slices.Values(envVars))) {
		t.Errorf("read %v, envVars %v", got, envVars)
	}
}

// newTestHandler is the function as setup makes it, on the history table
// name reached at url (one write shard: a window is two queries), with
// calls capped at cap and retries without backoff (as many as in
// production: retryAttempts).
func newTestHandler(t *testing.T, url, name string, cap time.Duration, now func() time.Time) *handler {
	t.Helper()
	client := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(url), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts, o.RateLimiter = retryAttempts, ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})}, store.ClientOptions)
	table, err := store.New(bounded{client, cap}, name, store.Options{WriteShards: 1, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	job, err := rollup.New(table, rollup.Config{Window: time.Minute}, slog.New(slog.DiscardHandler), now)
	if err != nil {
		t.Fatal(err)
	}
	return &handler{job: job, forecast: &forecaster{table: table}, now: now}
}

// storeWindows stores two shards' windows of 10:00 on 2026-11-22 in the
// history table name, under one write shard.
func storeWindows(t *testing.T, api store.API, name string) time.Time {
	t.Helper()
	table, err := store.New(api, name, store.Options{WriteShards: 1, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, shard := range []string{"shardId-1", "shardId-2"} {
		s := &history.Summary{Table: "Orders", Shard: shard, Start: start, End: start.Add(time.Minute), Totals: report.Totals{Records: 5, WCU: 5}, DistinctKeys: 1,
			Keys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "K", Type: "S", WCU: 5, WCULower: 5, WCUUpper: 5}}}}
		if err := table.Put(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return start
}

// TestRerunChangesNothing: the function run again for the same scheduled
// time (Lambda retries a failed run; Scheduler may deliver twice), minutes
// later by the clock, leaves the history table byte for byte as the first
// run left it; so does the settling run, run twice.
func TestRerunChangesNothing(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "rollupfn", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	start := storeWindows(t, api, name)
	clock := start.Add(2 * time.Minute)
	h := newTestHandler(t, dynamodblocal.Endpoint(t), name, callCap, func() time.Time { return clock })
	for _, scheduled := range []time.Time{start.Add(2 * time.Minute), start.Add(time.Minute + rollup.Settle)} {
		event := fmt.Appendf(nil, `{"scheduled_time": %q}`, scheduled.Format(time.RFC3339))
		if _, err := h.Invoke(context.Background(), event); err != nil {
			t.Fatal(err)
		}
		before := dynamodblocal.Items(t, api, name)
		clock = clock.Add(3 * time.Minute)
		if _, err := h.Invoke(context.Background(), event); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, dynamodblocal.Items(t, api, name)); diff != "" {
			t.Errorf("the run of %s again changed the table (-before +after):\n%s", scheduled.Format("15:04"), diff)
		}
	}
}

// TestRunUnderFaults: with the history table's Query hanging, failing,
// throttled, refused or slow (DynamoDB's own errors, through a proxy), a
// run ends with the error, each call within its cap, having written
// nothing; a slow table only makes it slower.
func TestRunUnderFaults(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	const capped = time.Second
	for _, tc := range []struct {
		mode fault.Mode
		code string
	}{
		{fault.Hang, "context deadline exceeded"},
		{fault.ServerError, "InternalServerError"},
		{fault.Throttle, "ProvisionedThroughputExceededException"},
		{fault.Denied, "AccessDeniedException"},
		{fault.Slow, ""},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "rollupfn", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
			start := storeWindows(t, api, name)
			before := dynamodblocal.Items(t, api, name)
			var inj fault.Injector
			inj.Set(tc.mode, capped/10)
			url := faultproxy.StartFaults(t, dynamodblocal.Endpoint(t), &inj, "Query")
			h := newTestHandler(t, url, name, capped, func() time.Time { return start.Add(24 * time.Hour) })
			out, err := h.Invoke(context.Background(), fmt.Appendf(nil, `{"scheduled_time": %q}`, start.Add(2*time.Minute).Format(time.RFC3339)))
			if tc.code == "" {
				var res rollup.Result
				if err != nil || json.Unmarshal(out, &res) != nil || res.Rollups != 1 || res.Sources != 2 {
					t.Errorf("slow: %s, %v; want the window rolled up from 2 windows", out, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.code) {
				t.Errorf("run: %v, want an error saying %s", err, tc.code)
			}
			if n := inj.Faulted(); n < attemptsOf(tc.mode) {
				t.Errorf("%d requests faulted, want at least %d (one call's attempts)", n, attemptsOf(tc.mode))
			}
			if diff := cmp.Diff(before, dynamodblocal.Items(t, api, name)); diff != "" {
				t.Errorf("a failed run wrote (-before +after):\n%s", diff)
			}
		})
	}
}

// attemptsOf is how many requests one call makes under a fault: the
// retryer's attempts for what it retries.
func attemptsOf(m fault.Mode) int {
	if m == fault.ServerError || m == fault.Throttle {
		return retryAttempts
	}
	return 1
}

// deadlines records when every call began and its deadline, and fails
// it.
type deadlines struct {
	store.API
	mu   sync.Mutex
	seen [][2]time.Time
}

func (d *deadlines) Query(ctx context.Context, _ *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	began := time.Now()
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.seen = append(d.seen, [2]time.Time{began, dl})
	d.mu.Unlock()
	return nil, errors.New("refused by the test")
}

// TestRunWithinTheInvocation: every call's deadline is its cap after it
// starts, and never later than runShare of the time the invocation had,
// so that a run whose calls all hang still ends, with its error, before
// Lambda's timeout.
func TestRunWithinTheInvocation(t *testing.T) {
	for _, tc := range []struct {
		name string
		left time.Duration
	}{{"the cap first", time.Hour}, {"the run's end first", 2 * time.Second}} {
		rec := &deadlines{}
		table, err := store.New(bounded{rec, callCap}, "H", store.Options{Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		job, err := rollup.New(table, rollup.Config{Window: time.Minute}, slog.New(slog.DiscardHandler), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		h := &handler{job: job, now: time.Now}
		before := time.Now()
		deadline := before.Add(tc.left)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_, err = h.Invoke(ctx, []byte(`{"scheduled_time": "2026-11-22T10:02:00Z"}`))
		after := time.Now()
		cancel()
		// The calls the run made (a reader's other queries may still be
		// on their way when the first error ends the run).
		rec.mu.Lock()
		seen := slices.Clone(rec.seen)
		rec.mu.Unlock()
		if err == nil || len(seen) == 0 {
			t.Fatalf("%s: %v after %d calls; want the refusal", tc.name, err, len(seen))
		}
		runEnd := deadline.Add(-time.Duration((1 - runShare) * float64(deadline.Sub(after))))
		for _, call := range seen {
			if dl := call[1]; dl.After(call[0].Add(callCap)) || dl.After(runEnd) {
				t.Errorf("%s: a call's deadline %s after it began and %s after the invocation did; want at most the cap, %s, and at most %s (%.0f %% of the %s left)",
					tc.name, dl.Sub(call[0]), dl.Sub(before), callCap, runEnd.Sub(before), 100*runShare, tc.left)
			}
		}
	}
}

var _ store.API = bounded{}
