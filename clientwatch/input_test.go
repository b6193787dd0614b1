package clientwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// tokens is an IdempotencyTokenProvider that gives prefix-1, prefix-2, …:
// two clients given the same calls give the same tokens, up to the prefix.
type tokens struct {
	mu     sync.Mutex
	prefix string
	n      int
}

func (p *tokens) GetIdempotencyToken() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	return fmt.Sprintf("%s-%d", p.prefix, p.n), nil
}

// withTokens is c with its idempotency tokens from a tokens provider.
func withTokens(c *dynamodb.Client, prefix string) *dynamodb.Client {
	return dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.IdempotencyTokenProvider = &tokens{prefix: prefix} })
}

// renamed returns a deep copy of v in which every string holding from
// (values and map keys alike) holds to instead: a call's input or output
// on one table made comparable, whole, with the same call's on another.
func renamed(v any, from, to string) any {
	if v == nil {
		return nil
	}
	return rename(reflect.ValueOf(v), from, to).Interface()
}

func rename(v reflect.Value, from, to string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(strings.ReplaceAll(v.String(), from, to))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(rename(v.Elem(), from, to))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(rename(v.Elem(), from, to))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields as they are
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(rename(v.Field(i), from, to))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(rename(v.Index(i), from, to))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(rename(it.Key(), from, to), rename(it.Value(), from, to))
		}
		return out
	}
	return v
}

// TestReusedTransactionInputOnDynamoDBLocal: the SDK fills a
// TransactWriteItems input's ClientRequestToken in the caller's struct, so
// that a caller sending the same struct again gets an idempotent replay,
// not a second transaction. Through the middleware it must be the same: a
// counter incremented by a transaction sent twice ends at 1, as through a
// plain client (the run: 2).
func TestReusedTransactionInputOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	clients := map[string]*dynamodb.Client{"plain": plain, "instrumented": newClient(ep, newWatcher(t, opts), nil)}
	got := map[string]string{}
	for name, c := range clients {
		in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
			TableName: &table, Key: map[string]types.AttributeValue{"pk": s("counter#" + name)},
			UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")},
		}}}}
		for range 2 { // the caller retries, sending the same input
			if _, err := c.TransactWriteItems(ctxT(t), in); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out, err := plain.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("counter#" + name)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		got[name] = fmt.Sprintf("n = %s, token filled in: %v", out.Item["n"].(*types.AttributeValueMemberN).Value, in.ClientRequestToken != nil)
	}
	want := "n = 1, token filled in: true"
	if diff := cmp.Diff(map[string]string{"plain": want, "instrumented": want}, got); diff != "" {
		t.Errorf("a transaction sent twice with the same input (-want +got):\n%s", diff)
	}
}

// opCase is one call of the comparison: its input for a table, made
// afresh for each client.
type opCase struct {
	name  string
	input func(table string, rcc types.ReturnConsumedCapacity) any
}

// do makes the call in with c.
func do(ctx context.Context, c *dynamodb.Client, in any) (any, error) {
	switch in := in.(type) {
	case *dynamodb.PutItemInput:
		return c.PutItem(ctx, in)
	case *dynamodb.GetItemInput:
		return c.GetItem(ctx, in)
	case *dynamodb.UpdateItemInput:
		return c.UpdateItem(ctx, in)
	case *dynamodb.DeleteItemInput:
		return c.DeleteItem(ctx, in)
	case *dynamodb.QueryInput:
		return c.Query(ctx, in)
	case *dynamodb.ScanInput:
		return c.Scan(ctx, in)
	case *dynamodb.BatchWriteItemInput:
		return c.BatchWriteItem(ctx, in)
	case *dynamodb.BatchGetItemInput:
		return c.BatchGetItem(ctx, in)
	case *dynamodb.TransactWriteItemsInput:
		return c.TransactWriteItems(ctx, in)
	case *dynamodb.TransactGetItemsInput:
		return c.TransactGetItems(ctx, in)
	case *dynamodb.ExecuteStatementInput:
		return c.ExecuteStatement(ctx, in)
	case *dynamodb.BatchExecuteStatementInput:
		return c.BatchExecuteStatement(ctx, in)
	case *dynamodb.ExecuteTransactionInput:
		return c.ExecuteTransaction(ctx, in)
	}
	panic(fmt.Sprintf("no call for %T", in))
}

// tableOps are every operation on items but PartiQL's, on a table with
// sort key sk and index byG; round r uses keys of its own.
func tableOps(r int) []opCase {
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(fmt.Sprintf("%s%d", pk, r)), "sk": s("1")}
	}
	item := func(pk string, size int) map[string]types.AttributeValue {
		it := key(pk)
		it["g"], it["v"] = s("G"), s(strings.Repeat("v", size))
		return it
	}
	type rcc = types.ReturnConsumedCapacity
	return []opCase{
		{"PutItem", func(tb string, c rcc) any {
			return &dynamodb.PutItemInput{TableName: &tb, Item: item("a", 1000), ReturnValues: types.ReturnValueAllOld, ReturnConsumedCapacity: c}
		}},
		{"PutItem", func(tb string, c rcc) any {
			return &dynamodb.PutItemInput{TableName: &tb, Item: item("b", 3000), ReturnConsumedCapacity: c}
		}},
		{"GetItem", func(tb string, c rcc) any {
			return &dynamodb.GetItemInput{TableName: &tb, Key: key("a"), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: c}
		}},
		{"UpdateItem", func(tb string, c rcc) any {
			return &dynamodb.UpdateItemInput{TableName: &tb, Key: key("a"), UpdateExpression: aws.String("SET w = :w"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":w": s("w")}, ReturnValues: types.ReturnValueAllNew, ReturnConsumedCapacity: c}
		}},
		{"Query", func(tb string, c rcc) any {
			return &dynamodb.QueryInput{TableName: &tb, KeyConditionExpression: aws.String("pk = :k"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":k": key("a")["pk"]}, ReturnConsumedCapacity: c}
		}},
		{"Query on an index", func(tb string, c rcc) any {
			return &dynamodb.QueryInput{TableName: &tb, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("G")}, ReturnConsumedCapacity: c}
		}},
		{"Scan", func(tb string, c rcc) any {
			return &dynamodb.ScanInput{TableName: &tb, Limit: aws.Int32(3), ReturnConsumedCapacity: c}
		}},
		{"BatchWriteItem", func(tb string, c rcc) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tb: {
				{PutRequest: &types.PutRequest{Item: item("c", 500)}},
				{DeleteRequest: &types.DeleteRequest{Key: key("b")}},
			}}, ReturnConsumedCapacity: c, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize}
		}},
		{"BatchGetItem", func(tb string, c rcc) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{tb: {Keys: []map[string]types.AttributeValue{
				key("a"), key("c"), key("missing"),
			}}}, ReturnConsumedCapacity: c}
		}},
		{"TransactWriteItems", func(tb string, c rcc) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Update: &types.Update{TableName: &tb, Key: key("a"), UpdateExpression: aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}},
				{Put: &types.Put{TableName: &tb, Item: item("d", 200)}},
				{ConditionCheck: &types.ConditionCheck{TableName: &tb, Key: key("c"), ConditionExpression: aws.String("attribute_exists(pk)")}},
			}, ReturnConsumedCapacity: c}
		}},
		{"TransactGetItems", func(tb string, c rcc) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: &tb, Key: key("a")}}, {Get: &types.Get{TableName: &tb, Key: key("d")}},
			}, ReturnConsumedCapacity: c}
		}},
		{"DeleteItem", func(tb string, c rcc) any {
			return &dynamodb.DeleteItemInput{TableName: &tb, Key: key("c"), ReturnValues: types.ReturnValueAllOld, ReturnConsumedCapacity: c}
		}},
	}
}

var capacityModes = []types.ReturnConsumedCapacity{"", types.ReturnConsumedCapacityNone, types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes}

// TestCallerSeesWhatAPlainClientSeesOnDynamoDBLocal: every operation, with
// ReturnConsumedCapacity unset, NONE, TOTAL and INDEXES, through a plain
// client and through clients watched in both modes (asking DynamoDB for
// capacity, and estimating it), each on its own twin table: after each
// call, the whole output, the error and the caller's whole input are the
// plain client's (the input with what the SDK fills in, such as a
// transaction's idempotency token).
func TestCallerSeesWhatAPlainClientSeesOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	base := newClient(ep, nil, nil)
	sides := []struct {
		name  string
		table string
		c     *dynamodb.Client
	}{{name: "plain"}, {name: "asking"}, {name: "estimating"}}
	for i := range sides {
		sides[i].table = sortKeyedTable(t, base)
		var w *clientwatch.Watcher
		if i > 0 {
			opts := clientwatch.DefaultOptions()
			opts.PartitionKeys = map[string]string{sides[i].table: "pk"}
			opts.IndexPartitionKeys = map[string]map[string]string{sides[i].table: {"byG": "g"}}
			opts.EstimateCapacity = sides[i].name == "estimating"
			w = newWatcher(t, opts)
		}
		sides[i].c = withTokens(newClient(ep, w, nil), sides[i].table)
	}
	for r, rcc := range capacityModes {
		for _, op := range tableOps(r) {
			var plainIn, plainOut any
			var plainErr error
			for i, side := range sides {
				in := op.input(side.table, rcc)
				out, err := do(ctxT(t), side.c, in)
				if i == 0 {
					plainIn, plainOut, plainErr = in, out, err
					continue
				}
				what := fmt.Sprintf("%s, ReturnConsumedCapacity %q, %s client", op.name, rcc, side.name)
				if apiError(err) != apiError(plainErr) {
					t.Fatalf("%s: error %v, plain client's %v", what, err, plainErr)
				}
				if diff := cmp.Diff(plainOut, renamed(out, side.table, sides[0].table), sameOutput...); diff != "" {
					t.Errorf("%s: output (-plain +watched):\n%s", what, diff)
				}
				if diff := cmp.Diff(plainIn, renamed(in, side.table, sides[0].table), exportAll); diff != "" {
					t.Errorf("%s: the caller's input after the call (-plain +watched):\n%s", what, diff)
				}
			}
		}
	}
}

// statementServer answers the PartiQL operations as DynamoDB does
// (DynamoDB Local 1.11 does not know PartiQL), with ConsumedCapacity when
// asked, and records the request bodies.
type statementServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newStatementServer(t *testing.T) *statementServer {
	p := &statementServer{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.bodies = append(p.bodies, string(body))
		p.mu.Unlock()
		cc := ""
		switch {
		case strings.Contains(string(body), `"ReturnConsumedCapacity":"INDEXES"`):
			cc = `{"TableName":"Users","CapacityUnits":1.5,"Table":{"CapacityUnits":1.5}}`
		case strings.Contains(string(body), `"ReturnConsumedCapacity":"TOTAL"`):
			cc = `{"TableName":"Users","CapacityUnits":1.5}`
		}
		var resp string
		switch op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."); op {
		case "ExecuteStatement":
			resp = `{"Items":[{"pk":{"S":"ada"},"v":{"N":"1"}}]`
			if cc != "" {
				resp += `,"ConsumedCapacity":` + cc
			}
		case "BatchExecuteStatement", "ExecuteTransaction":
			resp = `{"Responses":[{"Item":{"pk":{"S":"ada"}},"TableName":"Users"},{"Item":{"pk":{"S":"bob"}},"TableName":"Users"}]`
			if cc != "" {
				resp += `,"ConsumedCapacity":[` + cc + `]`
			}
		default:
			http.Error(w, "unexpected operation "+op, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, resp+"}")
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *statementServer) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.bodies...)
}

// statementOps are the PartiQL operations.
func statementOps() []opCase {
	get := func(k string) string { return `SELECT * FROM "Users" WHERE "pk" = '` + k + `'` }
	type rcc = types.ReturnConsumedCapacity
	return []opCase{
		{"ExecuteStatement", func(_ string, c rcc) any {
			return &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Users" WHERE "pk" = ?`), Parameters: []types.AttributeValue{s("ada")}, ReturnConsumedCapacity: c}
		}},
		{"BatchExecuteStatement", func(_ string, c rcc) any {
			return &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{Statement: aws.String(get("ada"))}, {Statement: aws.String(get("bob"))}}, ReturnConsumedCapacity: c}
		}},
		{"ExecuteTransaction", func(_ string, c rcc) any {
			return &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{{Statement: aws.String(get("ada"))}, {Statement: aws.String(get("bob"))}}, ReturnConsumedCapacity: c}
		}},
	}
}

// TestStatementCallerSeesWhatAPlainClientSees is the comparison for the
// PartiQL operations, against a server that answers as DynamoDB does:
// ExecuteTransaction's idempotency token included. A client estimating
// capacity never asks for it.
func TestStatementCallerSeesWhatAPlainClientSees(t *testing.T) {
	srv := newStatementServer(t)
	var clients []*dynamodb.Client
	for i := range 3 {
		var w *clientwatch.Watcher
		if i > 0 {
			opts := clientwatch.DefaultOptions()
			opts.PartitionKeys = map[string]string{"Users": "pk"}
			opts.EstimateCapacity = i == 2
			w = newWatcher(t, opts)
		}
		clients = append(clients, withTokens(newClient(srv.URL, w, nil), "token"))
	}
	for _, rcc := range capacityModes {
		for _, op := range statementOps() {
			var plainIn, plainOut any
			for i, c := range clients {
				in := op.input("", rcc)
				before := len(srv.requests())
				out, err := do(ctxT(t), c, in)
				if err != nil {
					t.Fatalf("%s: %v", op.name, err)
				}
				if i == 0 {
					plainIn, plainOut = in, out
					continue
				}
				what := fmt.Sprintf("%s, ReturnConsumedCapacity %q, client %d", op.name, rcc, i)
				if diff := cmp.Diff(plainOut, out, sameOutput...); diff != "" {
					t.Errorf("%s: output (-plain +watched):\n%s", what, diff)
				}
				if diff := cmp.Diff(plainIn, in, exportAll); diff != "" {
					t.Errorf("%s: the caller's input after the call (-plain +watched):\n%s", what, diff)
				}
				if sent := srv.requests()[before]; i == 2 && none(rcc) && (strings.Contains(sent, `"INDEXES"`) || strings.Contains(sent, `"TOTAL"`)) {
					t.Errorf("%s: the estimating client asked for capacity: %s", what, sent)
				}
			}
		}
	}
}

func none(r types.ReturnConsumedCapacity) bool {
	return r == "" || r == types.ReturnConsumedCapacityNone
}

// exportAll compares inputs field by field, unexported fields included.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })
