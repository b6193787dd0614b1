package record

import (
	"slices"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Global secondary indexes: what each record's write cost each of the
// table's indexes. The rules are ddb.ChargeIndex's; the decoder works out
// their facts from the record's images (is the item in the index before
// and after, did its index key or a projected attribute change, how large
// is its entry) while it sizes them.

// IndexWrite is what one stream record's write cost one index.
type IndexWrite struct {
	Index string // the index's name
	// WCU is what the index was charged: Delete.WCU + Put.WCU.
	WCU uint64
	// Exact is false when an image needed to decide was missing: WCU is
	// then a lower bound (0 when nothing could be told).
	Exact bool
	// Delete is the entry the write removed (the item left the index, or
	// its index key changed), and Put the entry it wrote (the item entered
	// the index, its key changed, or only projected attributes changed: then
	// one write of the larger entry, under the unchanged key).
	Delete, Put ddb.IndexEntry
	// TTLWCU is, for a TTL delete, the size in WCU of the entry DynamoDB's
	// TTL process removed from the index. TTL deletes are free: WCU is 0.
	TTLWCU uint64
}

// Touched reports whether the write touched its index: it cost the index
// WCU, removed an entry by TTL, or could not be told exactly. Record.Indexes
// lists only such writes; a consumer given writes from elsewhere skips
// the others with it.
func (w *IndexWrite) Touched() bool { return w.WCU != 0 || w.TTLWCU != 0 || !w.Exact }

// SetIndexes replaces the indexes the decoder charges writes to, as
// Config.Indexes does; nil turns index analysis off. The Lambda calls it
// when DescribeTable shows the table's indexes have changed.
func (d *Decoder) SetIndexes(defs []ddb.Index) error {
	p, err := newIndexPlan(defs)
	if err != nil {
		return err
	}
	d.plan = p
	d.keyNames = [2]keyName{} // their ids were the old plan's
	return nil
}

// Indexes returns the indexes the decoder charges writes to.
func (d *Decoder) Indexes() []ddb.Index {
	if d.plan == nil {
		return nil
	}
	return slices.Clone(d.plan.defs)
}
