package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Sentinel errors. Every Malformed.Err wraps exactly one of them, so a
// caller can count malformed records by cause with errors.Is.
var (
	// ErrNotRecord: a JSON value where a stream record or event was expected.
	ErrNotRecord = errors.New("record: not a stream record or event")
	// ErrMissingField: a field every record must have is absent or null.
	ErrMissingField = errors.New("record: missing field")
	// ErrFieldType: a field of the record has the wrong JSON type.
	ErrFieldType = errors.New("record: wrong JSON type")
	// ErrEventName: eventName is not INSERT, MODIFY or REMOVE.
	ErrEventName = errors.New("record: unknown eventName")
	// ErrAttributeValue: an attribute value is not a DynamoDB-JSON value
	// (no type tag, an unknown tag, two tags, or a value of the wrong type).
	ErrAttributeValue = errors.New("record: invalid attribute value")
	// ErrNumber: an N value is not a number DynamoDB can store. It is
	// ddb.ErrNumber: the rule that refused the number is ddb's.
	ErrNumber = ddb.ErrNumber
	// ErrBase64: a B value is not standard base64.
	ErrBase64 = errors.New("record: invalid base64")
	// ErrKey: dynamodb.Keys cannot give a partition key (empty, more than
	// two attributes, an attribute not S, N or B, or the configured
	// partition key missing).
	ErrKey = errors.New("record: unusable key")
	// ErrTooDeep: attribute values nested deeper than DynamoDB allows.
	ErrTooDeep = errors.New("record: attribute values nested too deep")
	// ErrEnvelope: a field of a Lambda event envelope (Records, window,
	// state, shardId, isFinalInvokeForWindow, isWindowTerminatedEarly) has
	// the wrong type. The event's records are still decoded.
	ErrEnvelope = errors.New("record: invalid event envelope")
	// ErrConfig: an invalid Config.
	ErrConfig = errors.New("record: invalid config")
)

// SyntaxError is returned by Decode when the payload is not JSON: nothing
// after Offset can be trusted, so decoding stops there. Records before it
// have already been delivered to the visitor.
type SyntaxError struct {
	Offset int64  // byte offset of the error in the payload
	Msg    string // what is wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("record: invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// AmbiguousKeyError is returned by Decode for the first record whose Keys
// hold two attributes (a partition key and a sort key) while no partition
// key name is configured: a stream record does not say which is which.
// Records before it have already been delivered to the visitor. Its
// message names no setting: the caller says how its user names the key.
type AmbiguousKeyError struct {
	Table      string    // the table of the record, "" when unknown
	Attributes [2]string // the two key attribute names, as found
}

func (e *AmbiguousKeyError) Error() string {
	return fmt.Sprintf("record: table %q has two key attributes (%q, %q) and a stream record does not say "+
		"which is the partition key", e.Table, e.Attributes[0], e.Attributes[1])
}

// MissingKeyError is a Malformed.Err: the configured partition key is not
// among the record's key attributes. It wraps ErrKey. A caller that sees
// it for every record was most likely told the wrong attribute, and Keys
// says which there are.
type MissingKeyError struct {
	PartitionKey string   // the configured name
	Keys         []string // the attributes of the record's dynamodb.Keys, in its order
}

func (e *MissingKeyError) Error() string {
	names := make([]string, len(e.Keys))
	for k, n := range e.Keys {
		names[k] = strconv.Quote(n)
	}
	return fmt.Sprintf("%v: partition key %q is not in dynamodb.Keys, which holds %s", ErrKey, e.PartitionKey, strings.Join(names, " and "))
}

// Unwrap makes errors.Is(err, ErrKey) hold.
func (e *MissingKeyError) Unwrap() error { return ErrKey }
