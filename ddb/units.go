package ddb

import "math"

// Capacity units (the Developer Guide's "DynamoDB read and write
// operations"): a write costs one write unit per 1 KB of the item, a
// strongly consistent read one read unit per 4 KB, each rounded up and at
// least one. A Query or Scan adds up the sizes of a page's items before
// rounding; a BatchGetItem or a transaction rounds each item on its own.
const (
	WriteUnitBytes = 1024 // one WCU writes this much
	ReadUnitBytes  = 4096 // one RCU reads this much, strongly consistent
)

// A partition's throughput limits, per second ("Partitions and data
// distribution"): past them, requests to its keys are throttled whatever
// the table's capacity.
const (
	PartitionWriteUnits = 1000 // WCU per second
	PartitionReadUnits  = 3000 // RCU per second (strongly consistent)
)

// HeadroomFloor is the least peak Headroom divides by, per second: a key
// that shows no peak (0) gets a large, finite headroom, never infinity.
const HeadroomFloor = 1e-3

// Headroom is the one rule every report's headroom follows: how many times
// a key's peak per-second rate fits under its partition's limit, limit ÷
// peak, to four significant digits (1.6: the limit is 1.6× the peak; 1 or
// less: at or past the limit). The peak is a lower bound of the key's true peak
// second, so the headroom is an upper bound of what is left; a key pinned
// at the limit hides its demand, and its headroom only says it is there.
func Headroom(peak, limit float64) float64 {
	h := limit / max(peak, HeadroomFloor)
	if !(h > 0) || math.IsInf(h, 0) {
		return h
	}
	scale := math.Pow(10, 3-math.Floor(math.Log10(h)))
	return math.Round(h*scale) / scale
}

// WriteUnits is the write capacity units a write of size bytes costs:
// ceil(size / 1 KB), at least 1.
func WriteUnits(size int) uint64 { return units(size, WriteUnitBytes) }

// ReadUnits is the read capacity units a strongly consistent read of size
// bytes costs: ceil(size / 4 KB), at least 1. An eventually consistent
// read costs half as much, a transactional one twice.
func ReadUnits(size int) uint64 { return units(size, ReadUnitBytes) }

// units is the one rounding of a size to capacity units.
func units(size, unit int) uint64 {
	if size <= unit {
		return 1
	}
	return uint64((size + unit - 1) / unit)
}

// WriteKind is what a write did to an item.
type WriteKind uint8

// The kinds of write. A stream record's INSERT is Created, MODIFY Updated,
// REMOVE Deleted or, when DynamoDB's TTL process made it, Expired.
const (
	Created WriteKind = iota + 1 // the item is new
	Updated                      // an existing item changed
	Deleted                      // the item was deleted
	Expired                      // the item was deleted by TTL: free
)

// ItemWriteUnits returns the write capacity units DynamoDB charged for a
// write of kind to a table, from the sizes of the item before (oldSize)
// and after it (newSize), -1 when not known, and of its key attributes:
// a new item is charged its size, a change the larger of before and after,
// a delete the deleted item, and a TTL delete nothing. When the size that
// decides is not known it charges the largest size it knows, at least 1
// WCU, and reports exact=false: the true charge may be higher.
func ItemWriteUnits(kind WriteKind, newSize, oldSize, keysSize int) (wcu uint64, exact bool) {
	switch kind {
	case Expired:
		return 0, true
	case Created:
		if newSize >= 0 {
			return WriteUnits(newSize), true
		}
	case Updated:
		if newSize >= 0 && oldSize >= 0 {
			return WriteUnits(max(newSize, oldSize)), true
		}
	case Deleted:
		if oldSize >= 0 {
			return WriteUnits(oldSize), true
		}
	}
	return WriteUnits(max(newSize, oldSize, keysSize)), false
}
