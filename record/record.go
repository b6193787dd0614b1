// Package record decodes DynamoDB Streams records straight from the raw JSON
// of a Lambda event, and sizes the items they carry by DynamoDB's own rules,
// so that every write can be charged the WCU DynamoDB charged for it.
//
// It is the single place in hotkeys where stream records are decoded and
// where item sizes are computed: the Lambda, `hotkeys replay` and
// `hotkeys watch` (which turns SDK records into the same JSON) all use it.
//
// The decoder is a hand-written scanner: it never builds attribute values,
// it measures them while skipping over them. aws-lambda-go's
// events.DynamoDBAttributeValue decodes through map[string]interface{} at
// about 21 MB/s and panics on a type mismatch; this package does neither.
package record

import "time"

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

// KeyType is the DynamoDB scalar type of a key attribute: 'S', 'N' or 'B'.
type KeyType byte

// The key attribute types DynamoDB allows.
const (
	String KeyType = 'S'
	Number KeyType = 'N'
	Binary KeyType = 'B'
)

// Key is a key attribute's value in canonical form, so that two values
// DynamoDB treats as the same key are byte-for-byte equal:
//   - S: the UTF-8 bytes of the string (JSON escapes resolved);
//   - N: the canonical decimal ("10", "10.0", "1e1" and "+10" are all "10";
//     no exponent, no leading or trailing zeros, "-" only for negatives);
//   - B: the decoded bytes (not base64).
//
// Value aliases the payload or the decoder's scratch memory and is valid
// only until the callback that received it returns; copy it to keep it.
type Key struct {
	Type  KeyType // 0 when the key is absent
	Value []byte
}

// Present reports whether the key was in the record.
func (k Key) Present() bool { return k.Type != 0 }

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

	PartitionKey Key
	SortKey      Key // Type 0 when the table has no sort key

	KeysSize     int   // item size of dynamodb.Keys alone
	NewImageSize int   // item size of dynamodb.NewImage; -1 when absent
	OldImageSize int   // item size of dynamodb.OldImage; -1 when absent
	SizeBytes    int64 // dynamodb.SizeBytes as reported: the stream record's size, not the item's

	// TTLDelete is true for a REMOVE made by DynamoDB's TTL process
	// (userIdentity type "Service", principalId "dynamodb.amazonaws.com").
	// TTL deletes are free: WCU is 0 for them.
	TTLDelete bool

	// WCU is what DynamoDB charged for the write (see WriteUnits).
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
