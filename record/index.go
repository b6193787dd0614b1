package record

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Global secondary indexes: their definitions, and what every write costs
// each of them, by DynamoDB's documented rules (AWS Developer Guide,
// "Provisioned throughput considerations for global secondary indexes"):
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
// and the projected attributes, sized by the item-size rules, and a write
// costs ceil(size/1 KB). An item is in an index when it has every key
// attribute of the index, as S, N or B.
//
// TTL deletes: DynamoDB removes the item from every index "in the same way
// as a DeleteItem operation", and TTL deletes are free. So a TTL delete is
// charged 0 WCU to the index, and the entry it removed is counted apart in
// IndexWrite.TTLWCU.
// Projection is what a global secondary index copies of an item besides
// the keys.
type Projection uint8

// The projection types of DynamoDB.
const (
	ProjectAll      Projection = iota + 1 // ALL: every attribute
	ProjectKeysOnly                       // KEYS_ONLY: the table's and the index's keys
	ProjectInclude                        // INCLUDE: the keys and Index.NonKeyAttributes
)

// String returns the projection type as DynamoDB spells it.
func (p Projection) String() string {
	switch p {
	case ProjectAll:
		return "ALL"
	case ProjectKeysOnly:
		return "KEYS_ONLY"
	case ProjectInclude:
		return "INCLUDE"
	}
	return fmt.Sprintf("Projection(%d)", uint8(p))
}

// ErrIndex is wrapped by the errors about index definitions.
var ErrIndex = errors.New("record: invalid index definition")

// ParseProjection reads a ProjectionType: ALL, KEYS_ONLY or INCLUDE.
func ParseProjection(s string) (Projection, error) {
	for _, p := range []Projection{ProjectAll, ProjectKeysOnly, ProjectInclude} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: projection type %q is not ALL, KEYS_ONLY or INCLUDE", ErrIndex, s)
}

// Index defines a global secondary index.
type Index struct {
	Name             string
	PartitionKey     string // the index's HASH key attribute
	SortKey          string // its RANGE key attribute; "" when it has none
	Projection       Projection
	NonKeyAttributes []string // the attributes INCLUDE projects
}

// Validate checks that ix could be a DynamoDB index.
func (ix Index) Validate() error {
	if ix.Name == "" {
		return fmt.Errorf("%w: an index has no name", ErrIndex)
	}
	if ix.PartitionKey == "" {
		return fmt.Errorf("%w: index %q has no partition key", ErrIndex, ix.Name)
	}
	for _, n := range []string{ix.Name, ix.PartitionKey, ix.SortKey} {
		if len(n) > maxKeyNameBytes || !utf8.ValidString(n) {
			return fmt.Errorf("%w: index %q: name %.40q is not UTF-8 of at most %d bytes", ErrIndex, ix.Name, n, maxKeyNameBytes)
		}
	}
	switch ix.Projection {
	case ProjectAll, ProjectKeysOnly:
		if len(ix.NonKeyAttributes) > 0 {
			return fmt.Errorf("%w: index %q: NonKeyAttributes need projection INCLUDE, not %s", ErrIndex, ix.Name, ix.Projection)
		}
	case ProjectInclude:
		for _, a := range ix.NonKeyAttributes {
			if a == "" || !utf8.ValidString(a) {
				return fmt.Errorf("%w: index %q: a NonKeyAttribute %q is empty or not UTF-8", ErrIndex, ix.Name, a)
			}
		}
	default:
		return fmt.Errorf("%w: index %q: projection %v", ErrIndex, ix.Name, ix.Projection)
	}
	return nil
}

// IndexEntry is one write to an index: the entry's partition key in the
// index, and its cost.
type IndexEntry struct {
	Key Key    // the index partition key (canonical); Type 0 when none
	WCU uint64 // 0 when there was no such write
}

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
	Delete, Put IndexEntry
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
func (d *Decoder) SetIndexes(defs []Index) error {
	p, err := newIndexPlan(defs)
	if err != nil {
		return err
	}
	d.ix = p
	d.is.keys = [2]keyName{} // their ids were the old plan's
	return nil
}

// Indexes returns the indexes the decoder charges writes to.
func (d *Decoder) Indexes() []Index {
	if d.ix == nil {
		return nil
	}
	return slices.Clone(d.ix.defs)
}
