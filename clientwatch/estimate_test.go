package clientwatch_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
)

// TestEstimatedCapacityOnDynamoDBLocal: with EstimateCapacity the
// middleware never asks for ConsumedCapacity, and estimates each call's
// units from the sizes of the items it sent and got back. Where those
// sizes are the whole story (a fresh put, a read of whole items, a Query
// page) the estimate is DynamoDB Local's own figure; where they are not (a
// put over a larger item) it is a lower bound. The report says
// capacity_estimated.
func TestEstimatedCapacityOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table, oracleTable := sortKeyedTable(t, plain), sortKeyedTable(t, plain)
	putItems(t, plain, table)
	putItems(t, plain, oracleTable)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	opts.EstimateCapacity = true
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)

	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "sk": s("1")}
	}
	item := func(pk string, size int) map[string]types.AttributeValue {
		it := key(pk)
		it["v"] = s(strings.Repeat("v", size))
		return it
	}
	type call struct {
		key   string
		exact bool // the sizes tell the whole cost
		in    func(table string) any
	}
	calls := []call{
		{"a", true, func(tb string) any { return &dynamodb.PutItemInput{TableName: &tb, Item: item("a", 1000)} }},
		{"b", true, func(tb string) any { return &dynamodb.PutItemInput{TableName: &tb, Item: item("b", 3000)} }},
		{"c", false, func(tb string) any { return &dynamodb.PutItemInput{TableName: &tb, Item: item("c", 9000)} }},
		{"a", true, func(tb string) any { return &dynamodb.GetItemInput{TableName: &tb, Key: key("a")} }},
		{"b", true, func(tb string) any {
			return &dynamodb.GetItemInput{TableName: &tb, Key: key("b"), ConsistentRead: aws.Bool(true)}
		}},
		{"zz", true, func(tb string) any { return &dynamodb.GetItemInput{TableName: &tb, Key: key("zz")} }},
		{"p1", true, func(tb string) any {
			return &dynamodb.QueryInput{TableName: &tb, KeyConditionExpression: aws.String("pk = :k"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":k": s("p1")}}
		}},
		{"c", false, func(tb string) any { return &dynamodb.PutItemInput{TableName: &tb, Item: item("c", 100)} }}, // over a 9 KB item
		{"d", true, func(tb string) any {
			return &dynamodb.DeleteItemInput{TableName: &tb, Key: key("b"), ReturnValues: types.ReturnValueAllOld}
		}},
	}
	want := map[string]capacity{}
	lowerBound := map[string]bool{} // keys with a call its sizes do not price whole
	for _, c := range calls {
		in := c.in(oracleTable)
		switch in := in.(type) {
		case *dynamodb.PutItemInput:
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		case *dynamodb.GetItemInput:
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		case *dynamodb.QueryInput:
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		case *dynamodb.DeleteItemInput:
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}
		out, err := do(ctxT(t), plain, in)
		if err != nil {
			t.Fatal(err)
		}
		units := *reflectCapacity(out).Table.CapacityUnits
		k := c.key
		if k == "d" {
			k = "b" // the delete is of b
		}
		w := want[k]
		if _, ok := c.in("").(*dynamodb.GetItemInput); ok {
			w.RCU += units
		} else if _, ok := c.in("").(*dynamodb.QueryInput); ok {
			w.RCU += units
		} else {
			w.WCU += units
		}
		want[k] = w
		lowerBound[k] = lowerBound[k] || !c.exact
		if _, err := do(ctxT(t), inst, c.in(table)); err != nil {
			t.Fatal(err)
		}
	}
	rep := oneReport(t, w)
	if !rep.CapacityEstimated {
		t.Errorf("the report does not say its capacity is estimated")
	}
	got := map[string]capacity{}
	for _, k := range rep.TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
	}
	t.Logf("DynamoDB Local %+v, estimated %+v", want, got)
	for k, c := range want {
		if lowerBound[k] {
			if g := got[k]; g.RCU > c.RCU || g.WCU > c.WCU || g.WCU == 0 {
				t.Errorf("%s: estimated %+v, DynamoDB Local charged %+v: want a positive lower bound", k, g, c)
			}
			delete(want, k)
			delete(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("estimated capacity per key (-DynamoDB Local +estimate):\n%s", diff)
	}
}

// reflectCapacity returns the ConsumedCapacity of a single-table output.
func reflectCapacity(out any) *types.ConsumedCapacity {
	switch o := out.(type) {
	case *dynamodb.PutItemOutput:
		return o.ConsumedCapacity
	case *dynamodb.GetItemOutput:
		return o.ConsumedCapacity
	case *dynamodb.QueryOutput:
		return o.ConsumedCapacity
	case *dynamodb.DeleteItemOutput:
		return o.ConsumedCapacity
	}
	return nil
}

// TestEstimateChargesNoFailedWrite: estimating, a write DynamoDB refused
// by its condition costs its least units (DynamoDB charges it), a write
// throttled to the end nothing (it never happened).
func TestEstimateChargesNoFailedWriteOnDynamoDBLocal(t *testing.T) {
	table, proxy, _ := throttledTable(t, faultproxy.Rule{Period: 1, Throttle: 1})
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	opts.EstimateCapacity = true
	w := newWatcher(t, opts)
	inst := newClient(proxy.URL, w, nil)
	put := func(k string) error {
		_, err := inst.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s(k), "v": s(strings.Repeat("x", 3000))},
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		return err
	}
	if err := put("fresh"); err != nil {
		t.Fatal(err)
	}
	if err := put("fresh"); !strings.Contains(apiError(err), "ConditionalCheckFailed") {
		t.Fatalf("%v, want the condition to fail", err)
	}
	if err := put("hot"); err == nil {
		t.Fatal("the proxy let a write on hot through")
	}
	got := map[string]capacity{}
	for _, k := range oneReport(t, w).TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
	}
	if diff := cmp.Diff(map[string]capacity{"fresh": {WCU: 6}, "hot": {}}, got); diff != "" {
		t.Errorf("estimated WCU per key (-want +got):\n%s", diff)
	}
}
