package ddb

// What a write to a table costs one of its global secondary indexes, by
// the Developer Guide's "Provisioned throughput considerations for global
// secondary indexes":
//
//   - a write that leaves the item out of the index before and after costs
//     nothing (sparse indexes);
//   - entering the index is one write, of the new entry;
//   - leaving it is one write, of the old entry;
//   - changing the index key is two writes: delete the old entry, put the
//     new one;
//   - changing only projected attributes is one write, of the larger entry;
//   - changing nothing projected costs nothing;
//
// where an entry is the table's key attributes, the index's key attributes
// and the projected attributes, sized by the item-size rule, and a write
// costs WriteUnits of it (no per-entry overhead). An item is in an index
// when it has every key attribute of the index, as S, N or B.
//
// The guide leaves two cases open, which are charged as DynamoDB Local
// charges them: shrinking a projected attribute without a key change costs
// the larger entry; a key change that shrinks the entry costs the old
// entry's units plus the new one's.
//
// TTL deletes: DynamoDB removes the item from every index "in the same way
// as a DeleteItem operation", and TTL deletes are free. So a TTL delete
// costs the index nothing, and the entry it removed is counted apart
// (IndexCharge.Expired).

// IndexFacts are what the rules need to know of one write, for one index.
type IndexFacts struct {
	Kind     WriteKind
	Old, New IndexSide // the item before and after the write
	// KeyChanged: the index key (partition or sort) has another value
	// after the write. ProjectedChanged: a projected attribute (for
	// ProjectAll, any attribute) has another value after the write. The
	// rules read KeyChanged only for an item in the index before and after
	// it, and ProjectedChanged only when, besides, the key did not change:
	// a caller need not work them out otherwise.
	KeyChanged, ProjectedChanged bool
}

// IndexSide is the item on one side of a write, as an index sees it.
type IndexSide struct {
	Known bool // the item's image on this side is known
	In    bool // it has every key attribute of the index, as S, N or B
	Entry int  // the size in bytes of its entry in the index, when In
}

// IndexCharge is what one write cost one index, in WCU.
type IndexCharge struct {
	Delete  uint64 // the write removed an entry: the item left, or its index key changed
	Put     uint64 // the write put an entry: the item entered, its key changed, or projected attributes changed
	Expired uint64 // a TTL delete removed an entry of this size; free, so not in WCU
	// Exact is false when an image the rules needed was not known: the
	// charge is then a lower bound (0 when nothing could be told).
	Exact bool
}

// WCU is what the index was charged: Delete + Put.
func (c IndexCharge) WCU() uint64 { return c.Delete + c.Put }

// ChargeIndex applies the rules to the facts of one write.
func ChargeIndex(f *IndexFacts) IndexCharge {
	oldEntry := func() uint64 { return WriteUnits(f.Old.Entry) }
	newEntry := func() uint64 { return WriteUnits(f.New.Entry) }
	c := IndexCharge{Exact: true}
	switch {
	case f.Kind == Expired:
		if f.Old.In {
			c.Expired = oldEntry()
		}
		c.Exact = f.Old.Known
	case f.Kind == Created:
		if f.New.In {
			c.Put = newEntry()
		}
		c.Exact = f.New.Known
	case f.Kind == Deleted:
		if f.Old.In {
			c.Delete = oldEntry()
		}
		c.Exact = f.Old.Known
	case !f.New.Known || !f.Old.Known:
		c.Exact = false
	case f.Old.In && !f.New.In:
		c.Delete = oldEntry()
	case !f.Old.In && f.New.In:
		c.Put = newEntry()
	case !f.Old.In: // in neither
	case f.KeyChanged:
		c.Delete, c.Put = oldEntry(), newEntry()
	case f.ProjectedChanged:
		// One write under the unchanged key, of the larger entry.
		c.Put = WriteUnits(max(f.Old.Entry, f.New.Entry))
	}
	return c
}
