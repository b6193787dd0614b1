package clientwatch_test

import (
	"context"
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
