package clientwatch

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
)

// recorder is the scratch of one call's recording; it lives in the
// Watcher and is used under its lock, so recording allocates nothing once
// its buffers have grown.
type recorder struct {
	w   *Watcher
	st  *callState
	end time.Time

	read       bool // the call's units are read units (half RCU), else WCU
	estimating bool // DynamoDB reports no capacity: estimate it from item sizes
	// failed: the call failed, and DynamoDB charged nothing an estimate
	// could tell (a write refused by its condition is still charged).
	failed bool
	page   bool // the units of a window are a page's, split by item size

	wins     []callWindow
	itemWins []int    // a transaction's items' windows, by position
	tables   []string // a batch's tables, sorted
	buf      []byte
	parts    []part
}

// callWindow is a window the call touched: a table, or a global secondary
// index, and what the call cost it.
type callWindow struct {
	key      windowKey
	cw       *clientwindow.Window
	pk       string // the attribute its keys are read from; "" when unknown or past the cap
	lsi      string // the local secondary index the call read, whose units are the table's too
	units    uint64 // what DynamoDB reported, in the call's units
	reported bool
	estimate uint64 // what the items' sizes say: the sum of their parts' min
}

// part is one key a call touched.
type part struct {
	win        int // in recorder.wins
	start, end int // its bytes in recorder.buf
	typ        ddb.KeyType
	idx        int // the request item it came from (a transaction's cancellation reasons)

	// min is the least DynamoDB can have charged the key's items, in the
	// call's units; size says how much is known of it.
	min  uint64
	size sizeKnown
	// weight splits a page's units (Query, Scan): the items' size.
	weight uint64

	found       bool   // matched to a returned item, or to an unprocessed one
	unprocessed uint64 // items a batch handed back unprocessed
	throttled   uint64 // bit i: its transaction item was throttled in the i-th throttled attempt
	conditional bool   // its write was refused by its condition

	// apportioning: its share, and how far its truth may lie below and
	// above it (apportion.go)
	share, below, above uint64
	rem                 uint64
	given               bool
}

// sizeKnown says how much a part's min is worth.
type sizeKnown uint8

const (
	sizeExact   sizeKnown = iota // min is what its items cost: their whole size is known
	sizeAtLeast                  // min is a lower bound from a known size (a put may replace a larger item)
	sizeUnknown                  // no size known (a delete, an update): min is DynamoDB's least charge
)

// reset starts recording one call.
func (r *recorder) reset(w *Watcher, st *callState, end time.Time, callErr error) {
	r.w, r.st, r.end = w, st, end
	r.failed = callErr != nil && !conditionFailed(callErr)
	r.read, r.page = false, false
	r.estimating = w.estimate
	clear(r.wins)
	r.wins, r.itemWins, r.buf, r.parts = r.wins[:0], r.itemWins[:0], r.buf[:0], r.parts[:0]
}

// target returns the call window of table (index "": the table itself),
// made on first use: the window, and the attribute its keys are read
// from. A global secondary index has its own window and key; a local one
// is the table's.
func (r *recorder) target(table, index string) int {
	for i := range r.wins {
		if r.wins[i].key == (windowKey{table, index}) {
			return i
		}
	}
	var pk, lsi string
	key := windowKey{table: table}
	if index == "" {
		pk = r.w.partitionKey(table)
	} else {
		var global bool
		if pk, global = r.w.indexKey(table, index); global {
			key.index = index
		} else {
			lsi = index // or unknown yet: then pk is "" and nothing is charged to a key
		}
	}
	cw, ok := r.w.window(key, r.end)
	if !ok {
		pk = ""
		r.w.pastCap.Add(1)
	}
	r.wins = append(r.wins, callWindow{key: key, cw: cw, pk: pk, lsi: lsi})
	return len(r.wins) - 1
}

// addItem adds one item the call named on window win: its key (the
// partition key attribute of item, a Key or Item map) as a part when
// known, and its least units to the window's estimate.
func (r *recorder) addItem(win int, item map[string]types.AttributeValue, idx int, min uint64, size sizeKnown) {
	r.wins[win].estimate += min
	if pk := r.wins[win].pk; pk != "" {
		if v, ok := item[pk]; ok {
			r.addPart(win, v, idx, min, size, 0)
		}
	}
}

// addPart appends a partition key value as a part.
func (r *recorder) addPart(win int, v types.AttributeValue, idx int, min uint64, size sizeKnown, weight uint64) {
	start := len(r.buf)
	buf, typ, err := appendKey(r.buf, v)
	if err != nil {
		r.buf = r.buf[:start]
		return
	}
	r.buf = buf
	r.w.caps.sawKey(len(buf) - start)
	r.parts = append(r.parts, part{win: win, start: start, end: len(buf), typ: typ, idx: idx, min: min, size: size, weight: weight})
}

func (r *recorder) key(p *part) ddb.Key {
	return ddb.Key{Type: p.typ, Value: r.buf[p.start:p.end]}
}

// addUnits adds units DynamoDB reported for window win.
func (r *recorder) addUnits(win int, units float64) {
	c := &r.wins[win]
	c.reported = true
	if r.read {
		c.units += uint64(math.Round(units * 2))
	} else {
		c.units += uint64(math.Round(units))
	}
}

// charge charges the call to its keys: every part a request, each
// window's units to its keys (exactly when one key, split when several,
// to nobody when none), every throttled attempt, every unprocessed item,
// and the writes refused by their condition.
func (r *recorder) charge(callErr error, start time.Time) {
	r.markThrottledItems()
	if callErr != nil {
		r.markConditionFailures(callErr)
	}
	r.mergeParts()
	single := len(r.parts) == 1
	latency := r.end.Sub(start)
	for i := range r.parts {
		p := &r.parts[i]
		first := i == 0 || p.win != r.parts[i-1].win
		r.wins[p.win].cw.AddRequest(r.key(p), r.end, latency, single, first)
		if p.unprocessed > 0 {
			r.wins[p.win].cw.AddUnprocessed(r.key(p), r.end, p.unprocessed)
		}
		if p.conditional {
			r.wins[p.win].cw.AddConditionalCheckFailed(r.key(p), r.end)
		}
	}
	for i := range r.wins {
		r.chargeUnits(i)
	}
	r.chargeThrottles()
}

// mergeParts sorts the call's parts by window and key, and merges repeated
// keys of a window.
func (r *recorder) mergeParts() {
	buf := r.buf
	slices.SortStableFunc(r.parts, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.win, b.win), bytes.Compare(buf[a.start:a.end], buf[b.start:b.end]), cmp.Compare(a.typ, b.typ))
	})
	merged := r.parts[:0]
	for _, p := range r.parts {
		if n := len(merged); n > 0 && merged[n-1].win == p.win && merged[n-1].typ == p.typ &&
			bytes.Equal(buf[merged[n-1].start:merged[n-1].end], buf[p.start:p.end]) {
			m := &merged[n-1]
			m.min += p.min
			m.weight += p.weight
			m.size = max(m.size, p.size)
			m.unprocessed += p.unprocessed
			m.throttled |= p.throttled
			m.conditional = m.conditional || p.conditional
			continue
		}
		merged = append(merged, p)
	}
	r.parts = merged
}

// windowParts returns the range of r.parts (sorted by window) of win.
func (r *recorder) windowParts(win int) (lo, hi int) {
	lo = 0
	for lo < len(r.parts) && r.parts[lo].win != win {
		lo++
	}
	hi = lo
	for hi < len(r.parts) && r.parts[hi].win == win {
		hi++
	}
	return lo, hi
}

// chargeUnits charges window win's units to its parts: exactly when one
// key, split when several (apportion.go), to nobody when none.
func (r *recorder) chargeUnits(win int) {
	c := &r.wins[win]
	units, known := c.units, c.reported
	if !known && r.estimating && !r.failed && c.estimate > 0 {
		units, known = c.estimate, true
	}
	lo, hi := r.windowParts(win)
	switch {
	case hi == lo:
		if known {
			c.cw.AddUnattributed(r.split(units))
		} else if len(r.parts) == 0 && win == 0 {
			c.cw.AddUnattributed(0, 0) // the call, with no key to count it on
		}
	case !known:
	case hi-lo == 1:
		rcu, wcu := r.split(units)
		c.cw.AddCapacity(r.key(&r.parts[lo]), r.end, rcu, wcu)
		if h := r.w.hot; h != nil {
			h.charged(c.key, c.cw, r.key(&r.parts[lo]), r.end, rcu, wcu)
		}
	default:
		ps := r.parts[lo:hi]
		r.splitWindow(ps, units)
		for j := range ps {
			c.cw.AddShare(r.key(&ps[j]), r.end, r.read, ps[j].share, ps[j].below, ps[j].above)
			if h := r.w.hot; h != nil {
				rcu, wcu := r.split(ps[j].share)
				h.charged(c.key, c.cw, r.key(&ps[j]), r.end, rcu, wcu)
			}
		}
	}
}

// split returns units as (half RCU, WCU) by the call's kind.
func (r *recorder) split(units uint64) (rcuHalf, wcu uint64) {
	if r.read {
		return units, 0
	}
	return 0, units
}

// chargeThrottles counts every throttled attempt: once in the total of
// each window it throttled, however many keys it names there, and once
// for each of those keys (a transaction: the keys of its throttled items).
func (r *recorder) chargeThrottles() {
	for a, t := range r.st.throttles {
		bit := uint64(1) << min(a, 63)
		reasons := t.reasons
		if t.tx {
			reasons = txReasons
		}
		for win := range r.wins {
			if t.tx && !r.txHit(win, t.items) {
				continue
			}
			r.wins[win].cw.AddThrottledAttempt()
			lo, hi := r.windowParts(win)
			for i := lo; i < hi; i++ {
				if p := &r.parts[i]; !t.tx || p.throttled&bit != 0 {
					r.wins[win].cw.AddKeyThrottle(r.key(p), r.end, reasons)
					if h := r.w.hot; h != nil {
						h.throttled(r.wins[win].key, r.wins[win].cw, r.key(p), r.end)
					}
				}
			}
		}
	}
}

// txHit reports whether any of a transaction's items was on window win.
func (r *recorder) txHit(win int, items []int) bool {
	for _, i := range items {
		if i < len(r.itemWins) && r.itemWins[i] == win {
			return true
		}
	}
	return false
}

var txReasons = []string{ReasonTransactionThrottled}

// markThrottledItems marks the parts whose transaction item a throttled
// attempt named (before merging, while each part has its item's index).
func (r *recorder) markThrottledItems() {
	for a, t := range r.st.throttles {
		if !t.tx {
			continue
		}
		bit := uint64(1) << min(a, 63)
		for _, i := range t.items {
			for j := range r.parts {
				if r.parts[j].idx == i {
					r.parts[j].throttled |= bit
				}
			}
		}
	}
}
