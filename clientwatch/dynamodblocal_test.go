package clientwatch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
)

// op is one call of the workload. run makes it on table through c, asking
// for ConsumedCapacity (INDEXES) when ask is set, and returns the output
// with the table's name replaced by "T" where an output quotes it, the
// capacity it consumed, and the error.
type op struct {
	name string
	keys []string // the partition keys it touches
	run  func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error)
}

var bigValue = strings.Repeat("x", 40_000) // 40 KB: 10 RCU strong, 5 eventual

func getItem(key string, strong bool) op {
	return op{"GetItem", []string{key}, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		o, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(key)}, ConsistentRead: aws.Bool(strong), ReturnConsumedCapacity: rcc})
		return o, one(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity }), err
	}}
}

func putItem(key, value string, conditional bool) op {
	return op{"PutItem", []string{key}, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		in := &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s(key), "v": s(value)}, ReturnConsumedCapacity: rcc}
		if conditional {
			in.ConditionExpression = aws.String("attribute_not_exists(pk)")
		}
		o, err := c.PutItem(ctx, in)
		return o, one(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity }), err
	}}
}

func addCounter(key string) op {
	return op{"UpdateItem", []string{key}, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		o, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(key)},
			UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")},
			ReturnValues: types.ReturnValueUpdatedNew, ReturnConsumedCapacity: rcc})
		return o, one(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity }), err
	}}
}

func deleteItem(key string) op {
	return op{"DeleteItem", []string{key}, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		o, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(key)}, ReturnValues: types.ReturnValueAllOld, ReturnConsumedCapacity: rcc})
		return o, one(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity }), err
	}}
}

func query(key string) op {
	return op{"Query", []string{key}, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		o, err := c.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :k"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":k": s(key)}, ReturnConsumedCapacity: rcc})
		return o, one(o, err, func() *types.ConsumedCapacity { return o.ConsumedCapacity }), err
	}}
}

func batchGet(keys ...string) op {
	return op{"BatchGetItem", keys, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		var ka []map[string]types.AttributeValue
		for _, k := range keys {
			ka = append(ka, map[string]types.AttributeValue{"pk": s(k)})
		}
		o, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: ka}}, ReturnConsumedCapacity: rcc})
		if err != nil {
			return o, nil, err
		}
		cc := o.ConsumedCapacity
		o.Responses = map[string][]map[string]types.AttributeValue{"T": o.Responses[table]}
		return o, cc, err
	}}
}

func batchPut(keys ...string) op {
	return op{"BatchWriteItem", keys, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		var wr []types.WriteRequest
		for i, k := range keys {
			wr = append(wr, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(k), "v": s(strings.Repeat("b", 500*(i+1)))}}})
		}
		o, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: wr}, ReturnConsumedCapacity: rcc})
		if err != nil {
			return o, nil, err
		}
		return o, o.ConsumedCapacity, err
	}}
}

func transactGet(keys ...string) op {
	return op{"TransactGetItems", keys, func(ctx context.Context, c *dynamodb.Client, table string, rcc types.ReturnConsumedCapacity) (any, []types.ConsumedCapacity, error) {
		var ti []types.TransactGetItem
		for _, k := range keys {
			ti = append(ti, types.TransactGetItem{Get: &types.Get{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(k)}}})
		}
		o, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: ti, ReturnConsumedCapacity: rcc})
		if err != nil {
			return o, nil, err
		}
		return o, o.ConsumedCapacity, err
	}}
}

func one(o any, err error, cc func() *types.ConsumedCapacity) []types.ConsumedCapacity {
	if err != nil {
		return nil
	}
	if c := cc(); c != nil {
		return []types.ConsumedCapacity{*c}
	}
	return nil
}

// skewedWorkload (no PartiQL: DynamoDB Local 1.11 does not know it; see
// statement_test.go): a celebrity profile (a 40 KB item) read again and again,
// a counter updated again and again, and a tail of ordinary users; then
// multi-key calls on keys of their own, whose capacity is apportioned.
func skewedWorkload() []op {
	r := rand.New(rand.NewPCG(11, 11))
	ops := []op{putItem("celebrity", bigValue, false)}
	for i := range 20 {
		ops = append(ops, putItem(fmt.Sprintf("user#%d", i), "hello", false))
	}
	for range 600 {
		switch x := r.IntN(100); {
		case x < 45:
			ops = append(ops, getItem("celebrity", x < 10))
		case x < 75:
			ops = append(ops, addCounter("counter"))
		case x < 80:
			ops = append(ops, putItem(fmt.Sprintf("user#%d", r.IntN(20)), "conditional", true)) // always exists: fails
		case x < 85:
			ops = append(ops, query(fmt.Sprintf("user#%d", r.IntN(20))))
		case x < 90:
			k := fmt.Sprintf("user#%d", r.IntN(20))
			ops = append(ops, deleteItem(k), putItem(k, "again", false))
		default:
			ops = append(ops, getItem(fmt.Sprintf("user#%d", r.IntN(20)), r.IntN(2) == 0))
		}
	}
	ops = append(ops,
		batchPut("batch#1", "batch#2", "batch#3"),
		batchGet("batch#1", "batch#2", "batch#3"),
		transactGet("batch#1", "batch#3"),
	)
	return ops
}

func createTable(t *testing.T, c *dynamodb.Client) string {
	table, _ := dynamodblocal.CreateTable(t, c, dynamodblocal.TableSpec{Prefix: "clientwatch", NoStream: true})
	return table
}

type capacity struct{ RCU, WCU float64 }

// TestSkewedWorkloadOnDynamoDBLocal runs one workload three times on
// DynamoDB Local, each on a fresh table: through a plain client (the
// baseline), through a plain client asking for ConsumedCapacity (the
// oracle), and through the instrumented client. The instrumented caller
// must see exactly the baseline's outputs, and the report must charge each
// key exactly what DynamoDB Local reported for its calls.
func TestSkewedWorkloadOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	clock := &fakeClock{t: t0, step: 0} // set below
	opts := clientwatch.DefaultOptions()
	opts.Detector.Top = 100
	// The workload is short: its celebrity reads add up to about 1,650
	// RCU, all within one second. A critical threshold below that (the
	// default is 2,400 RCU/s) makes the test exercise the critical path.
	opts.Detector.CriticalRCUPerSecond = 1500
	opts.Now = clock.Now
	wl := skewedWorkload()
	// Two clock readings per call, all in one minute: 600-odd calls at 0.8 ms
	// a call, so about 1,250 calls a second.
	clock.step = 400 * time.Microsecond

	baseTable, oracleTable, instTable := createTable(t, plain), createTable(t, plain), createTable(t, plain)
	opts.PartitionKeys = map[string]string{instTable: "pk"}
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	inst := newClient(ep, w, nil)

	want := map[string]capacity{} // per key, single-key calls
	var total capacity            // every call
	var conditional = map[string]uint64{}
	for i, o := range wl {
		base, _, baseErr := o.run(ctx, plain, baseTable, "")
		_, ccs, oracleErr := o.run(ctx, plain, oracleTable, types.ReturnConsumedCapacityIndexes)
		got, _, gotErr := o.run(ctx, inst, instTable, "")
		if diff := cmp.Diff(base, got, sameOutput...); diff != "" {
			t.Fatalf("call %d (%s %v): the instrumented caller saw a different output (-plain +instrumented):\n%s", i, o.name, o.keys, diff)
		}
		if apiError(baseErr) != apiError(gotErr) || apiError(baseErr) != apiError(oracleErr) {
			t.Fatalf("call %d (%s %v): errors differ: plain %v, oracle %v, instrumented %v", i, o.name, o.keys, baseErr, oracleErr, gotErr)
		}
		if gotErr != nil {
			if !strings.HasPrefix(apiError(gotErr), "ConditionalCheckFailedException") {
				t.Fatalf("call %d (%s): %v", i, o.name, gotErr)
			}
			conditional[o.keys[0]]++
			continue
		}
		for _, cc := range ccs {
			units := aws.ToFloat64(cc.Table.CapacityUnits)
			read := o.name == "GetItem" || o.name == "Query" || o.name == "BatchGetItem" || o.name == "TransactGetItems" || o.name == "Scan"
			c := capacity{}
			if read {
				c.RCU = units
			} else {
				c.WCU = units
			}
			total.RCU += c.RCU
			total.WCU += c.WCU
			if len(o.keys) == 1 {
				k := want[o.keys[0]]
				k.RCU += c.RCU
				k.WCU += c.WCU
				want[o.keys[0]] = k
			}
		}
	}

	reps := w.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1 (one table, one window): %+v", len(reps), reps)
	}
	rep := reps[0]
	if rep.Table != instTable || rep.Requests != uint64(len(wl)) || rep.UnattributedRequests != 0 {
		t.Errorf("report: table %q requests %d (want %d) unattributed %d", rep.Table, rep.Requests, len(wl), rep.UnattributedRequests)
	}
	if rep.RCU != total.RCU || float64(rep.WCU) != total.WCU {
		t.Errorf("window totals RCU %g WCU %d, DynamoDB Local reported RCU %g WCU %g", rep.RCU, rep.WCU, total.RCU, total.WCU)
	}
	got := map[string]capacity{}
	gotConditional := map[string]uint64{}
	var apportioned capacity
	for _, k := range rep.TopKeys {
		if k.RCULower != k.RCUUpper || k.WCULower != k.WCUUpper {
			t.Errorf("key %s: bounds [%g,%g] RCU [%d,%d] WCU, want exact for %d keys", k.Key, k.RCULower, k.RCUUpper, k.WCULower, k.WCUUpper, len(rep.TopKeys))
		}
		if strings.HasPrefix(k.Key, "batch#") {
			if !k.Apportioned {
				t.Errorf("key %s: not marked apportioned", k.Key)
			}
			apportioned.RCU += k.RCU
			apportioned.WCU += float64(k.WCU)
			continue
		}
		if k.Apportioned {
			t.Errorf("key %s: marked apportioned, but only single-key calls touched it", k.Key)
		}
		if k.RCU != 0 || k.WCU != 0 {
			got[k.Key] = capacity{k.RCU, float64(k.WCU)}
		}
		if k.ConditionalCheckFailures != 0 {
			gotConditional[k.Key] = k.ConditionalCheckFailures
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-key capacity differs from DynamoDB Local's ConsumedCapacity (-DynamoDB Local +report):\n%s", diff)
	}
	if diff := cmp.Diff(conditional, gotConditional); diff != "" {
		t.Errorf("conditional-check failures per key (-want +got):\n%s", diff)
	}
	var single capacity
	for _, c := range want {
		single.RCU += c.RCU
		single.WCU += c.WCU
	}
	if apportioned.RCU != total.RCU-single.RCU || apportioned.WCU != total.WCU-single.WCU || rep.ApportionedRCU != apportioned.RCU {
		t.Errorf("apportioned keys carry RCU %g WCU %g (report: %g), want the multi-key calls' RCU %g WCU %g",
			apportioned.RCU, apportioned.WCU, rep.ApportionedRCU, total.RCU-single.RCU, total.WCU-single.WCU)
	}

	// The judgement: the celebrity is read-hot (critical: over 1,500
	// RCU/s), the counter write-hot.
	hot := map[string][]report.Cause{}
	for _, k := range rep.HotKeys {
		hot[k.Key] = k.HotFor
	}
	if diff := cmp.Diff(map[string][]report.Cause{"celebrity": {report.CauseReads}, "counter": {report.CauseWrites}}, hot); diff != "" {
		t.Errorf("flagged keys (-want +got):\n%s", diff)
	}
	for _, k := range rep.HotKeys {
		if k.Key == "celebrity" && (k.Severity != report.Critical || !strings.Contains(k.Diagnosis, "DAX")) {
			t.Errorf("celebrity: severity %s, diagnosis %q: want critical, recommending DAX", k.Severity, k.Diagnosis)
		}
		if k.Key == "counter" && (k.Pattern != report.PatternSingleItem && k.Pattern != report.PatternSingleKey || !strings.Contains(k.Diagnosis, "Write-hot")) {
			t.Errorf("counter: pattern %s, diagnosis %q", k.Pattern, k.Diagnosis)
		}
	}
}
