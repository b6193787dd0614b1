package faultproxy_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
)

// TestStartFaults: each fault of an operation reaches the SDK's own client
// as DynamoDB's would, a data-plane and a control-plane operation alike,
// while other operations pass through: a hang ends only when the client's
// context does, a 500 and a throttle are retried, a denial is not, and a
// slow request reaches DynamoDB, late.
func TestStartFaults(t *testing.T) {
	for _, tc := range []struct {
		mode     fault.Mode
		op       string
		code     string // the error's, under ServerError, Throttle and Denied
		attempts int
	}{
		{fault.Hang, "PutItem", "", 1},
		{fault.ServerError, "PutItem", "InternalServerError", 3},
		{fault.Throttle, "PutItem", "ProvisionedThroughputExceededException", 3},
		{fault.Throttle, "DescribeTable", "ThrottlingException", 3},
		{fault.Denied, "DescribeTable", "AccessDeniedException", 1},
		{fault.Slow, "PutItem", "", 1},
	} {
		t.Run(tc.mode.String()+"/"+tc.op, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int64
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".DescribeTable") {
					_, _ = w.Write([]byte(`{"Table":{"TableName":"H","KeySchema":[{"AttributeName":"day","KeyType":"HASH"}]}}`))
					return
				}
				_, _ = w.Write([]byte(`{}`))
			}))
			defer upstream.Close()
			var inj fault.Injector
			const delay = 50 * time.Millisecond
			inj.Set(tc.mode, delay)
			url := faultproxy.StartFaults(t, upstream.URL, &inj, tc.op)
			c := dynamodb.New(dynamodb.Options{
				BaseEndpoint: aws.String(url), Region: "us-east-1",
				Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""),
				Retryer: retry.NewStandard(func(so *retry.StandardOptions) {
					so.MaxAttempts, so.RateLimiter = 3, ratelimit.None
					so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				}),
			})
			call := func(ctx context.Context, op string) error {
				if op == "DescribeTable" {
					_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("H")})
					return err
				}
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("H"), Item: map[string]types.AttributeValue{"day": &types.AttributeValueMemberS{Value: "d"}}})
				return err
			}
			other := map[string]string{"PutItem": "DescribeTable", "DescribeTable": "PutItem"}[tc.op]
			if err := call(context.Background(), other); err != nil || served.Load() != 1 {
				t.Fatalf("%s, not faulted: %v, %d served", other, err, served.Load())
			}
			ctx, cancel := fault.CallContext(tc.mode, inj.Faulted)
			defer cancel()
			began := time.Now()
			err := call(ctx, tc.op)
			fault.CheckCall(t, tc.mode, err, tc.code, time.Since(began), delay)
			if want := 1 + map[bool]int64{true: 1}[tc.mode == fault.Slow]; served.Load() != want {
				t.Errorf("DynamoDB served %d requests under %s, want %d", served.Load(), tc.mode, want)
			}
			var pe *types.ProvisionedThroughputExceededException
			if tc.code == "ProvisionedThroughputExceededException" && (!errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
				aws.ToString(pe.ThrottlingReasons[0].Resource) != "arn:aws:dynamodb:us-east-1:123456789012:table/H") {
				t.Errorf("%v: want the typed error with the table's ThrottlingReasons", err)
			}
			if inj.Faulted() != tc.attempts {
				t.Errorf("%d faulted requests, want %d", inj.Faulted(), tc.attempts)
			}
		})
	}
}
