package clientwatch_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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

// TestThrottledTransactionItemsOnDynamoDBLocal: DynamoDB throttles items
// of a transaction with TransactionCanceledException, CancellationReasons
// saying ThrottlingError for each throttled item. Each such attempt
// counts once in the window, and once for the key of each throttled item
// (reason "ThrottlingError"), never for the transaction's other keys. The
// caller gets the plain client's error, reasons and all.
func TestThrottledTransactionItemsOnDynamoDBLocal(t *testing.T) {
	table, proxy, w := throttledTable(t, faultproxy.Rule{Period: 1, Throttle: 1})
	plain, inst := newClient(proxy.URL, nil, nil), newClient(proxy.URL, w, nil)
	item := func(k string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"pk": s(k)} }
	write := func(c *dynamodb.Client) error {
		_, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: &table, Item: item("cold#1")}},
			{Put: &types.Put{TableName: &table, Item: item("hot")}},
			{Update: &types.Update{TableName: &table, Key: item("cold#2"), UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("x")}}},
		}})
		return err
	}
	get := func(c *dynamodb.Client) error {
		_, err := c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: &table, Key: item("hot")}},
			{Get: &types.Get{TableName: &table, Key: item("cold#3")}},
		}})
		return err
	}
	const writes, gets = 3, 2
	for i := range writes + gets {
		op := write
		if i >= writes {
			op = get
		}
		plainErr, instErr := op(plain), op(inst)
		var tce, plainTCE *types.TransactionCanceledException
		if !errors.As(instErr, &tce) || !errors.As(plainErr, &plainTCE) {
			t.Fatalf("call %d: instrumented %v, plain %v: want TransactionCanceledException", i, instErr, plainErr)
		}
		if diff := cmp.Diff(plainTCE, tce, sameOutput...); diff != "" {
			t.Fatalf("call %d: errors differ (-plain +instrumented):\n%s", i, diff)
		}
	}
	rep := oneReport(t, w)
	want := throttles{Window: writes + gets, Keys: map[string]keyThrottles{
		"hot": {writes + gets, map[string]uint64{"ThrottlingError": writes + gets}},
	}}
	if diff := cmp.Diff(want, throttlesOf(rep)); diff != "" {
		t.Errorf("throttles (-want +got):\n%s", diff)
	}
	requests := map[string]uint64{}
	for _, k := range rep.TopKeys {
		requests[k.Key] = k.Requests
	}
	if diff := cmp.Diff(map[string]uint64{"hot": writes + gets, "cold#1": writes, "cold#2": writes, "cold#3": gets}, requests); diff != "" {
		t.Errorf("requests per key (-want +got):\n%s", diff)
	}
}

// TestBatchThrottleCountsOncePerRequestOnDynamoDBLocal: a throttled
// BatchWriteItem naming three keys is one throttled request: once in the
// window's total (the run counted 3 throttled requests as 9), and
// once for each key it names.
func TestBatchThrottleCountsOncePerRequestOnDynamoDBLocal(t *testing.T) {
	table, proxy, w := throttledTable(t, faultproxy.Rule{Period: 3, Throttle: 2, Reason: "TableWriteKeyRangeThroughputExceeded"})
	inst := newClient(proxy.URL, w, nil)
	const calls = 2
	for range calls {
		var wr []types.WriteRequest
		for _, k := range []string{"hot", "a", "b"} {
			wr = append(wr, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(k)}}})
		}
		if _, err := inst.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: wr}}); err != nil {
			t.Fatal(err) // the third attempt goes through
		}
	}
	const throttled = 2 * calls
	if got := proxy.Throttled(); got != throttled {
		t.Fatalf("the proxy throttled %d requests, want %d", got, throttled)
	}
	each := keyThrottles{throttled, map[string]uint64{"TableWriteKeyRangeThroughputExceeded": throttled}}
	want := throttles{Window: throttled, Keys: map[string]keyThrottles{"hot": each, "a": each, "b": each}}
	if diff := cmp.Diff(want, throttlesOf(oneReport(t, w))); diff != "" {
		t.Errorf("throttles (-want +got):\n%s", diff)
	}
}

// TestUnprocessedItemsOnDynamoDBLocal: DynamoDB throttles part of a batch
// by handing its items back in UnprocessedItems (BatchWriteItem) or
// UnprocessedKeys (BatchGetItem). Those count per key as unprocessed, apart
// from throttled requests, flag the key, and cost nothing: the batch's
// capacity goes to the items DynamoDB did, exactly as DynamoDB Local
// charges them one by one.
func TestUnprocessedItemsOnDynamoDBLocal(t *testing.T) {
	table, proxy, w := throttledTable(t, faultproxy.Rule{Period: 1, Throttle: 1, Unprocessed: true})
	ep := dynamodblocal.Endpoint(t)
	plainDirect := newClient(ep, nil, nil)
	sizes := map[string]int{"hot": 100, "a": 2000, "b": 5000}
	item := func(k string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(k), "v": s(strings.Repeat("v", sizes[k]))}
	}
	// The oracle: DynamoDB Local charging a and b alone, on another table.
	oracleTable := createTable(t, plainDirect)
	want := map[string]capacity{"hot": {}}
	for _, k := range []string{"a", "b"} {
		put, err := plainDirect.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &oracleTable, Item: item(k), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		get, err := plainDirect.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: &oracleTable, Key: map[string]types.AttributeValue{"pk": s(k)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		want[k] = capacity{RCU: *get.ConsumedCapacity.CapacityUnits, WCU: *put.ConsumedCapacity.CapacityUnits}
	}

	plain, inst := newClient(proxy.URL, nil, nil), newClient(proxy.URL, w, nil)
	var wr []types.WriteRequest
	var keys []map[string]types.AttributeValue
	for _, k := range []string{"hot", "a", "b"} {
		wr = append(wr, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(k)}})
		keys = append(keys, map[string]types.AttributeValue{"pk": s(k)})
	}
	for _, c := range []*dynamodb.Client{plain, inst} {
		out, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: wr}})
		if err != nil || len(out.UnprocessedItems[table]) != 1 {
			t.Fatalf("BatchWriteItem: %+v, %v: want hot's item back unprocessed", out, err)
		}
	}
	var outs []*dynamodb.BatchGetItemOutput
	for _, c := range []*dynamodb.Client{plain, inst} {
		out, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: keys}}})
		if err != nil || len(out.UnprocessedKeys[table].Keys) != 1 {
			t.Fatalf("BatchGetItem: %+v, %v: want hot's key back unprocessed", out, err)
		}
		outs = append(outs, out)
	}
	byKey := cmpopts.SortSlices(func(a, b map[string]types.AttributeValue) bool {
		return a["pk"].(*types.AttributeValueMemberS).Value < b["pk"].(*types.AttributeValueMemberS).Value
	})
	if diff := cmp.Diff(outs[0], outs[1], append(sameOutput, byKey)...); diff != "" {
		t.Errorf("BatchGetItem output (-plain +instrumented):\n%s", diff)
	}

	rep := oneReport(t, w)
	got := map[string]capacity{}
	unprocessed := map[string]uint64{}
	for _, k := range rep.TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
		unprocessed[k.Key] = k.UnprocessedItems
		if k.Key == "hot" && !slices.Contains(k.HotFor, "throttling") {
			t.Errorf("hot: hot for %v, want throttling", k.HotFor)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capacity per key (-DynamoDB Local item by item +report):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]uint64{"hot": 2, "a": 0, "b": 0}, unprocessed); diff != "" || rep.UnprocessedItems != 2 || rep.ThrottledAttempts != 0 {
		t.Errorf("unprocessed items per key (-want +got):\n%s\nwindow: %d unprocessed, %d throttled attempts; want 2, 0", diff, rep.UnprocessedItems, rep.ThrottledAttempts)
	}
}
