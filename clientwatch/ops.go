package clientwatch

import (
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// What each operation touches: its keys (from the input, a Query's from
// its key condition, a Scan's from the items it returned), the least each
// key's items can have cost (from the sizes of the items sent and got
// back), and the capacity DynamoDB reported per table or index.

// finish records one finished call, unless it never reached DynamoDB or
// DynamoDB refused it as invalid. A panic in recording is recovered and
// counted as an internal error: the call is never touched.
func (w *Watcher) finish(st *callState, params, result any, callErr error, start time.Time, clockOK bool) {
	errs := uint64(st.panics)
	defer func() {
		if recover() != nil {
			errs++
		}
		if errs > 0 {
			w.internal.Add(errs)
		}
	}()
	if !clockOK {
		errs++
		return
	}
	var end time.Time
	if w.monotonic {
		end = start.Add(time.Since(start)) // one clock reading, not two
	} else {
		end = w.now()
	}
	if st.attempts == 0 && result == nil || rejected(callErr) {
		return // DynamoDB saw nothing, or did no work: no load on any key
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &w.rec
	r.reset(w, st, end, callErr)
	r.operation(params, result)
	r.charge(callErr, start)
}

// operation adds the windows, keys and capacity of the call with input
// params and output result (nil when it failed).
//
// Long because it is a flat switch over the operations, one case each.
func (r *recorder) operation(params, result any) {
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		o, _ := result.(*dynamodb.GetItemOutput)
		r.read = true
		win := r.target(aws.ToString(in.TableName), "")
		var min uint64
		if o != nil && r.estimating {
			min = readUnits(sizeOf(o.Item), strong(in.ConsistentRead))
		}
		r.addItem(win, in.Key, 0, min, sizeExact)
		if o != nil {
			r.capacity(o.ConsumedCapacity, nil, win)
		}
	case *dynamodb.PutItemInput:
		o, _ := result.(*dynamodb.PutItemOutput)
		win := r.target(aws.ToString(in.TableName), "")
		var min uint64
		if r.estimating {
			min = ddb.WriteUnits(sizeOf(in.Item))
			if o != nil && len(o.Attributes) > 0 { // ALL_OLD: the larger of the two is charged
				min = max(min, ddb.WriteUnits(sizeOf(o.Attributes)))
			}
		}
		r.addItem(win, in.Item, 0, min, sizeAtLeast)
		if o != nil {
			r.capacity(o.ConsumedCapacity, nil, win)
		}
	case *dynamodb.UpdateItemInput:
		o, _ := result.(*dynamodb.UpdateItemOutput)
		win := r.target(aws.ToString(in.TableName), "")
		min := uint64(1)
		if o != nil && r.estimating && (in.ReturnValues == types.ReturnValueAllNew || in.ReturnValues == types.ReturnValueAllOld) {
			min = ddb.WriteUnits(sizeOf(o.Attributes)) // the new or the old item: the larger is charged
		}
		r.addItem(win, in.Key, 0, min, sizeUnknown)
		if o != nil {
			r.capacity(o.ConsumedCapacity, nil, win)
		}
	case *dynamodb.DeleteItemInput:
		o, _ := result.(*dynamodb.DeleteItemOutput)
		win := r.target(aws.ToString(in.TableName), "")
		min := uint64(1)
		if o != nil && r.estimating && len(o.Attributes) > 0 { // ALL_OLD: the deleted item's size
			min = ddb.WriteUnits(sizeOf(o.Attributes))
		}
		r.addItem(win, in.Key, 0, min, sizeUnknown)
		if o != nil {
			r.capacity(o.ConsumedCapacity, nil, win)
		}
	case *dynamodb.QueryInput:
		o, _ := result.(*dynamodb.QueryOutput)
		r.query(in, o)
	case *dynamodb.ScanInput:
		o, _ := result.(*dynamodb.ScanOutput)
		r.scan(in, o)
	case *dynamodb.BatchGetItemInput:
		o, _ := result.(*dynamodb.BatchGetItemOutput)
		r.batchGet(in, o)
	case *dynamodb.BatchWriteItemInput:
		o, _ := result.(*dynamodb.BatchWriteItemOutput)
		r.batchWrite(in, o)
	case *dynamodb.TransactGetItemsInput:
		o, _ := result.(*dynamodb.TransactGetItemsOutput)
		r.transactGet(in, o)
	case *dynamodb.TransactWriteItemsInput:
		o, _ := result.(*dynamodb.TransactWriteItemsOutput)
		r.transactWrite(in, o)
	case *dynamodb.ExecuteStatementInput:
		o, _ := result.(*dynamodb.ExecuteStatementOutput)
		r.executeStatement(in, o)
	case *dynamodb.BatchExecuteStatementInput:
		o, _ := result.(*dynamodb.BatchExecuteStatementOutput)
		r.batchStatements(in, o)
	case *dynamodb.ExecuteTransactionInput:
		o, _ := result.(*dynamodb.ExecuteTransactionOutput)
		r.transactStatements(in, o)
	}
}

// query charges a Query page to the partition its key condition names,
// whatever the page holds: COUNT, a projection without the key, no items.
// On a global secondary index the key is the index's, in its window.
func (r *recorder) query(in *dynamodb.QueryInput, o *dynamodb.QueryOutput) {
	r.read = true
	win := r.target(aws.ToString(in.TableName), aws.ToString(in.IndexName))
	var min uint64
	if o != nil && r.estimating {
		min = pageUnits(o.Items, strong(in.ConsistentRead))
	}
	r.wins[win].estimate += min
	if pk := r.wins[win].pk; pk != "" {
		if v, ok := queryKey(in, pk); ok {
			r.addPart(win, v, 0, min, sizeAtLeast, 0)
		}
	}
	if o != nil {
		r.capacity(o.ConsumedCapacity, nil, win)
	}
}

// scan charges a Scan page to the keys of the items it returned, split by
// their sizes (DynamoDB sums a page's sizes before rounding).
func (r *recorder) scan(in *dynamodb.ScanInput, o *dynamodb.ScanOutput) {
	r.read, r.page = true, true
	win := r.target(aws.ToString(in.TableName), aws.ToString(in.IndexName))
	if o == nil {
		return
	}
	// One pass sizes each item once: for its key's weight, and (when
	// estimating) for the page's sum, as pageUnits would.
	pk := r.wins[win].pk
	size := 0
	for i, item := range o.Items {
		v, keyed := item[pk]
		keyed = keyed && pk != ""
		if !keyed && !r.estimating {
			continue
		}
		n := sizeOf(item)
		size += n
		if keyed {
			r.addPart(win, v, i, 0, sizeAtLeast, uint64(n))
		}
	}
	if r.estimating {
		r.wins[win].estimate += readUnits(size, strong(in.ConsistentRead))
	}
	r.capacity(o.ConsumedCapacity, nil, win)
}

// strong is the read's multiplier in half RCU per 4 KB: 2 for a strongly
// consistent read, 1 for an eventually consistent one.
func strong(consistent *bool) uint64 {
	if aws.ToBool(consistent) {
		return 2
	}
	return 1
}

// readUnits is what reading an item of size bytes costs, in half RCU, at
// mult half RCU per 4 KB; a missing item costs as much as a small one.
func readUnits(size int, mult uint64) uint64 { return ddb.ReadUnits(size) * mult }

// pageUnits is what a Query or Scan page costs, in half RCU: its items'
// sizes summed, then rounded up to 4 KB (at least one unit).
func pageUnits(items []map[string]types.AttributeValue, mult uint64) uint64 {
	size := 0
	for _, item := range items {
		size += sizeOf(item)
	}
	return readUnits(size, mult)
}

// capacity adds the capacity DynamoDB reported for the call: off the wire
// when the middleware asked for it, else from the output (cc for a
// single-table call, ccs for the others). win is the window of a
// single-table call, -1 for the others.
func (r *recorder) capacity(cc *types.ConsumedCapacity, ccs []types.ConsumedCapacity, win int) {
	if r.st.ok {
		st := r.st
		for i := range st.caps {
			c := &st.caps[i]
			at := capacityWindow(r, st.names[c.nameStart:c.nameEnd], win)
			r.addUnits(at, r.wireUnits(c, at))
		}
		return
	}
	if cc != nil {
		at := capacityWindow(r, aws.ToString(cc.TableName), win)
		r.addUnits(at, r.decodedUnits(cc, at))
	}
	for i := range ccs {
		at := capacityWindow(r, aws.ToString(ccs[i].TableName), win)
		r.addUnits(at, r.decodedUnits(&ccs[i], at))
	}
}

// capacityWindow is the window a ConsumedCapacity object of table name
// goes to: the call's own (win) when it names its table or none, else the
// table's.
func capacityWindow[T string | []byte](r *recorder, name T, win int) int {
	if win >= 0 && (len(name) == 0 || string(name) == r.wins[win].key.table) {
		return win
	}
	for i := range r.wins {
		if r.wins[i].key.index == "" && string(name) == r.wins[i].key.table {
			return i
		}
	}
	return r.target(string(name), "")
}

// wireUnits are the units of a capacity object read off the wire that
// window win is charged: a global secondary index's own, the table's and
// the local index's for a call that read a local index, else the table's
// own (DynamoDB's total when it gave no breakdown).
func (r *recorder) wireUnits(c *wireCap, win int) float64 {
	st, cw := r.st, &r.wins[win]
	index := cw.key.index
	if index == "" {
		index = cw.lsi
	}
	if index != "" {
		for _, ix := range st.idx[c.idxStart:c.idxEnd] {
			if string(st.names[ix.nameStart:ix.nameEnd]) != index {
				continue
			}
			if ix.global {
				return ix.units
			}
			if c.hasTable {
				return c.table + ix.units
			}
		}
		if cw.key.index != "" {
			return c.total // TOTAL: no breakdown, and an index read touches no table partition
		}
	}
	if c.hasTable {
		return c.table
	}
	return c.total
}

// decodedUnits is wireUnits for a decoded ConsumedCapacity.
func (r *recorder) decodedUnits(cc *types.ConsumedCapacity, win int) float64 {
	cw := &r.wins[win]
	total := aws.ToFloat64(cc.CapacityUnits)
	var table float64
	hasTable := cc.Table != nil && cc.Table.CapacityUnits != nil
	if hasTable {
		table = *cc.Table.CapacityUnits
	}
	switch {
	case cw.key.index != "":
		if c, ok := cc.GlobalSecondaryIndexes[cw.key.index]; ok && c.CapacityUnits != nil {
			return *c.CapacityUnits
		}
		return total
	case cw.lsi != "" && hasTable:
		if c, ok := cc.LocalSecondaryIndexes[cw.lsi]; ok && c.CapacityUnits != nil {
			return table + *c.CapacityUnits
		}
	}
	if hasTable {
		return table
	}
	return total
}

// conditionFailed reports whether a single write was refused by its
// condition (DynamoDB charges it).
func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// markConditionFailures marks the parts whose write DynamoDB refused by
// its condition: charged, and hidden from streams.
func (r *recorder) markConditionFailures(callErr error) {
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	switch {
	case errors.As(callErr, &ccf):
		for i := range r.parts {
			r.parts[i].conditional = true
		}
	case errors.As(callErr, &tce):
		for i, reason := range tce.CancellationReasons {
			if aws.ToString(reason.Code) != "ConditionalCheckFailed" {
				continue
			}
			for j := range r.parts {
				if r.parts[j].idx == i {
					r.parts[j].conditional = true
				}
			}
		}
	}
}
