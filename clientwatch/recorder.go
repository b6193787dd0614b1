package clientwatch

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// part is one key a call touched: its bytes in recorder.buf, the table,
// its weight for apportioning (item size or per-item units), and the index
// of the request item it came from (for transaction cancellation reasons).
type part struct {
	table      string
	start, end int
	typ        ddb.KeyType
	weight     uint64
	idx        int
	share      uint64 // apportioned units
	rem        uint64
	given      bool
}

// recorder is the scratch of one call's recording; it lives in the
// Watcher and is used under its lock, so recording allocates nothing once
// the buffers have grown.
type recorder struct {
	buf   []byte
	parts []part
	caps  []tableUnits
	wire  *wireState // the call's capacity as read off the wire, when ok
}

// tableUnits is the capacity a call consumed on one table, in half RCU for
// reads and WCU for writes.
type tableUnits struct {
	table        string
	rcuHalf, wcu uint64
}

func (r *recorder) key(p *part) ddb.Key {
	return ddb.Key{Type: p.typ, Value: r.buf[p.start:p.end]}
}

// addKey appends the partition key of item (or of a Key map) as a part.
func (r *recorder) addKey(table, pk string, item map[string]types.AttributeValue, weight uint64, idx int) {
	if pk == "" {
		return
	}
	if v, ok := item[pk]; ok {
		r.addValue(table, v, weight, idx)
	}
}

// addValue appends a partition key value as a part.
func (r *recorder) addValue(table string, v types.AttributeValue, weight uint64, idx int) {
	start := len(r.buf)
	buf, typ, err := appendKey(r.buf, v)
	if err != nil {
		r.buf = r.buf[:start]
		return
	}
	r.buf = buf
	r.parts = append(r.parts, part{table: table, start: start, end: len(buf), typ: typ, weight: max(weight, 1), idx: idx})
}

// sizeOf is an item's size, for apportioning: at least 1, and 1 for an
// item DynamoDB could not have stored (it refused the call).
func sizeOf(item map[string]types.AttributeValue) int {
	n, err := itemSize(item)
	if err != nil {
		return 1
	}
	return max(n, 1)
}

// capacity appends what cc says a call consumed on its table: the table's
// own units when DynamoDB broke them down (INDEXES), else the total.
func (r *recorder) capacity(cc *types.ConsumedCapacity, fallbackTable string, read bool) {
	if r.wire != nil && r.wire.ok {
		r.wireCapacities(fallbackTable, read)
		return
	}
	if cc == nil {
		return
	}
	units := aws.ToFloat64(cc.CapacityUnits)
	if cc.Table != nil && cc.Table.CapacityUnits != nil {
		units = *cc.Table.CapacityUnits
	}
	table := aws.ToString(cc.TableName)
	if table == "" {
		table = fallbackTable
	}
	r.addUnits(table, units, read)
}

// addUnits appends units consumed on table.
func (r *recorder) addUnits(table string, units float64, read bool) {
	tu := tableUnits{table: table}
	if read {
		tu.rcuHalf = uint64(math.Round(units * 2))
	} else {
		tu.wcu = uint64(math.Round(units))
	}
	r.caps = append(r.caps, tu)
}

func (r *recorder) capacities(ccs []types.ConsumedCapacity, read bool) {
	if r.wire != nil && r.wire.ok {
		r.wireCapacities("", read)
		return
	}
	for i := range ccs {
		r.capacity(&ccs[i], "", read)
	}
}

// wireCapacities appends the capacity read off the wire (wire.go), as
// capacity and capacities do from the decoded output.
func (r *recorder) wireCapacities(fallbackTable string, read bool) {
	st := r.wire
	for i := range st.caps {
		c := &st.caps[i]
		r.addUnits(r.tableName(st.names[c.nameStart:c.nameEnd], fallbackTable), c.units, read)
	}
}

// tableName returns name as a string: the call's table or one of its
// parts' when it is one of them (no allocation), else a copy.
func (r *recorder) tableName(name []byte, fallbackTable string) string {
	if len(name) == 0 {
		return fallbackTable
	}
	if string(name) == fallbackTable {
		return fallbackTable
	}
	for i := range r.parts {
		if string(name) == r.parts[i].table {
			return r.parts[i].table
		}
	}
	return string(name)
}

// charge charges the call to its keys: every part a request, each table's
// units to its keys (exactly when one key, split by weight when several,
// to nobody when none), every throttled attempt, and the writes refused by
// their condition.
func (r *recorder) charge(w *Watcher, attempts []retryResult, callErr error, start, end time.Time, firstTable string) {
	r.mergeParts()
	single := len(r.parts) == 1
	latency := end.Sub(start)
	for i := range r.parts {
		p := &r.parts[i]
		w.window(p.table, end).AddRequest(r.key(p), end, latency, single, i == 0 || p.table != r.parts[i-1].table)
	}
	r.chargeUnits(w, end)
	if len(r.parts) == 0 && len(r.caps) == 0 && firstTable != "" {
		w.window(firstTable, end).AddUnattributed(0, 0)
	}
	r.chargeThrottles(w, attempts, end, firstTable)
	if callErr != nil {
		r.chargeConditionFailures(w, callErr, end)
	}
}

// mergeParts sorts the call's parts by table and key, and merges repeated
// keys of a table, keeping the first index.
func (r *recorder) mergeParts() {
	buf := r.buf
	slices.SortStableFunc(r.parts, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.table, b.table), bytes.Compare(buf[a.start:a.end], buf[b.start:b.end]), cmp.Compare(a.typ, b.typ))
	})
	merged := r.parts[:0]
	for _, p := range r.parts {
		if n := len(merged); n > 0 && merged[n-1].table == p.table && merged[n-1].typ == p.typ &&
			bytes.Equal(buf[merged[n-1].start:merged[n-1].end], buf[p.start:p.end]) {
			merged[n-1].weight += p.weight
			continue
		}
		merged = append(merged, p)
	}
	r.parts = merged
}

// chargeUnits charges each table's units to its parts: exactly when one
// key, split by weight when several, to nobody when none.
func (r *recorder) chargeUnits(w *Watcher, end time.Time) {
	for _, c := range r.caps {
		lo, hi := r.tableParts(c.table)
		cw := w.window(c.table, end)
		switch hi - lo {
		case 0:
			cw.AddUnattributed(c.rcuHalf, c.wcu)
		case 1:
			cw.AddCapacity(r.key(&r.parts[lo]), end, c.rcuHalf, c.wcu, false)
		default:
			ps := r.parts[lo:hi]
			apportion(ps, c.rcuHalf+c.wcu)
			for j := range ps {
				if c.rcuHalf > 0 {
					cw.AddCapacity(r.key(&ps[j]), end, ps[j].share, 0, true)
				} else {
					cw.AddCapacity(r.key(&ps[j]), end, 0, ps[j].share, true)
				}
			}
		}
	}
}

// chargeThrottles charges every throttled attempt, retried or final, to
// the call's keys (or, with none, to its table).
func (r *recorder) chargeThrottles(w *Watcher, attempts []retryResult, end time.Time, firstTable string) {
	for _, a := range attempts {
		if a.Err == nil {
			continue
		}
		reasons, ok := throttled(a.Err)
		if !ok {
			continue
		}
		names := make([]string, 0, len(reasons))
		for _, tr := range reasons {
			names = append(names, aws.ToString(tr.Reason))
		}
		if len(r.parts) == 0 {
			if firstTable != "" {
				w.window(firstTable, end).AddUnattributedThrottle()
			}
			continue
		}
		for i := range r.parts {
			p := &r.parts[i]
			w.window(p.table, end).AddThrottle(r.key(p), end, names)
		}
	}
}

// chargeConditionFailures charges the writes refused by their condition:
// DynamoDB charged them, and no stream will show them.
func (r *recorder) chargeConditionFailures(w *Watcher, callErr error, end time.Time) {
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	switch {
	case errors.As(callErr, &ccf):
		for i := range r.parts {
			p := &r.parts[i]
			w.window(p.table, end).AddConditionalCheckFailed(r.key(p), end)
		}
	case errors.As(callErr, &tce):
		for i, reason := range tce.CancellationReasons {
			if aws.ToString(reason.Code) != "ConditionalCheckFailed" {
				continue
			}
			for j := range r.parts {
				if p := &r.parts[j]; p.idx == i {
					w.window(p.table, end).AddConditionalCheckFailed(r.key(p), end)
				}
			}
		}
	}
}

// tableParts returns the range of r.parts (sorted by table) of table.
func (r *recorder) tableParts(table string) (lo, hi int) {
	lo = 0
	for lo < len(r.parts) && r.parts[lo].table != table {
		lo++
	}
	hi = lo
	for hi < len(r.parts) && r.parts[hi].table == table {
		hi++
	}
	return lo, hi
}

// apportion splits total units over ps in proportion to their weights by
// the largest-remainder method, so that the shares add up to total
// exactly; ties go to the earlier part.
func apportion(ps []part, total uint64) {
	var sum uint64
	for i := range ps {
		sum += ps[i].weight
	}
	given := uint64(0)
	for i := range ps {
		hi, lo := bits.Mul64(total, ps[i].weight)
		q, rem := bits.Div64(hi, lo, sum) // total × weight < 2^64 × sum: no overflow
		ps[i].share, ps[i].rem, ps[i].given = q, rem, false
		given += q
	}
	for left := total - given; left > 0; left-- {
		best := -1
		for i := range ps {
			if !ps[i].given && (best < 0 || ps[i].rem > ps[best].rem) {
				best = i
			}
		}
		ps[best].share++
		ps[best].given = true
	}
}
