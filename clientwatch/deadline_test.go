package clientwatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
)

const readReason = "TableReadKeyRangeThroughputExceeded"

// throttledTable is a table on DynamoDB Local holding key "hot", behind a
// proxy that applies rule to it, and a Watcher that knows its key.
func throttledTable(t *testing.T, rule faultproxy.Rule) (table string, proxy *faultproxy.Proxy, w *clientwatch.Watcher) {
	t.Helper()
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table = createTable(t, plain)
	if _, err := plain.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s("hot"), "v": s("x")}}); err != nil {
		t.Fatal(err)
	}
	rule.Attribute, rule.Value = "pk", "hot"
	rule.Resource = "arn:aws:dynamodb:us-east-1:000000000000:table/" + table
	proxy = faultproxy.Start(t, ep, rule)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	return table, proxy, newWatcher(t, opts)
}

// throttles is what a report says of throttling: the window's count and
// each key's, with its reasons.
type throttles struct {
	Window uint64
	Keys   map[string]keyThrottles
}

type keyThrottles struct {
	Attempts uint64
	Reasons  map[string]uint64
}

func throttlesOf(r reported) throttles {
	got := throttles{Window: r.ThrottledAttempts, Keys: map[string]keyThrottles{}}
	for _, k := range r.TopKeys {
		if k.ThrottledAttempts == 0 && len(k.ThrottlingReasons) == 0 {
			continue
		}
		kt := keyThrottles{Attempts: k.ThrottledAttempts, Reasons: map[string]uint64{}}
		for _, tr := range k.ThrottlingReasons {
			kt.Reasons[tr.Reason] = tr.Attempts
		}
		got.Keys[k.Key] = kt
	}
	return got
}

// TestThrottleCountedWhenTheDeadlinePassesInBackoff: every attempt on the
// key is throttled, and the caller's deadline passes during the SDK's
// backoff before the retry. The SDK then returns a cancellation error
// that no longer wraps the throttle; the caller sees exactly what a plain
// client sees, and every throttled attempt still counts (the run:
// 5 calls, 5 throttled attempts, 0 counted).
func TestThrottleCountedWhenTheDeadlinePassesInBackoff(t *testing.T) {
	table, proxy, w := throttledTable(t, faultproxy.Rule{Period: 1, Throttle: 1, Reason: readReason})
	var call *deadline
	plain := newClientBackoff(proxy.URL, nil, func() { call.expire() })
	inst := newClientBackoff(proxy.URL, w, func() { call.expire() })
	const calls = 5
	for i := range calls {
		var errs [2]error
		for j, c := range []*dynamodb.Client{plain, inst} {
			call = newDeadline(ctxT(t))
			_, errs[j] = c.GetItem(call, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("hot")}})
		}
		if !errors.Is(errs[1], context.DeadlineExceeded) || errs[0].Error() != errs[1].Error() {
			t.Fatalf("call %d: the instrumented caller got %v, the plain caller %v: want the same deadline error", i, errs[1], errs[0])
		}
	}
	if got := proxy.Throttled(); got != 2*calls {
		t.Fatalf("the proxy throttled %d attempts, want %d", got, 2*calls)
	}
	want := throttles{Window: calls, Keys: map[string]keyThrottles{"hot": {calls, map[string]uint64{readReason: calls}}}}
	if diff := cmp.Diff(want, throttlesOf(oneReport(t, w))); diff != "" {
		t.Errorf("throttled attempts counted (-want +got):\n%s", diff)
	}
}

// TestThrottleCountedWhenTheDeadlinePassesInFlight: the first attempt is
// throttled, the retry is held by the proxy until the caller's deadline
// passes. The throttled attempt counts, and so does the call.
func TestThrottleCountedWhenTheDeadlinePassesInFlight(t *testing.T) {
	table, proxy, w := throttledTable(t, faultproxy.Rule{Period: 2, Throttle: 1, Hold: true, Reason: readReason})
	inst := newClient(proxy.URL, w, nil)
	const calls = 3
	for i := range calls {
		call := newDeadline(ctxT(t))
		done := make(chan error)
		go func() {
			_, err := inst.GetItem(call, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("hot")}})
			done <- err
		}()
		<-proxy.Held()
		call.expire()
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v, want the deadline's error", i, err)
		}
	}
	rep := oneReport(t, w)
	want := throttles{Window: calls, Keys: map[string]keyThrottles{"hot": {calls, map[string]uint64{readReason: calls}}}}
	if diff := cmp.Diff(want, throttlesOf(rep)); diff != "" {
		t.Errorf("throttled attempts counted (-want +got):\n%s", diff)
	}
	if rep.Requests != calls {
		t.Errorf("%d requests, want %d", rep.Requests, calls)
	}
}
