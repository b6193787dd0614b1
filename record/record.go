// Package record decodes DynamoDB Streams records straight from the raw JSON
// of a Lambda event, and sizes the items they carry as it reads them, so
// that every write can be charged the WCU DynamoDB charged for it, to the
// table and to each of its global secondary indexes.
//
// It is the single place in hotkeys where stream records are decoded: the
// Lambda, `hotkeys replay` and `hotkeys watch` (which turns SDK records into
// the same JSON) all use it. DynamoDB's rules themselves (number and item
// size, units, the canonical key, index charges) are package ddb's; this
// package walks the JSON and asks ddb what each part costs.
//
// The decoder is a hand-written scanner (on internal/jsonscan): it never
// builds attribute values, it measures them while skipping over them.
// aws-lambda-go's events.DynamoDBAttributeValue decodes through
// map[string]interface{} at about 21 MB/s and panics on a type mismatch;
// this package does neither.
package record

import (
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// EventName is the kind of write a stream record reports.
type EventName uint8

// The event names of DynamoDB Streams.
const (
	Insert EventName = iota + 1 // INSERT
	Modify                      // MODIFY
	Remove                      // REMOVE
)

// String returns the name as DynamoDB Streams spells it.
func (e EventName) String() string {
	switch e {
	case Insert:
		return "INSERT"
	case Modify:
		return "MODIFY"
	case Remove:
		return "REMOVE"
	}
	return "UNKNOWN"
}

// kind is what a write of this event did, as ddb's rules see it; ttl marks
// a REMOVE by DynamoDB's TTL process.
func (e EventName) kind(ttl bool) ddb.WriteKind {
	switch e {
	case Insert:
		return ddb.Created
	case Modify:
		return ddb.Updated
	case Remove:
		if ttl {
			return ddb.Expired
		}
		return ddb.Deleted
	}
	return 0
}

// Record is one decoded stream record. Byte slices alias the payload or the
// decoder's scratch memory and are valid only during the callback.
type Record struct {
	Table          string    // table name, from eventSourceARN (interned: no allocation per record)
	Shard          string    // shardId of a time-window event; "" for a plain batch
	EventName      EventName //
	EventID        []byte    // eventID
	SequenceNumber []byte    // dynamodb.SequenceNumber (decimal digits)
	Time           time.Time // dynamodb.ApproximateCreationDateTime; zero when absent
	StreamViewType string    // KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES (interned)

	// The key, canonical (see ddb.Key). Its Value aliases the payload or
	// the decoder's scratch memory and is valid only until the callback
	// that received it returns; copy it to keep it.
	PartitionKey ddb.Key
	SortKey      ddb.Key // Type 0 when the table has no sort key

	KeysSize     int   // item size of dynamodb.Keys alone
	NewImageSize int   // item size of dynamodb.NewImage; -1 when absent
	OldImageSize int   // item size of dynamodb.OldImage; -1 when absent
	SizeBytes    int64 // dynamodb.SizeBytes as reported: the stream record's size, not the item's

	// TTLDelete is true for a REMOVE made by DynamoDB's TTL process
	// (userIdentity type "Service", principalId "dynamodb.amazonaws.com").
	// TTL deletes are free: WCU is 0 for them.
	TTLDelete bool

	// WCU is what DynamoDB charged for the write (see ddb.ItemWriteUnits).
	WCU uint64
	// WCUExact is false when an image needed to size the write exactly was
	// missing (KEYS_ONLY streams, MODIFY or REMOVE without OldImage, INSERT or
	// MODIFY without NewImage): WCU is then a lower bound.
	WCUExact bool

	// Indexes holds the writes this record made to Config.Indexes, in that
	// order: one for each index it touched (it cost the index WCU, removed
	// an entry by TTL, or could not be told exactly for want of an image).
	// An index it does not list cost nothing, exactly: most records touch
	// few of a table's indexes, so the decoder decides that once rather
	// than every consumer skipping blank writes. Empty without indexes.
	// Reused between records.
	Indexes []IndexWrite
}
