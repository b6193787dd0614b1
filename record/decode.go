package record

import (
	"fmt"
	"slices"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Decoder decodes Lambda DynamoDB Streams payloads. It keeps its scratch
// memory between records and between calls, so that decoding allocates
// nothing per record once warm. It is not safe for concurrent use.
type Decoder struct {
	pk    string // partition-key attribute name; "" = infer
	table string // Config.Table: the table of records that name none

	scan  jsonscan.Scanner // the payload being decoded
	v     Visitor
	vErr  error  // the first error a Visitor func returned: decoding stops
	b64   []byte // decoded base64, valid until the next decodeBase64
	where string // the part of the record being read, for error messages

	rs      recState
	scratch []byte // decoded copies of escaped IDs and key names, canonical key values
	rec     Record

	// The event object being decoded. Lambda puts the time-window fields
	// after Records, so an event's records are decoded into queue and
	// delivered, after the Event, once the object is closed.
	ev        Event
	evSeen    bool   // the object has event fields: it is an event, not a record
	topARN    []byte // eventSourceARN of the top-level object
	iterARN   []byte // the stream ARN that a GetRecords output's NextShardIterator starts with
	envErrs   []Malformed
	queue     [][]pending // blocks of queueBlock
	queued    int         // records in the queue
	single    pending     // the record outside an event, delivered at once
	queueing  bool        // decoding an event's Records
	queuedErr error       // the AmbiguousKeyError that stopped them

	tables   map[string]string // interned table names
	views    map[string]string // interned unusual StreamViewTypes
	lastARN  repeated          // the last record's eventSourceARN and its table
	lastView repeated          // the last record's StreamViewType

	// With indexes: the plan of what each record's charge needs (nil: no
	// indexes, and no work for them), the attributes of the record's
	// images it needs, the last records' key names, and the index writes
	// of the queued records.
	plan     *indexPlan
	images   imageAttrs
	keyNames [2]keyName
	writes   []packedWrite

	isoTimes int // record times read as ISO 8601 strings (ISOTimes)
}

// maxLambdaPayload is the largest synchronous Lambda invocation payload,
// 6 MB: the most one event object holds in production.
const maxLambdaPayload = 6 << 20

// NewDecoder returns a Decoder for cfg.
func NewDecoder(cfg Config) (*Decoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	plan, err := newIndexPlan(cfg.Indexes)
	if err != nil {
		return nil, err
	}
	return &Decoder{
		pk:      cfg.PartitionKey,
		table:   cfg.Table,
		plan:    plan,
		tables:  make(map[string]string),
		views:   make(map[string]string),
		scratch: make([]byte, 0, 1024),
	}, nil
}

// SetPartitionKey names the partition-key attribute from now on, as
// Config.PartitionKey does; "" goes back to inferring it. The Lambda calls
// it once it has looked the key schema up with DescribeTable.
func (d *Decoder) SetPartitionKey(name string) { d.pk = name }

// Decode scans payload and calls v for what it finds, in payload order.
//
// The payload is one or more JSON values, separated by whitespace or not
// (so newline-delimited JSON works), each of them an event object
// ({"Records": [...]} with the time-window fields when present), a single
// record object, or an array of events or of records.
//
// A record that is valid JSON but unusable (a field of the wrong type,
// eventName or Keys missing, an unknown type tag, bad base64 or number, a
// key attribute not S, N or B, attribute values nested too deep...) goes
// to v.Malformed, and decoding goes on with the next record.
//
// Decode returns an error only when it cannot go on: *SyntaxError when the
// payload is not JSON, *AmbiguousKeyError for the first record whose Keys
// have two attributes while no partition key is named, and the error a
// Visitor func returned, unchanged. Records before the error have been
// delivered.
func (d *Decoder) Decode(payload []byte, v Visitor) error {
	if d.tables == nil {
		d.tables = make(map[string]string)
		d.views = make(map[string]string)
	}
	d.scan.Reset(payload)
	d.v, d.vErr = v, nil
	d.queueing, d.queued, d.queuedErr = false, 0, nil
	defer func() { d.scan.Reset(nil); d.v, d.vErr = Visitor{}, nil }()
	i := jsonscan.SkipWS(payload, bomLen(payload))
	for i < len(payload) {
		var err error
		i, err = d.top(i)
		if d.vErr != nil {
			return d.vErr
		}
		if err != nil {
			return err
		}
		if i < 0 {
			return d.syntaxError()
		}
		i = jsonscan.SkipWS(payload, i)
	}
	return nil
}

// ISOTimes returns how many record times the Decoder has read as ISO 8601
// strings (AWS CLI v2's get-records output) rather than epoch seconds,
// since it was made.
func (d *Decoder) ISOTimes() int { return d.isoTimes }

// bom is the UTF-8 byte-order mark some editors and Windows tools write at
// the start of a file: JSON forbids it (RFC 8259 §8.1), but it hides no
// data, so the decoder skips it rather than refuse a file for it.
const bom = "\xef\xbb\xbf"

// bomLen is the length of the byte-order mark payload starts with, if any.
func bomLen(payload []byte) int {
	if len(payload) >= 3 && string(payload[:3]) == bom {
		return 3
	}
	return 0
}

// syntaxError returns the syntax error that stopped the decoding: every
// negative position records its cause, and a bug that loses it still
// answers with a *SyntaxError.
func (d *Decoder) syntaxError() *SyntaxError {
	e := d.scan.Err()
	if e == nil {
		return &SyntaxError{Offset: 0, Msg: "decoder stopped without a cause"}
	}
	return &SyntaxError{Offset: e.Offset, Msg: e.Msg}
}

// top decodes one top-level value at i.
func (d *Decoder) top(i int) (int, error) {
	switch d.scan.Peek(i) {
	case '{':
		return d.object(i)
	case '[':
		i, closed := d.scan.Open(i, ']')
		for !closed {
			var err error
			if d.scan.Peek(i) == '{' {
				i, err = d.object(i)
			} else {
				i = d.notRecord(i)
			}
			if err != nil || i < 0 || d.vErr != nil {
				return i, err
			}
			if i, closed = d.scan.Next(i, ']'); i < 0 {
				return i, nil
			}
		}
		return i, nil
	}
	return d.notRecord(i), nil
}

// object decodes a top-level object at i, which is either an event or a
// record: which one is known only once all its keys have been seen.
func (d *Decoder) object(i int) (int, error) {
	d.ev = Event{}
	d.evSeen = false
	d.topARN = d.topARN[:0]
	d.iterARN = d.iterARN[:0]
	d.envErrs = d.envErrs[:0]
	d.queued = 0
	d.queueing = false
	d.resetRecord()
	end := d.members(i, kindTop)
	err := d.queuedErr // an AmbiguousKeyError ended the Records
	d.queuedErr = nil
	if !d.evSeen {
		if end < 0 {
			return end, nil
		}
		return end, d.finishRecord(i)
	}
	d.deliverEvent()
	return end, err
}

// records decodes the Records array at i into the queue. It stops at an
// AmbiguousKeyError, which it leaves in d.queuedErr.
func (d *Decoder) records(i int) int {
	b := d.scan.Bytes()
	d.queueing = true // queued records keep their bytes in scratch until delivered
	// Records hold about an eighth of their bytes there (copyQueued): size it
	// once rather than grow it by copies, a cold process's peak memory. The
	// rest of the payload may be many events (a replay file), so no more
	// than a Lambda payload's worth.
	if want := min(len(b)-i, maxLambdaPayload) / 8; cap(d.scratch)-len(d.scratch) < want {
		d.scratch = slices.Grow(d.scratch, want)
	}
	i, closed := d.scan.Open(i, ']')
	for !closed {
		if d.scan.Peek(i) == '{' {
			start := i
			d.resetRecord()
			if i = d.members(i, kindRecord); i < 0 {
				return i
			}
			if err := d.finishRecord(start); err != nil {
				d.queuedErr = err
				return -1 // unwinds to object(), which returns err
			}
		} else if i = d.notRecord(i); i < 0 {
			return i
		}
		if i, closed = d.scan.Next(i, ']'); i < 0 {
			return i
		}
	}
	d.queueing = false
	return i
}

// Kinds of object, for members.
const (
	kindTop      = iota // a top-level object: an event or a record
	kindRecord          // an element of Records
	kindDynamo          // a record's "dynamodb"
	kindIdentity        // a record's "userIdentity"
)

// members walks the object at i and hands each member to member.
func (d *Decoder) members(i, kind int) int {
	b := d.scan.Bytes()
	guess := opens[kind]
	i, closed := d.scan.Open(i, '}')
	for !closed {
		var id, j int
		if len(b)-i >= 32 && lits[guess].starts((*[32]byte)(b[i:])) { // nearly always
			id, j = guess, i+len(lits[guess].s)
		} else if g := follows[guess]; len(b)-i >= 32 && lits[g].starts((*[32]byte)(b[i:])) {
			id, j = g, i+len(lits[g].s) // the expected field is absent (an INSERT has no OldImage)
		} else {
			id, j = matchField(b, i, kind)
		}
		if id != fUnknown {
			i = jsonscan.SkipWS(b, j)
		} else {
			var key []byte
			if i, key = d.scan.Key(i); i < 0 {
				return i
			}
			id = fieldID(kind, key)
		}
		switch kind { // the member's value
		case kindRecord:
			i = d.recordMember(id, i)
		case kindDynamo:
			i = d.dynamoMember(id, i)
		case kindTop:
			i = d.topMember(id, i)
		default:
			i = d.identityMember(id, i)
		}
		if i < 0 {
			return i
		}
		guess = follows[id]
		if i, closed = d.scan.Next(i, '}'); i < 0 {
			return i
		}
	}
	return i
}

// topMember decodes the value at i of the member id of a top-level
// object: an event's field, or a record's.
func (d *Decoder) topMember(id, i int) int {
	if end, ok := d.eventMember(id, i); ok {
		return end
	}
	return d.recordMember(id, i)
}

// notRecord skips a value at i that cannot be a record and reports it.
func (d *Decoder) notRecord(i int) int {
	end := d.scan.SkipValue(i)
	if end >= 0 && (d.v.Malformed != nil || d.queueing) {
		kind := "value"
		switch d.scan.Bytes()[i] {
		case '[':
			kind = "array"
		case '"':
			kind = "string"
		case 't', 'f':
			kind = "boolean"
		case 'n':
			kind = "null"
		default:
			kind = "number"
		}
		m := &Malformed{Offset: int64(i), Err: fmt.Errorf("%w: a JSON %s at byte %d", ErrNotRecord, kind, i)}
		if d.queueing {
			*d.nextPending() = pending{bad: m}
		} else {
			d.malformed(m)
		}
	}
	return end
}

// malformed hands m to the visitor, unless a visitor func has failed.
func (d *Decoder) malformed(m *Malformed) {
	if d.vErr == nil && d.v.Malformed != nil {
		d.vErr = d.v.Malformed(m)
	}
}
