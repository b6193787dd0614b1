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
	table := "" // the call's table, for what no key can be charged with
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		table = aws.ToString(in.TableName)
		r.addKey(table, w.partitionKey(table), in.Key, 1, 0)
		if o, _ := result.(*dynamodb.GetItemOutput); o != nil {
			r.capacity(o.ConsumedCapacity, table, true)
		}
	case *dynamodb.PutItemInput:
		table = aws.ToString(in.TableName)
		r.addKey(table, w.partitionKey(table), in.Item, 1, 0)
		if o, _ := result.(*dynamodb.PutItemOutput); o != nil {
			r.capacity(o.ConsumedCapacity, table, false)
		}
	case *dynamodb.UpdateItemInput:
		table = aws.ToString(in.TableName)
		r.addKey(table, w.partitionKey(table), in.Key, 1, 0)
		if o, _ := result.(*dynamodb.UpdateItemOutput); o != nil {
			r.capacity(o.ConsumedCapacity, table, false)
		}
	case *dynamodb.DeleteItemInput:
		table = aws.ToString(in.TableName)
		r.addKey(table, w.partitionKey(table), in.Key, 1, 0)
		if o, _ := result.(*dynamodb.DeleteItemOutput); o != nil {
			r.capacity(o.ConsumedCapacity, table, false)
		}
	case *dynamodb.QueryInput:
		// A page's keys are its items' (a Query on the table has one; on an
		// index, the items' table keys): the page's units are summed over
		// its items before rounding, so they split by item size.
		table = aws.ToString(in.TableName)
		if o, _ := result.(*dynamodb.QueryOutput); o != nil {
			pk := w.partitionKey(table)
			for i, item := range o.Items {
				r.addKey(table, pk, item, uint64(sizeOf(item)), i)
			}
			r.capacity(o.ConsumedCapacity, table, true)
		}
	case *dynamodb.ScanInput:
		table = aws.ToString(in.TableName)
		if o, _ := result.(*dynamodb.ScanOutput); o != nil {
			pk := w.partitionKey(table)
			for i, item := range o.Items {
				r.addKey(table, pk, item, uint64(sizeOf(item)), i)
			}
			r.capacity(o.ConsumedCapacity, table, true)
		}
	case *dynamodb.BatchGetItemInput:
		// Each item is rounded up to 4 KB on its own.
		if o, _ := result.(*dynamodb.BatchGetItemOutput); o != nil {
			for t, items := range o.Responses {
				pk := w.partitionKey(t)
				for i, item := range items {
					r.addKey(t, pk, item, ddb.ReadUnits(sizeOf(item)), i)
				}
			}
			r.capacities(o.ConsumedCapacity, true)
		} else {
			for t, ka := range in.RequestItems {
				pk := w.partitionKey(t)
				for i, k := range ka.Keys {
					r.addKey(t, pk, k, 1, i)
				}
			}
		}
	case *dynamodb.BatchWriteItemInput:
		// A put is charged its item's size; a delete the deleted item's,
		// which the client never sees: it weighs 1 unit.
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
		if o, _ := result.(*dynamodb.BatchWriteItemOutput); o != nil {
			r.capacities(o.ConsumedCapacity, false)
		}
	case *dynamodb.TransactGetItemsInput:
		o, _ := result.(*dynamodb.TransactGetItemsOutput)
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
	case *dynamodb.TransactWriteItemsInput:
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
		if o, _ := result.(*dynamodb.TransactWriteItemsOutput); o != nil {
			r.capacities(o.ConsumedCapacity, false)
		}
	case *dynamodb.ExecuteStatementInput:
		st := parseStatement(aws.ToString(in.Statement))
		table = st.table
		r.addStatementKey(w, st, in.Parameters, 0)
		if o, _ := result.(*dynamodb.ExecuteStatementOutput); o != nil {
			r.capacity(o.ConsumedCapacity, table, st.read)
		}
	case *dynamodb.BatchExecuteStatementInput:
		read := true
		for i, s := range in.Statements {
			st := parseStatement(aws.ToString(s.Statement))
			read = read && st.read
			r.addStatementKey(w, st, s.Parameters, i)
		}
		if o, _ := result.(*dynamodb.BatchExecuteStatementOutput); o != nil {
			r.capacities(o.ConsumedCapacity, read)
		}
	case *dynamodb.ExecuteTransactionInput:
		read := true
		for i, s := range in.TransactStatements {
			st := parseStatement(aws.ToString(s.Statement))
			read = read && st.read
			r.addStatementKey(w, st, s.Parameters, i)
		}
		if o, _ := result.(*dynamodb.ExecuteTransactionOutput); o != nil {
			r.capacities(o.ConsumedCapacity, read)
		}
	}
	if table == "" && len(r.parts) > 0 {
		table = r.parts[0].table
	}
	r.charge(w, tries, callErr, start, end, table)
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
