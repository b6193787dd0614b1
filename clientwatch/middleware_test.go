package clientwatch_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestPartiQLAttribution: a statement naming its key is charged to it; one
// that does not is unattributed; the caller's input is never written and
// its output never gains ConsumedCapacity.
func TestPartiQLAttribution(t *testing.T) {
	srv := newStatementServer(t)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	w := newWatcher(t, opts)
	inst, plain := newClient(srv.URL, w, nil), newClient(srv.URL, nil, nil)
	ctx := ctxT(t)
	for _, stmt := range []string{`SELECT * FROM "Users" WHERE "pk" = ?`, `SELECT * FROM "Users" WHERE "pk" = ?`, `SELECT * FROM "Users" WHERE begins_with("pk", ?)`} {
		in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: []types.AttributeValue{s("ada")}}
		want, err := plain.ExecuteStatement(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inst.ExecuteStatement(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, sameOutput...); diff != "" {
			t.Errorf("%s: output (-plain +instrumented):\n%s", stmt, diff)
		}
		if in.ReturnConsumedCapacity != "" {
			t.Errorf("the caller's input was written: ReturnConsumedCapacity %q", in.ReturnConsumedCapacity)
		}
	}
	rep := w.Reports()[0]
	if rep.RCU != 4.5 || rep.UnattributedRCU != 1.5 || rep.UnattributedRequests != 1 || rep.Requests != 3 ||
		len(rep.TopKeys) != 1 || rep.TopKeys[0].Key != "ada" || rep.TopKeys[0].RCU != 3 || rep.TopKeys[0].Requests != 2 {
		t.Errorf("report: %+v", rep)
	}

	// A caller that asks for capacity keeps it, and nothing is copied.
	out, err := inst.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Users" WHERE "pk" = 'ada'`),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil || out.ConsumedCapacity == nil || *out.ConsumedCapacity.CapacityUnits != 1.5 {
		t.Errorf("caller asking for capacity: %+v, %v", out, err)
	}
}

// TestUnknownTableLearnt: a table missing from PartitionKeys is described
// off the request path; its calls are unattributed until the answer comes.
func TestUnknownTableLearntOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	opts := clientwatch.DefaultOptions()
	opts.Describe = plain
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)
	put := func() {
		if _, err := inst.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s("k")}}); err != nil {
			t.Fatal(err)
		}
	}
	put()
	w.AwaitSchemas()
	put()
	rep := w.Reports()[0]
	if rep.Requests != 2 || rep.UnattributedRequests != 1 || rep.UnattributedWCU != 1 || rep.WCU != 2 || len(rep.TopKeys) != 1 || rep.TopKeys[0].WCU != 1 {
		t.Errorf("report: %+v", rep)
	}

	// Without Describe, an unknown table stays unattributed, and says so.
	opts.Describe = nil
	w2, _ := clientwatch.New(opts)
	if _, err := newClient(ep, w2, nil).PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s("k")}}); err != nil {
		t.Fatal(err)
	}
	if rep := w2.Reports()[0]; rep.UnattributedRequests != 1 || rep.UnattributedWCU != 1 || len(rep.TopKeys) != 0 {
		t.Errorf("report without Describe: %+v", rep)
	}
}

// TestValidationErrorNotCounted: a call the SDK refuses before sending it
// reaches no DynamoDB, so it counts nowhere, and the caller's error is the
// SDK's own.
func TestValidationErrorNotCounted(t *testing.T) {
	srv := newStatementServer(t)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	w, _ := clientwatch.New(opts)
	_, err := newClient(srv.URL, w, nil).GetItem(ctxT(t), &dynamodb.GetItemInput{})
	_, plainErr := newClient(srv.URL, nil, nil).GetItem(ctxT(t), &dynamodb.GetItemInput{})
	if err == nil || err.Error() != plainErr.Error() {
		t.Errorf("error %v, plain client's %v", err, plainErr)
	}
	if reps := w.Reports(); len(reps) != 0 || len(srv.requests()) != 0 {
		t.Errorf("reports %+v, requests sent %d", reps, len(srv.requests()))
	}
}
