package detector

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/hotkeys-dev/hotkeys/record"
)

// ErrInternal marks a bug in hotkeys itself, found while handling a record:
// a panic, or a sink refusing a record the decoder accepted. It is never
// the input's fault, so it is never counted as a malformed record.
var ErrInternal = errors.New("detector: internal error")

// InternalError is an ErrInternal with what is needed to fix it.
type InternalError struct {
	Table   string // the record's table ("" when the decoder itself failed)
	EventID string // the record being handled
	Cause   string // the panic value or the sink's error
	Stack   []byte // the goroutine's stack where the panic was recovered; nil for a sink error
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("%v while handling record %q: %s", ErrInternal, e.EventID, e.Cause)
}

// Unwrap makes errors.Is(err, ErrInternal) hold.
func (e *InternalError) Unwrap() error { return ErrInternal }

// Sink is what a Feed counts records into: a Detector, or the Lambda's
// tumbling window.
type Sink interface {
	// Add counts a well-formed record; its Time is set.
	Add(r *record.Record) error
	// AddMalformed counts a record skipped as malformed; table is "" only
	// when neither the record nor any before it named one.
	AddMalformed(table string)
}

// Feed is the one path from the raw JSON of DynamoDB stream records (a
// Lambda event, a captured file, GetRecords pages turned into the same
// JSON) into a Sink. replay, watch and the Lambda all decode through it, so
// every record is treated alike wherever it is read:
//
//   - Time: a record without ApproximateCreationDateTime takes the time of
//     the record before it in the same Feed (a shard's records are in time
//     order), or, with none before it, the clock's now. So a record without
//     a time never opens a window of its own far from its neighbours.
//   - Table: a malformed record that names no table counts against the table
//     of the record before it.
//   - A panic while handling a record, or a sink that refuses one, is an
//     InternalError, never a malformed record.
//
// A Feed is not safe for concurrent use.
type Feed struct {
	dec       *record.Decoder
	now       func() time.Time
	lastTime  time.Time
	lastTable string
}

// NewFeed returns a Feed that decodes with dec and reads the clock with now.
func NewFeed(dec *record.Decoder, now func() time.Time) *Feed {
	return &Feed{dec: dec, now: now}
}

// SetPartitionKey names the partition-key attribute from now on (see
// record.Decoder.SetPartitionKey).
func (f *Feed) SetPartitionKey(name string) { f.dec.SetPartitionKey(name) }

// Hooks are what a caller adds to one Decode call. Any func may be nil.
type Hooks struct {
	// Shard, when not empty, is the stream shard the records came from
	// (watch knows it; a plain Lambda batch does not say).
	Shard string
	// Event is called for each event object, before its records: the
	// Lambda reads a tumbling window's state here. Its error stops Decode.
	Event func(ev *record.Event) error
	// Seen reports a record already counted (a redelivered batch); it is
	// counted in Counts.Duplicates and not added to the sink.
	Seen func(r *record.Record) bool
	// Malformed is called after a malformed record is counted: to say so on
	// stderr or in a log.
	Malformed func(m *record.Malformed)
	// Internal receives each InternalError, and Decode goes on with the next
	// record: the Lambda counts and logs it rather than block a shard. When
	// nil, Decode stops and returns the InternalError.
	Internal func(err *InternalError)
}

// Counts is what one Decode call saw.
type Counts struct {
	Records    int // added to the sink
	Duplicates int // skipped because Hooks.Seen said so
	Malformed  int // counted as malformed
	Internal   int // InternalErrors passed to Hooks.Internal
}

// Decode decodes payload into sink. It returns the decoder's errors as they
// are (*record.SyntaxError, *record.AmbiguousKeyError), an Event hook's
// error, or, when Hooks.Internal is nil, the first *InternalError. Records
// before the error have been counted.
func (f *Feed) Decode(payload []byte, sink Sink, h Hooks) (Counts, error) {
	var c Counts
	err := f.dec.Decode(payload, record.Visitor{
		Event: h.Event,
		Record: func(r *record.Record) error {
			added, ie := f.record(r, sink, h)
			switch {
			case ie == nil && added:
				c.Records++
			case ie == nil:
				c.Duplicates++
			case h.Internal == nil:
				return ie
			default:
				c.Internal++
				h.Internal(ie)
			}
			return nil
		},
		Malformed: func(m *record.Malformed) error {
			if m.Table == "" {
				m.Table = f.lastTable
			}
			c.Malformed++
			sink.AddMalformed(m.Table)
			if h.Malformed != nil {
				h.Malformed(m)
			}
			return nil
		},
	})
	return c, err
}

// record handles one well-formed record: settles its shard and time, asks
// Hooks.Seen, and adds it to sink. Whatever panics on the way, or a sink's
// error, becomes an InternalError.
func (f *Feed) record(r *record.Record, sink Sink, h Hooks) (added bool, ie *InternalError) {
	defer func() {
		if p := recover(); p != nil {
			added, ie = false, &InternalError{Table: r.Table, EventID: string(r.EventID), Cause: fmt.Sprint(p), Stack: debug.Stack()}
		}
	}()
	if h.Shard != "" {
		r.Shard = h.Shard
	}
	if r.Time.IsZero() {
		r.Time = f.lastTime
		if r.Time.IsZero() {
			r.Time = f.now()
		}
	}
	f.lastTime, f.lastTable = r.Time, r.Table
	if h.Seen != nil && h.Seen(r) {
		return false, nil
	}
	if err := sink.Add(r); err != nil {
		return false, &InternalError{Table: r.Table, EventID: string(r.EventID), Cause: err.Error()}
	}
	return true, nil
}
