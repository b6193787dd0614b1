package clientwatch_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestThrottledKeyOnDynamoDBLocal puts the fault-injecting proxy between
// the instrumented client and DynamoDB Local: two of every three requests
// on key "hot" get DynamoDB's throttling error. Every call must still
// succeed through the SDK's retries, and the report must find the key
// with every throttled attempt counted, retried ones included, and the
// reason DynamoDB gave.
func TestThrottledKeyOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + table
	proxy := faultproxy.Start(t, ep, faultproxy.Rule{
		Attribute: "pk", Value: "hot", Period: 3, Throttle: 2,
		Reason: "TableReadKeyRangeThroughputExceeded", Resource: arn,
	})

	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	inst := newClient(proxy.URL, w, nil)

	keys := []string{"hot", "cold#1", "cold#2", "cold#3"}
	for _, k := range keys {
		if _, err := plain.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s(k), "v": s("value of " + k)}}); err != nil {
			t.Fatal(err)
		}
	}
	const calls = 30
	for i := range calls {
		for _, k := range keys {
			out, err := inst.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(k)}})
			if err != nil {
				t.Fatalf("call %d on %s: %v (the SDK's retries should get through)", i, k, err)
			}
			if diff := cmp.Diff(map[string]types.AttributeValue{"pk": s(k), "v": s("value of " + k)}, out.Item, sameOutput...); diff != "" || out.ConsumedCapacity != nil {
				t.Fatalf("call %d on %s: item (-want +got):\n%s\nConsumedCapacity %v (the caller did not ask)", i, k, diff, out.ConsumedCapacity)
			}
		}
	}
	if got := proxy.Throttled(); got != 2*calls {
		t.Fatalf("the proxy throttled %d requests, want %d", got, 2*calls)
	}

	reps := w.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	rep := reps[0]
	if rep.ThrottledAttempts != 2*calls || rep.Requests != calls*uint64(len(keys)) {
		t.Errorf("report: %d throttled attempts in %d requests, want %d in %d", rep.ThrottledAttempts, rep.Requests, 2*calls, calls*len(keys))
	}
	type flagged struct {
		Key      string
		Severity report.Severity
		HotFor   []report.Cause
		Attempts uint64
		Reasons  []report.ThrottlingReasonCount
	}
	var got []flagged
	for _, k := range rep.HotKeys {
		got = append(got, flagged{k.Key, k.Severity, k.HotFor, k.ThrottledAttempts, k.ThrottlingReasons})
		if !strings.Contains(k.Diagnosis, "The reads are throttled") {
			t.Errorf("diagnosis of %s: %q, want it to say the reads are throttled", k.Key, k.Diagnosis)
		}
	}
	want := []flagged{{"hot", report.Critical, []report.Cause{report.CauseThrottling}, 2 * calls,
		[]report.ThrottlingReasonCount{{Reason: "TableReadKeyRangeThroughputExceeded", Attempts: 2 * calls}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flagged keys (-want +got):\n%s", diff)
	}
}

// TestThrottledToTheEndOnDynamoDBLocal: when every attempt is throttled,
// the caller gets DynamoDB's error, unchanged, and all its attempts count.
func TestThrottledToTheEndOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	proxy := faultproxy.Start(t, ep, faultproxy.Rule{
		Attribute: "pk", Value: "doomed", Period: 1, Throttle: 1, ErrorType: "ThrottlingException",
		Reason: "TableWriteKeyRangeThroughputExceeded", Resource: "arn:aws:dynamodb:us-east-1:000000000000:table/" + table,
	})
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	put := func(c *dynamodb.Client) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": s("doomed")}})
		return err
	}
	plainErr, instErr := put(newClient(proxy.URL, nil, nil)), put(newClient(proxy.URL, w, nil))
	var te *types.ThrottlingException
	if !errors.As(instErr, &te) || apiError(instErr) != apiError(plainErr) {
		t.Fatalf("instrumented caller got %v, plain caller %v: want the same ThrottlingException", instErr, plainErr)
	}
	var plainTE *types.ThrottlingException
	errors.As(plainErr, &plainTE)
	if diff := cmp.Diff(plainTE, te, sameOutput...); diff != "" {
		t.Errorf("errors differ (-plain +instrumented):\n%s", diff)
	}
	rep := w.Reports()[0]
	k := rep.HotKeys[0]
	got := fmt.Sprintf("%d %s %d %v %v", rep.ThrottledAttempts, k.Key, k.ThrottledAttempts, k.ThrottlingReasons, k.HotFor)
	if want := "3 doomed 3 [{TableWriteKeyRangeThroughputExceeded 3}] [throttling]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
