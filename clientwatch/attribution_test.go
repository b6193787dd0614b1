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

// sortKeyedTable creates a table with partition key pk, sort key sk, a
// global secondary index byG on g (all attributes projected) and a local
// secondary index byL on l.
func sortKeyedTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	table, _ := dynamodblocal.CreateTable(t, c, dynamodblocal.TableSpec{
		Prefix: "clientwatch", NoStream: true, RangeKey: "sk",
		Indexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		IndexAttributes: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
	})
	return table
}

// putItems writes items of 5 KB: under partition p1 three (g = G1), under
// p2 one (g = G2).
func putItems(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	for _, it := range []struct{ pk, sk, g string }{{"p1", "a", "G1"}, {"p1", "b", "G1"}, {"p1", "c", "G1"}, {"p2", "a", "G2"}} {
		item := map[string]types.AttributeValue{"pk": s(it.pk), "sk": s(it.sk), "g": s(it.g), "v": s(strings.Repeat("x", 5000))}
		if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
}

// queries are Query pages that read one partition each, written every way
// a key condition can name it; key is the partition they read.
func queries(table string) []struct {
	name, key string
	in        *dynamodb.QueryInput
} {
	v := func(k string) map[string]types.AttributeValue { return map[string]types.AttributeValue{":k": s(k)} }
	return []struct {
		name, key string
		in        *dynamodb.QueryInput
	}{
		{"COUNT", "p1", &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :k"), ExpressionAttributeValues: v("p1"), Select: types.SelectCount}},
		{"projection without the key", "p1", &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :k"), ExpressionAttributeValues: v("p1"), ProjectionExpression: aws.String("sk")}},
		{"#name placeholder, sort key range, reversed", "p1", &dynamodb.QueryInput{TableName: &table,
			KeyConditionExpression:    aws.String("(:k = #p) AND #s BETWEEN :a AND :b"),
			ExpressionAttributeNames:  map[string]string{"#p": "pk", "#s": "sk"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":k": s("p1"), ":a": s("a"), ":b": s("b")}}},
		{"begins_with on the sort key", "p2", &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("begins_with(sk, :s) and pk=:k"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":k": s("p2"), ":s": s("a")}, ConsistentRead: aws.Bool(true)}},
		{"legacy KeyConditions", "p2", &dynamodb.QueryInput{TableName: &table, KeyConditions: map[string]types.Condition{
			"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("p2")}}}}},
		{"an empty page", "nobody", &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :k"), ExpressionAttributeValues: v("nobody")}},
	}
}

// TestQueryChargedToItsKeyConditionOnDynamoDBLocal: a Query reads the
// partition its key condition names, and is charged to that key exactly
// what DynamoDB Local charges, whatever the page holds: COUNT, a
// projection without the key, no items (the run charged such
// pages to nobody).
func TestQueryChargedToItsKeyConditionOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table := sortKeyedTable(t, plain)
	putItems(t, plain, table)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)
	want := map[string]capacity{}
	requests := map[string]uint64{}
	for _, q := range queries(table) {
		asked := *q.in
		asked.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		oracle, err := plain.Query(ctxT(t), &asked)
		if err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		base, err := plain.Query(ctxT(t), q.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inst.Query(ctxT(t), q.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(base, got, sameOutput...); diff != "" {
			t.Errorf("%s: output (-plain +instrumented):\n%s", q.name, diff)
		}
		c := want[q.key]
		c.RCU += *oracle.ConsumedCapacity.Table.CapacityUnits
		want[q.key] = c
		requests[q.key]++
	}
	rep := oneReport(t, w)
	got := map[string]capacity{}
	gotRequests := map[string]uint64{}
	for _, k := range rep.TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
		gotRequests[k.Key] = k.Requests
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RCU per key (-DynamoDB Local +report):\n%s", diff)
	}
	if diff := cmp.Diff(requests, gotRequests); diff != "" || rep.UnattributedRequests != 0 || rep.UnattributedRCU != 0 {
		t.Errorf("requests per key (-want +got):\n%s\nunattributed: %d requests, %g RCU; want none", diff, rep.UnattributedRequests, rep.UnattributedRCU)
	}
}

// TestIndexQueryChargedToTheIndexKeyOnDynamoDBLocal: a Query on a global
// secondary index reads the index's partition: it is charged to the
// index's key in a window of the index ("index" in the report, as the
// stream side reports indexes), the index's own capacity exactly as
// DynamoDB Local reports it. Here the index's key is learnt with
// DescribeTable (TestIndexPartitionKeysGiven: from Options).
func TestIndexQueryChargedToTheIndexKeyOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table := sortKeyedTable(t, plain)
	putItems(t, plain, table)
	opts := clientwatch.DefaultOptions()
	opts.Describe = plain
	checkIndexQueries(t, ep, table, opts)
}

// checkIndexQueries runs GSI queries through a client watched with opts
// and holds the index's report against DynamoDB Local's figures.
func checkIndexQueries(t *testing.T, ep, table string, opts clientwatch.Options) {
	t.Helper()
	plain := newClient(ep, nil, nil)
	query := func(g string) *dynamodb.QueryInput {
		return &dynamodb.QueryInput{TableName: &table, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": s(g)}}
	}
	calls := []string{"G1", "G1", "G1", "G2"}
	want := map[string]capacity{}
	for _, g := range calls {
		in := query(g)
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		out, err := plain.Query(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		c := want[g]
		c.RCU += *out.ConsumedCapacity.GlobalSecondaryIndexes["byG"].CapacityUnits
		want[g] = c
	}
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)
	if opts.Describe != nil {
		if _, err := inst.Query(ctxT(t), query("G2")); err != nil { // unattributed until DescribeTable answers
			t.Fatal(err)
		}
		w.AwaitSchemas()
	}
	for _, g := range calls {
		if _, err := inst.Query(ctxT(t), query(g)); err != nil {
			t.Fatal(err)
		}
	}
	var index *reported
	reps := reportsJSON(t, w)
	for i := range reps {
		if reps[i].Index == "byG" {
			index = &reps[i]
		}
	}
	if index == nil || index.Table != table {
		t.Fatalf("reports %+v: want one of index byG of table %s", reps, table)
	}
	got := map[string]capacity{}
	for _, k := range index.TopKeys {
		got[k.Key] = capacity{k.RCU, float64(k.WCU)}
	}
	if diff := cmp.Diff(want, got); diff != "" || index.Requests != uint64(len(calls)) {
		t.Errorf("index RCU per key (-DynamoDB Local +report):\n%s\n%d requests, want %d", diff, index.Requests, len(calls))
	}
}

// TestBatchDeleteWeightedByChargeOnDynamoDBLocal: a BatchWriteItem of a
// delete of a 98-WCU item, a put of 1 WCU and a put of 5 is charged 104
// WCU. The puts' costs are known from their items; the delete's item the
// client never sees, so it is left what the puts do not take: 98/1/5,
// not the 15/15/74 a split by weight (a delete weighing 1) gave. The
// bounds say what is not known: each share lies within its least cost
// and that plus the slack.
func TestBatchDeleteWeightedByChargeOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table, oracleTable := createTable(t, plain), createTable(t, plain)
	big := map[string]types.AttributeValue{"pk": s("big"), "v": s(strings.Repeat("b", 99_900))}
	for _, tb := range []string{table, oracleTable} {
		if _, err := plain.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &tb, Item: big}); err != nil {
			t.Fatal(err)
		}
	}
	batch := func(tb string) *dynamodb.BatchWriteItemInput {
		return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: {
			{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"pk": s("big")}}},
			{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("one"), "v": s("x")}}},
			{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("five"), "v": s(strings.Repeat("f", 4500))}}},
		}}}
	}
	// The oracle: the same batch on a twin table, and each item alone.
	in := batch(oracleTable)
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := plain.BatchWriteItem(ctxT(t), in)
	if err != nil {
		t.Fatal(err)
	}
	total := *out.ConsumedCapacity[0].CapacityUnits
	del, err := plain.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("big")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || *del.ConsumedCapacity.CapacityUnits != 98 || total != 104 {
		t.Fatalf("DynamoDB Local charges the delete %v (%v) and the batch %v: the test wants 98 and 104", del, err, total)
	}
	if _, err := plain.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &table, Item: big}); err != nil {
		t.Fatal(err)
	}

	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	if _, err := newClient(ep, w, nil).BatchWriteItem(ctxT(t), batch(table)); err != nil {
		t.Fatal(err)
	}
	type share struct{ WCU, Lower, Upper uint64 }
	got := map[string]share{}
	rep := oneReport(t, w)
	for _, k := range rep.TopKeys {
		got[k.Key] = share{k.WCU, k.WCULower, k.WCUUpper}
	}
	want := map[string]share{"big": {98, 1, 98}, "one": {1, 1, 98}, "five": {5, 5, 102}}
	if diff := cmp.Diff(want, got); diff != "" || rep.WCU != 104 {
		t.Errorf("shares of the batch's %d WCU (-want +got):\n%s", rep.WCU, diff)
	}
}
