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

// Sink is what a Feed counts records into: a Detector, a WindowSet, or a
// caller's type around one.
type Sink interface {
	// Add counts a well-formed record; its Time is set.
	Add(r *record.Record) error
	// AddMalformed counts a record skipped as malformed; table is "" only
	// when neither the record nor any before it named one.
	AddMalformed(table string)
}

var (
	_ Sink = (*Detector)(nil)
	_ Sink = (*WindowSet)(nil)
)

// Deduper is a Sink that knows the records it has counted before: the
// Lambda's, whose records come at least once. A Feed asks Seen of each
// record before Add; a record seen is counted in Counts.Duplicates and by
// AddDuplicate (report.Totals.Duplicates), and not added.
type Deduper interface {
	Sink
	Seen(r *record.Record) bool
	AddDuplicate(table string)
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

	// visitor hands the decoder's findings to the Decode call under way,
	// call: made once, so that a call allocates nothing of its own.
	visitor record.Visitor
	call    feedCall
}

// feedCall is a Decode call under way.
type feedCall struct {
	sink, to Sink    // Decode's, and the current event's (Hooks.Event)
	dedupe   Deduper // to, when it dedupes
	hooks    Hooks
	counts   Counts
}

// NewFeed returns a Feed that decodes with dec and reads the clock with now.
func NewFeed(dec *record.Decoder, now func() time.Time) *Feed {
	f := &Feed{dec: dec, now: now}
	f.visitor = record.Visitor{Event: f.event, Record: f.record, Malformed: f.malformed}
	return f
}

// SetPartitionKey names the partition-key attribute from now on (see
// record.Decoder.SetPartitionKey).
func (f *Feed) SetPartitionKey(name string) { f.dec.SetPartitionKey(name) }

// Hooks are what a caller adds to one Decode call. Any func may be nil.
type Hooks struct {
	// Shard, when not empty, is the stream shard the records came from
	// (watch knows it; a plain Lambda batch does not say).
	Shard string
	// Event is called for each event object, before its records. It
	// returns where the event's records go, nil for Decode's sink: the
	// Lambda restores a tumbling window from the event's state here. Its
	// error stops Decode.
	Event func(ev *record.Event) (Sink, error)
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
	Duplicates int // skipped because the sink's Seen said so (Deduper)
	Malformed  int // counted as malformed
	Internal   int // InternalErrors passed to Hooks.Internal
}

// Decode decodes payload into sink, or into the sink Hooks.Event chooses
// for an event's records. It returns the decoder's errors as they are
// (*record.SyntaxError, *record.AmbiguousKeyError), an Event hook's error,
// or, when Hooks.Internal is nil, the first *InternalError. Records before
// the error have been counted.
func (f *Feed) Decode(payload []byte, sink Sink, h Hooks) (Counts, error) {
	f.call = feedCall{sink: sink, to: sink, dedupe: deduper(sink), hooks: h}
	err := f.dec.Decode(payload, f.visitor)
	c := f.call.counts
	f.call = feedCall{} // keep no sink alive
	return c, err
}

// deduper returns s as a Deduper, or nil when it does not dedupe.
func deduper(s Sink) Deduper {
	d, _ := s.(Deduper)
	return d
}

// event takes an event: its records go where Hooks.Event says.
func (f *Feed) event(ev *record.Event) error {
	c := &f.call
	if c.hooks.Event == nil {
		return nil
	}
	chosen, err := c.hooks.Event(ev)
	if chosen == nil {
		chosen = c.sink
	}
	c.to, c.dedupe = chosen, deduper(chosen)
	return err
}

// record counts a well-formed record, or passes on the InternalError it
// raised.
func (f *Feed) record(r *record.Record) error {
	c := &f.call
	added, ie := f.add(r)
	switch {
	case ie == nil && added:
		c.counts.Records++
	case ie == nil:
		c.counts.Duplicates++
	case c.hooks.Internal == nil:
		return ie
	default:
		c.counts.Internal++
		c.hooks.Internal(ie)
	}
	return nil
}

// malformed counts a malformed record, against the table before it when
// it names none.
func (f *Feed) malformed(m *record.Malformed) error {
	c := &f.call
	if m.Table == "" {
		m.Table = f.lastTable
	}
	c.counts.Malformed++
	c.to.AddMalformed(m.Table)
	if c.hooks.Malformed != nil {
		c.hooks.Malformed(m)
	}
	return nil
}

// add handles one well-formed record: settles its shard and time, asks the
// sink whether it was counted before (Deduper), and adds it. Whatever
// panics on the way, or a sink's error, becomes an InternalError.
func (f *Feed) add(r *record.Record) (added bool, ie *InternalError) {
	defer func() {
		if p := recover(); p != nil {
			added, ie = false, &InternalError{Table: r.Table, EventID: string(r.EventID), Cause: fmt.Sprint(p), Stack: debug.Stack()}
		}
	}()
	c := &f.call
	if c.hooks.Shard != "" {
		r.Shard = c.hooks.Shard
	}
	if r.Time.IsZero() {
		r.Time = f.lastTime
		if r.Time.IsZero() {
			r.Time = f.now()
		}
	}
	f.lastTime, f.lastTable = r.Time, r.Table
	if c.dedupe != nil && c.dedupe.Seen(r) {
		c.dedupe.AddDuplicate(r.Table)
		return false, nil
	}
	if err := c.to.Add(r); err != nil {
		return false, &InternalError{Table: r.Table, EventID: string(r.EventID), Cause: err.Error()}
	}
	return true, nil
}
