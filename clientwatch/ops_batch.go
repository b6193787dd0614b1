package clientwatch

import (
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Batches and transactions: each item is a part, on its table's window,
// with the least it can have cost. A batch's UnprocessedItems and
// UnprocessedKeys are DynamoDB throttling part of it: those items cost
// nothing and count, per key, as unprocessed.

// batchGet adds a BatchGetItem's keys: each asked-for key costs at least a
// small item's read (a missing item too); a returned item, its size.
func (r *recorder) batchGet(in *dynamodb.BatchGetItemInput, o *dynamodb.BatchGetItemOutput) {
	r.read = true
	r.tables = sortedKeys(r.tables[:0], in.RequestItems)
	for _, t := range r.tables {
		ka := in.RequestItems[t]
		win, mult := r.target(t, ""), strong(ka.ConsistentRead)
		size := sizeExact
		if ka.ProjectionExpression != nil || len(ka.AttributesToGet) > 0 {
			size = sizeAtLeast // the items come back projected: their sizes are lower bounds
		}
		for i, k := range ka.Keys {
			r.addItem(win, k, i, readUnits(0, mult), size)
		}
	}
	if o == nil {
		return
	}
	for t, items := range o.Responses {
		ka, win := in.RequestItems[t], r.target(t, "")
		mult := strong(ka.ConsistentRead)
		for _, item := range items {
			if p := r.findPart(win, item); p != nil {
				min := readUnits(sizeOf(item), mult)
				r.wins[win].estimate += min - p.min
				p.min, p.found = min, true
			}
		}
	}
	for t, ka := range o.UnprocessedKeys {
		win := r.target(t, "")
		for _, k := range ka.Keys {
			r.unprocessed(win, k)
		}
	}
	r.capacity(nil, o.ConsumedCapacity, -1)
}

// batchWrite adds a BatchWriteItem's keys: a put costs at least its item's
// write units (more if it replaces a larger item), a delete at least 1
// unit (the deleted item's, which the client never sees).
func (r *recorder) batchWrite(in *dynamodb.BatchWriteItemInput, o *dynamodb.BatchWriteItemOutput) {
	r.tables = sortedKeys(r.tables[:0], in.RequestItems)
	for _, t := range r.tables {
		win := r.target(t, "")
		for i, wr := range in.RequestItems[t] {
			switch {
			case wr.PutRequest != nil:
				r.addItem(win, wr.PutRequest.Item, i, ddb.WriteUnits(sizeOf(wr.PutRequest.Item)), sizeAtLeast)
			case wr.DeleteRequest != nil:
				r.addItem(win, wr.DeleteRequest.Key, i, 1, sizeUnknown)
			}
		}
	}
	if o == nil {
		return
	}
	for t, reqs := range o.UnprocessedItems {
		win := r.target(t, "")
		for _, wr := range reqs {
			switch {
			case wr.PutRequest != nil:
				r.unprocessed(win, wr.PutRequest.Item)
			case wr.DeleteRequest != nil:
				r.unprocessed(win, wr.DeleteRequest.Key)
			}
		}
	}
	r.capacity(nil, o.ConsumedCapacity, -1)
}

// findPart returns the first part of win not yet matched to a returned
// item whose key is item's, or nil.
func (r *recorder) findPart(win int, item map[string]types.AttributeValue) *part {
	pk := r.wins[win].pk
	if pk == "" {
		return nil
	}
	v, ok := item[pk]
	if !ok {
		return nil
	}
	start := len(r.buf)
	buf, typ, err := appendKey(r.buf, v)
	r.buf = buf[:start] // only to compare
	if err != nil {
		return nil
	}
	key := buf[start:]
	for i := range r.parts {
		p := &r.parts[i]
		if p.win == win && !p.found && p.typ == typ && string(r.buf[p.start:p.end]) == string(key) {
			return p
		}
	}
	return nil
}

// unprocessed marks the part of item's key that a batch handed back: it
// cost nothing, and counts as unprocessed.
func (r *recorder) unprocessed(win int, item map[string]types.AttributeValue) {
	p := r.findPart(win, item)
	if p == nil {
		return
	}
	r.wins[win].estimate -= p.min
	p.min, p.size, p.found, p.unprocessed = 0, sizeExact, true, 1
}

// transactGet adds a TransactGetItems's keys: each item costs a
// transactional read (twice a strong one) of its size.
func (r *recorder) transactGet(in *dynamodb.TransactGetItemsInput, o *dynamodb.TransactGetItemsOutput) {
	r.read = true
	for i, ti := range in.TransactItems {
		if ti.Get == nil {
			r.itemWins = append(r.itemWins, -1)
			continue
		}
		win := r.target(aws.ToString(ti.Get.TableName), "")
		r.itemWins = append(r.itemWins, win)
		size := 0
		if o != nil && i < len(o.Responses) {
			size = sizeOf(o.Responses[i].Item)
		}
		known := sizeExact
		if ti.Get.ProjectionExpression != nil {
			known = sizeAtLeast
		}
		r.addItem(win, ti.Get.Key, i, readUnits(size, 4), known)
	}
	if o != nil {
		r.capacity(nil, o.ConsumedCapacity, -1)
	}
}

// transactWrite adds a TransactWriteItems's keys: a transactional write
// costs twice a plain one; a put at least its item's, an update or delete
// at least 2 units, a condition check at least nothing.
func (r *recorder) transactWrite(in *dynamodb.TransactWriteItemsInput, o *dynamodb.TransactWriteItemsOutput) {
	for i, ti := range in.TransactItems {
		var table *string
		var key map[string]types.AttributeValue
		min, size := uint64(2), sizeUnknown
		switch {
		case ti.Put != nil:
			table, key = ti.Put.TableName, ti.Put.Item
			min, size = 2*ddb.WriteUnits(sizeOf(ti.Put.Item)), sizeAtLeast
		case ti.Update != nil:
			table, key = ti.Update.TableName, ti.Update.Key
		case ti.Delete != nil:
			table, key = ti.Delete.TableName, ti.Delete.Key
		case ti.ConditionCheck != nil:
			table, key, min = ti.ConditionCheck.TableName, ti.ConditionCheck.Key, 0
		default:
			r.itemWins = append(r.itemWins, -1)
			continue
		}
		win := r.target(aws.ToString(table), "")
		r.itemWins = append(r.itemWins, win)
		r.addItem(win, key, i, min, size)
	}
	if o != nil {
		r.capacity(nil, o.ConsumedCapacity, -1)
	}
}

// sortedKeys appends m's keys to dst, sorted: a batch's tables are then
// visited in one order, whatever the map's.
func sortedKeys[V any](dst []string, m map[string]V) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	return dst
}
