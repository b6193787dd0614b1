package clientwatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
)

// fakeClock advances by step on every reading, so that a run of calls
// spreads over known seconds and nothing depends on the wall clock.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

// t0 is a window boundary: windows are aligned to multiples of their length.
var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// newWatcher returns a Watcher made with opts on the tests' clock: from t0,
// a millisecond per reading.
func newWatcher(t testing.TB, opts clientwatch.Options) *clientwatch.Watcher {
	t.Helper()
	opts.Now = (&fakeClock{t: t0, step: time.Millisecond}).Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// newClient returns a DynamoDB client for endpoint whose retries never
// sleep (a zero backoff and no client-side retry quota), optionally
// instrumented by w.
func newClient(endpoint string, w *clientwatch.Watcher, hc dynamodb.HTTPClient) *dynamodb.Client {
	o := dynamodb.Options{
		BaseEndpoint:                    aws.String(endpoint),
		Region:                          "us-east-1",
		Credentials:                     credentials.NewStaticCredentialsProvider("test", "test", ""),
		DisableValidateResponseChecksum: true,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			o.RateLimiter = ratelimit.None
		}),
	}
	if hc != nil {
		o.HTTPClient = hc
	}
	var opts []func(*dynamodb.Options)
	if w != nil {
		opts = append(opts, w.ClientOption())
	}
	return dynamodb.New(o, opts...)
}

// sameOutput compares two operation outputs whole, all fields, except
// ResultMetadata (request ids and the SDK's own bookkeeping, which differ
// from call to call whatever the middleware does).
var sameOutput = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ResultMetadata" }, cmp.Ignore()),
}

// apiError reduces an error to what a caller can act on: DynamoDB's error
// code and message (the SDK's wrapper quotes a request id that differs on
// every call).
func apiError(err error) string {
	if err == nil {
		return ""
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode() + ": " + ae.ErrorMessage()
	}
	return err.Error()
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// deadline is a context whose deadline the test declares passed with
// expire: Done closes and Err says context.DeadlineExceeded, as when a
// real deadline passes, with no clock involved.
type deadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newDeadline(parent context.Context) *deadline {
	return &deadline{Context: parent, done: make(chan struct{})}
}

func (d *deadline) Done() <-chan struct{} { return d.done }

func (d *deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return d.Context.Err()
	}
}

func (d *deadline) expire() { d.once.Do(func() { close(d.done) }) }

// newClientBackoff is newClient whose retryer calls backoff before each
// retry's backoff, which lasts an hour: a test ends the call's context in
// backoff, and the SDK's sleep returns at once with the context's error.
func newClientBackoff(endpoint string, w *clientwatch.Watcher, backoff func()) *dynamodb.Client {
	return dynamodb.New(newClient(endpoint, w, nil).Options(), func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) {
				backoff()
				return time.Hour, nil
			})
			so.RateLimiter = ratelimit.None
		})
	})
}

// reported is a client report as its JSON says it, decoded here by hand:
// the tests read the figures a user reads.
type reported struct {
	Table                string        `json:"table"`
	Index                string        `json:"index"`
	Requests             uint64        `json:"requests"`
	RCU                  float64       `json:"rcu"`
	WCU                  uint64        `json:"wcu"`
	UnattributedRequests uint64        `json:"unattributed_requests"`
	UnattributedRCU      float64       `json:"unattributed_rcu"`
	UnattributedWCU      uint64        `json:"unattributed_wcu"`
	ThrottledAttempts    uint64        `json:"throttled_attempts"`
	UnprocessedItems     uint64        `json:"unprocessed_items"`
	InternalErrors       uint64        `json:"internal_errors"`
	CapacityEstimated    bool          `json:"capacity_estimated"`
	TopKeys              []reportedKey `json:"top_keys"`
}

type reportedKey struct {
	Key               string   `json:"key"`
	Requests          uint64   `json:"requests"`
	RCU               float64  `json:"rcu"`
	RCULower          float64  `json:"rcu_lower"`
	RCUUpper          float64  `json:"rcu_upper"`
	WCU               uint64   `json:"wcu"`
	WCULower          uint64   `json:"wcu_lower"`
	WCUUpper          uint64   `json:"wcu_upper"`
	Apportioned       bool     `json:"apportioned"`
	ThrottledAttempts uint64   `json:"throttled_attempts"`
	UnprocessedItems  uint64   `json:"unprocessed_items"`
	HotFor            []string `json:"hot_for"`
	ThrottlingReasons []struct {
		Reason   string `json:"reason"`
		Attempts uint64 `json:"attempts"`
	} `json:"throttling_reasons"`
}

// reportsJSON is the JSON of every report of w, decoded as reported.
func reportsJSON(t *testing.T, w *clientwatch.Watcher) []reported {
	t.Helper()
	var out []reported
	for _, r := range w.Reports() {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var got reported
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

// oneReport returns the one report of w, failing the test if there are
// more or none.
func oneReport(t *testing.T, w *clientwatch.Watcher) reported {
	t.Helper()
	reps := reportsJSON(t, w)
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1: %+v", len(reps), reps)
	}
	return reps[0]
}
