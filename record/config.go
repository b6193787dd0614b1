package record

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Config configures a Decoder.
type Config struct {
	// PartitionKey names the partition-key attribute. "" means infer it:
	// when a record's Keys hold exactly one attribute, that is the partition
	// key; when they hold two, Decode returns *AmbiguousKeyError.
	PartitionKey string
	// Table is the table of records that do not name theirs: neither the
	// record nor its event has an eventSourceARN, nor does a GetRecords
	// output's NextShardIterator name the stream (AWS CLI's get-records
	// output lacks the first two). "" leaves such records' Table empty.
	Table string
	// Indexes are the table's global secondary indexes: every record's
	// write is then charged to each of them (Record.Indexes). None: no
	// index analysis, and no work for it.
	Indexes []ddb.Index
}

// DefaultConfig infers the partition key.
func DefaultConfig() Config { return Config{} }

// Validate checks that PartitionKey could name a DynamoDB key attribute.
func (c Config) Validate() error {
	if len(c.PartitionKey) > ddb.MaxKeyNameBytes {
		return fmt.Errorf("%w: partition key name is %d bytes, DynamoDB allows at most %d",
			ErrConfig, len(c.PartitionKey), ddb.MaxKeyNameBytes)
	}
	if !utf8.ValidString(c.PartitionKey) {
		return fmt.Errorf("%w: partition key name %q is not UTF-8", ErrConfig, c.PartitionKey)
	}
	if _, err := newIndexPlan(c.Indexes); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

// Visitor receives what Decode finds, in payload order. Any func may be
// nil. The values passed are owned by the Decoder and valid only until the
// func returns.
//
// A func that returns an error stops the decoding: Decode calls nothing
// more and returns that error unchanged, so the caller can tell its own
// errors (errors.Is, errors.As) from the payload's. What was delivered
// before stays delivered; the rest of the payload is not looked at.
type Visitor struct {
	// Event is called once per event object, before its records.
	Event func(ev *Event) error
	// Record is called once per well-formed record.
	Record func(r *Record) error
	// Malformed is called once per record that is valid JSON but unusable,
	// and once per invalid field of an event envelope.
	Malformed func(m *Malformed) error
}

// Event is the Lambda envelope of a batch of records: the fields a
// DynamoDBTimeWindowEvent adds to a DynamoDBEvent. They are zero when
// absent, as they are in a plain DynamoDBEvent.
type Event struct {
	WindowStart, WindowEnd  time.Time         // "window": {"start", "end"} (RFC 3339)
	State                   map[string]string // "state"
	ShardID                 string            // "shardId"
	EventSourceARN          string            // top-level "eventSourceARN", if present
	IsFinalInvokeForWindow  bool              // "isFinalInvokeForWindow"
	IsWindowTerminatedEarly bool              // "isWindowTerminatedEarly"
	TimeWindow              bool              // a "window" object was present
}

// Malformed describes a record that is valid JSON but cannot be used. Its
// fields are copies, safe to keep.
type Malformed struct {
	Offset         int64 // byte offset of the record in the payload
	Err            error // wraps one of the sentinel errors: what is wrong
	Table          string
	EventID        string
	SequenceNumber string
}
