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
)

// TestMultiKeyCallsOnDynamoDBLocal: a batch or a transaction reports one
// total per table; the detector splits it by DynamoDB's item-size rules.
// The oracle is DynamoDB Local charging each item alone (GetItem, PutItem):
// batches charge per item exactly as single-item calls do, and
// transactional reads twice a strong read, so the split must equal it key
// by key. A Scan page is rounded after summing its items, so no per-key
// oracle exists: its total must be exact and its shares add up to it.
func TestMultiKeyCallsOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	sizes := map[string]int{"a": 1000, "b": 5000, "c": 9000, "d": 300}
	item := func(k string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(k), "v": s(strings.Repeat("v", sizes[k]))}
	}
	keys := []string{"a", "b", "c", "d"}

	want := map[string]capacity{}
	for _, k := range keys {
		put, err := plain.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item(k), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		get, err := plain.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(k)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		strong, err := plain.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(k)}, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		want[k] = capacity{
			RCU: *get.ConsumedCapacity.CapacityUnits + 2**strong.ConsumedCapacity.CapacityUnits,
			WCU: *put.ConsumedCapacity.CapacityUnits,
		}
	}

	opts := clientwatch.DefaultOptions()
	opts.Detector.Top = 10
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)
	var wr []types.WriteRequest
	var ka []map[string]types.AttributeValue
	var tg []types.TransactGetItem
	for _, k := range keys {
		wr = append(wr, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(k)}})
		ka = append(ka, map[string]types.AttributeValue{"pk": s(k)})
		tg = append(tg, types.TransactGetItem{Get: &types.Get{TableName: &table, Key: map[string]types.AttributeValue{"pk": s(k)}}})
	}
	if _, err := inst.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: wr}}); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {Keys: ka}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: tg}); err != nil {
		t.Fatal(err)
	}
	rep := w.Reports()[0]
	got := map[string]capacity{}
	for _, k := range rep.TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
		if !k.Apportioned {
			t.Errorf("key %s not marked apportioned", k.Key)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-key capacity of batches and transactions (-DynamoDB Local item by item +report):\n%s", diff)
	}
	if rep.RCU != rep.ApportionedRCU || float64(rep.WCU) != float64(rep.ApportionedWCU) {
		t.Errorf("report RCU %g (apportioned %g) WCU %d (apportioned %d): every figure came from a multi-key call", rep.RCU, rep.ApportionedRCU, rep.WCU, rep.ApportionedWCU)
	}

	// A Scan page: exact total, shares adding up to it, every key marked.
	// (Its 2 RCU split by sizes 1000:5000:9000:300 give the small items 0.)
	w2, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := plain.Scan(ctx, &dynamodb.ScanInput{TableName: &table, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(ep, w2, nil).Scan(ctx, &dynamodb.ScanInput{TableName: &table}); err != nil {
		t.Fatal(err)
	}
	rep = w2.Reports()[0]
	var sum float64
	for _, k := range rep.TopKeys {
		if !k.Apportioned {
			t.Errorf("scan: key %s charged %g RCU, apportioned %v", k.Key, k.RCU, k.Apportioned)
		}
		sum += k.RCU
	}
	if total := *oracle.ConsumedCapacity.CapacityUnits; rep.RCU != total || sum != total || len(rep.TopKeys) != len(keys) {
		t.Errorf("scan: report RCU %g, keys' sum %g over %d keys; DynamoDB Local charged %g for %d items", rep.RCU, sum, len(rep.TopKeys), total, len(keys))
	}
}
