package clientwatch

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// What each operation touches: its keys (from the input, or from the items
// it returned), their weights for apportioning, and the capacity DynamoDB
// reported per table.

// record charges one finished call to its keys. It runs under w.mu.
func (r *recorder) record(w *Watcher, params, result any, md middleware.Metadata, callErr error, start, end time.Time) {
	r.buf, r.parts, r.caps = r.buf[:0], r.parts[:0], r.caps[:0]
	tries := attempts(md)
	if len(tries) == 0 && result == nil {
		return // refused before it was sent (validation): DynamoDB saw nothing
	}
	table := r.operation(w, params, result)
	if table == "" && len(r.parts) > 0 {
		table = r.parts[0].table
	}
	r.charge(w, tries, callErr, start, end, table)
}

// operation adds the keys and capacity of the call with input params and
// output result (nil when it failed), and returns the call's table when it
// has one: what no key can be charged with goes to it. It is a flat switch
// over the operations, one case each.
func (r *recorder) operation(w *Watcher, params, result any) (table string) {
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		o, _ := result.(*dynamodb.GetItemOutput)
		var cc *types.ConsumedCapacity
		if o != nil {
			cc = o.ConsumedCapacity
		}
		return r.item(w, in.TableName, in.Key, o != nil, cc, true)
	case *dynamodb.PutItemInput:
		o, _ := result.(*dynamodb.PutItemOutput)
		var cc *types.ConsumedCapacity
		if o != nil {
			cc = o.ConsumedCapacity
		}
		return r.item(w, in.TableName, in.Item, o != nil, cc, false)
	case *dynamodb.UpdateItemInput:
		o, _ := result.(*dynamodb.UpdateItemOutput)
		var cc *types.ConsumedCapacity
		if o != nil {
			cc = o.ConsumedCapacity
		}
		return r.item(w, in.TableName, in.Key, o != nil, cc, false)
	case *dynamodb.DeleteItemInput:
		o, _ := result.(*dynamodb.DeleteItemOutput)
		var cc *types.ConsumedCapacity
		if o != nil {
			cc = o.ConsumedCapacity
		}
		return r.item(w, in.TableName, in.Key, o != nil, cc, false)
	case *dynamodb.QueryInput:
		if o, _ := result.(*dynamodb.QueryOutput); o != nil {
			r.page(w, aws.ToString(in.TableName), o.Items, o.ConsumedCapacity)
		}
		return aws.ToString(in.TableName)
	case *dynamodb.ScanInput:
		if o, _ := result.(*dynamodb.ScanOutput); o != nil {
			r.page(w, aws.ToString(in.TableName), o.Items, o.ConsumedCapacity)
		}
		return aws.ToString(in.TableName)
	case *dynamodb.BatchGetItemInput:
		o, _ := result.(*dynamodb.BatchGetItemOutput)
		r.batchGet(w, in, o)
	case *dynamodb.BatchWriteItemInput:
		o, _ := result.(*dynamodb.BatchWriteItemOutput)
		r.batchWrite(w, in, o)
	case *dynamodb.TransactGetItemsInput:
		o, _ := result.(*dynamodb.TransactGetItemsOutput)
		r.transactGet(w, in, o)
	case *dynamodb.TransactWriteItemsInput:
		o, _ := result.(*dynamodb.TransactWriteItemsOutput)
		r.transactWrite(w, in, o)
	case *dynamodb.ExecuteStatementInput:
		st := parseStatement(aws.ToString(in.Statement))
		r.addStatementKey(w, st, in.Parameters, 0)
		if o, _ := result.(*dynamodb.ExecuteStatementOutput); o != nil {
			r.capacity(o.ConsumedCapacity, st.table, st.read)
		}
		return st.table
	case *dynamodb.BatchExecuteStatementInput:
		o, _ := result.(*dynamodb.BatchExecuteStatementOutput)
		var ccs []types.ConsumedCapacity
		if o != nil {
			ccs = o.ConsumedCapacity
		}
		r.statements(w, len(in.Statements), func(i int) (string, []types.AttributeValue) {
			return aws.ToString(in.Statements[i].Statement), in.Statements[i].Parameters
		}, ccs, o != nil)
	case *dynamodb.ExecuteTransactionInput:
		o, _ := result.(*dynamodb.ExecuteTransactionOutput)
		var ccs []types.ConsumedCapacity
		if o != nil {
			ccs = o.ConsumedCapacity
		}
		r.statements(w, len(in.TransactStatements), func(i int) (string, []types.AttributeValue) {
			return aws.ToString(in.TransactStatements[i].Statement), in.TransactStatements[i].Parameters
		}, ccs, o != nil)
	}
	return ""
}

// item adds the key of a single-item call (GetItem, PutItem, UpdateItem,
// DeleteItem) on tableName, and, when it returned (done), the capacity cc
// it reported; it returns the table.
func (r *recorder) item(w *Watcher, tableName *string, key map[string]types.AttributeValue, done bool, cc *types.ConsumedCapacity, read bool) string {
	table := aws.ToString(tableName)
	r.addKey(table, w.partitionKey(table), key, 1, 0)
	if done {
		r.capacity(cc, table, read)
	}
	return table
}

// page adds the keys of a Query or Scan page of table: each item's key (a
// Query on the table has one; on an index, the items' table keys). The
// page's units are summed over its items before rounding, so they split by
// item size.
func (r *recorder) page(w *Watcher, table string, items []map[string]types.AttributeValue, cc *types.ConsumedCapacity) {
	pk := w.partitionKey(table)
	for i, item := range items {
		r.addKey(table, pk, item, uint64(sizeOf(item)), i)
	}
	r.capacity(cc, table, true)
}

// batchGet adds a BatchGetItem's keys: the items it returned, each rounded
// up to 4 KB on its own, or, when it failed, the keys it asked for.
func (r *recorder) batchGet(w *Watcher, in *dynamodb.BatchGetItemInput, o *dynamodb.BatchGetItemOutput) {
	if o == nil {
		for t, ka := range in.RequestItems {
			pk := w.partitionKey(t)
			for i, k := range ka.Keys {
				r.addKey(t, pk, k, 1, i)
			}
		}
		return
	}
	for t, items := range o.Responses {
		pk := w.partitionKey(t)
		for i, item := range items {
			r.addKey(t, pk, item, ddb.ReadUnits(sizeOf(item)), i)
		}
	}
	r.capacities(o.ConsumedCapacity, true)
}

// batchWrite adds a BatchWriteItem's keys: a put weighs its item's units;
// a delete the deleted item's, which the client never sees: 1 unit.
func (r *recorder) batchWrite(w *Watcher, in *dynamodb.BatchWriteItemInput, o *dynamodb.BatchWriteItemOutput) {
	for t, reqs := range in.RequestItems {
		pk := w.partitionKey(t)
		for i, wr := range reqs {
			switch {
			case wr.PutRequest != nil:
				r.addKey(t, pk, wr.PutRequest.Item, ddb.WriteUnits(sizeOf(wr.PutRequest.Item)), i)
			case wr.DeleteRequest != nil:
				r.addKey(t, pk, wr.DeleteRequest.Key, 1, i)
			}
		}
	}
	if o != nil {
		r.capacities(o.ConsumedCapacity, false)
	}
}

// transactGet adds a TransactGetItems's keys, each weighing its item's read
// units when it returned one.
func (r *recorder) transactGet(w *Watcher, in *dynamodb.TransactGetItemsInput, o *dynamodb.TransactGetItemsOutput) {
	for i, ti := range in.TransactItems {
		if ti.Get == nil {
			continue
		}
		t := aws.ToString(ti.Get.TableName)
		weight := uint64(1)
		if o != nil && i < len(o.Responses) {
			weight = ddb.ReadUnits(sizeOf(o.Responses[i].Item))
		}
		r.addKey(t, w.partitionKey(t), ti.Get.Key, weight, i)
	}
	if o != nil {
		r.capacities(o.ConsumedCapacity, true)
	}
}

// transactWrite adds a TransactWriteItems's keys: a put weighs its item's
// write units, the others 1.
func (r *recorder) transactWrite(w *Watcher, in *dynamodb.TransactWriteItemsInput, o *dynamodb.TransactWriteItemsOutput) {
	for i, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			t := aws.ToString(ti.Put.TableName)
			r.addKey(t, w.partitionKey(t), ti.Put.Item, ddb.WriteUnits(sizeOf(ti.Put.Item)), i)
		case ti.Update != nil:
			t := aws.ToString(ti.Update.TableName)
			r.addKey(t, w.partitionKey(t), ti.Update.Key, 1, i)
		case ti.Delete != nil:
			t := aws.ToString(ti.Delete.TableName)
			r.addKey(t, w.partitionKey(t), ti.Delete.Key, 1, i)
		case ti.ConditionCheck != nil:
			t := aws.ToString(ti.ConditionCheck.TableName)
			r.addKey(t, w.partitionKey(t), ti.ConditionCheck.Key, 1, i)
		}
	}
	if o != nil {
		r.capacities(o.ConsumedCapacity, false)
	}
}

// statements adds the keys of n PartiQL statements (statement i and its
// parameters from stmt), and, when the call returned (done), the capacity
// ccs it reported: read units if every statement reads.
func (r *recorder) statements(w *Watcher, n int, stmt func(i int) (string, []types.AttributeValue), ccs []types.ConsumedCapacity, done bool) {
	read := true
	for i := range n {
		text, params := stmt(i)
		st := parseStatement(text)
		read = read && st.read
		r.addStatementKey(w, st, params, i)
	}
	if done {
		r.capacities(ccs, read)
	}
}

func (r *recorder) addStatementKey(w *Watcher, st statement, params []types.AttributeValue, idx int) {
	if st.table == "" {
		return
	}
	pk := w.partitionKey(st.table)
	if pk == "" {
		return
	}
	v, ok := st.key(pk, params)
	if !ok {
		return
	}
	r.addValue(st.table, v, 1, idx)
}
