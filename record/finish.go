package record

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// A record, once its object closes: checked, charged, and delivered, or
// queued until its event closes.

// finishRecord checks the record that started at offset, and hands it to
// the visitor as a Record or a Malformed (or queues it, inside an event).
// It returns an *AmbiguousKeyError when the record's key cannot be told.
func (d *Decoder) finishRecord(offset int) error {
	rs := &d.rs
	if rs.err == nil {
		rs.err = d.missing()
	}
	pk, sk := 0, -1
	if rs.err == nil {
		var err error
		if pk, sk, err = d.keyRoles(); err != nil {
			return err
		}
	}
	if rs.err != nil {
		m := &Malformed{
			Offset:         int64(offset),
			Err:            rs.err,
			Table:          rs.table, // or, once its event closes, the event's
			EventID:        string(d.bytesOf(rs.eventID)),
			SequenceNumber: string(d.bytesOf(rs.seq)),
		}
		if d.queueing {
			*d.nextPending() = pending{bad: m}
		} else {
			m.Table = cmp.Or(m.Table, d.table)
			d.malformed(m)
		}
		return nil
	}
	p := d.nextPending()
	d.fill(p, pk, sk)
	if !d.queueing {
		p.table = cmp.Or(p.table, d.table)
		d.deliver(p, "")
	}
	return nil
}

// missing says what the record lacks to be used, or nil.
func (d *Decoder) missing() error {
	rs := &d.rs
	switch {
	case !rs.haveName:
		return fmt.Errorf("%w: eventName", ErrMissingField)
	case !rs.haveDynamo:
		return fmt.Errorf("%w: dynamodb", ErrMissingField)
	case !rs.haveKeys:
		return fmt.Errorf("%w: dynamodb.Keys", ErrMissingField)
	case rs.nkeys == 0:
		return fmt.Errorf("%w: dynamodb.Keys is empty", ErrKey)
	case rs.nkeys > 2:
		return fmt.Errorf("%w: dynamodb.Keys has %d attributes, a key has at most 2", ErrKey, rs.nkeys)
	case max(rs.newSize, rs.oldSize, rs.keysSize) > math.MaxInt32: // DynamoDB's limit is 400 KB
		return fmt.Errorf("%w: an item of %d bytes", ErrAttributeValue, max(rs.newSize, rs.oldSize, rs.keysSize))
	}
	return nil
}

// keyRoles tells which of the record's key attributes is the partition
// key and which the sort key (-1: none). A configured partition key that
// is not there makes the record malformed; without one, two attributes
// are an *AmbiguousKeyError.
func (d *Decoder) keyRoles() (pk, sk int, err error) {
	rs := &d.rs
	switch {
	case d.pk != "":
		pk = -1
		for k := 0; k < rs.nkeys; k++ {
			if string(d.bytesOf(rs.keys[k].name)) == d.pk {
				pk = k
			}
		}
		if pk < 0 {
			e := &MissingKeyError{PartitionKey: d.pk, Keys: make([]string, min(rs.nkeys, len(rs.keys)))}
			for k := range e.Keys {
				e.Keys[k] = string(d.bytesOf(rs.keys[k].name))
			}
			rs.err = e
			return 0, -1, nil
		}
		if rs.nkeys == 2 {
			return pk, 1 - pk, nil
		}
		return pk, -1, nil
	case rs.nkeys == 2:
		return 0, -1, &AmbiguousKeyError{Table: rs.table, Attributes: [2]string{
			string(d.bytesOf(rs.keys[0].name)), string(d.bytesOf(rs.keys[1].name))}}
	}
	return 0, -1, nil
}

// pending is a checked record, held in offsets rather than slices so that
// the queue never pins a payload once Decode has returned.
type pending struct {
	bad          *Malformed // non-nil: the record is malformed
	table, view  string
	pk, sk       keyRef
	eventID, seq span
	time         time.Time
	sizeBytes    int64
	keysSize     int32 // item sizes are at most 400 KB
	newSize      int32
	oldSize      int32
	firstWrite   int32 // with indexes, its first index write in d.writes
	writes       int32 // and how many it has
	eventName    EventName
	ttl          bool
}

// keyRef is a key value in a pending record; typ is 0 when absent.
type keyRef struct {
	value span
	typ   ddb.KeyType
}

// fill makes p the current record, with key attributes pk and sk (-1:
// none), charged to the indexes. It writes p in place, a field at a time:
// a pending record is too large to build and copy.
func (d *Decoder) fill(p *pending, pk, sk int) {
	rs := &d.rs
	p.bad = nil
	p.table, p.view = rs.table, rs.viewType
	p.eventName, p.ttl = rs.eventName, rs.ttlDelete()
	p.pk, p.sk = d.keyAt(pk), d.keyAt(sk)
	p.eventID, p.seq = d.copyQueued(rs.eventID), d.copyQueued(rs.seq)
	p.time = rs.time
	p.keysSize, p.newSize, p.oldSize = int32(rs.keysSize), int32(rs.newSize), int32(rs.oldSize)
	p.sizeBytes = rs.sizeBytes
	p.firstWrite, p.writes = 0, 0
	if d.plan != nil {
		p.firstWrite, p.writes = d.chargeIndexes()
	}
}

// keyAt returns key attribute k of the current record; k < 0 is none.
func (d *Decoder) keyAt(k int) keyRef {
	if k < 0 {
		return keyRef{}
	}
	return keyRef{d.copyQueued(d.rs.keys[k].value), d.rs.keys[k].typ}
}

// copyQueued copies into scratch the bytes a queued record's consumer
// reads (keys, eventID, SequenceNumber), while they are still in cache.
// Delivered once the event closes, they are then read from one small run
// of memory rather than from one cache line each, scattered over a payload
// long since evicted: in the benchmark pipeline that saves 9 % of its time.
func (d *Decoder) copyQueued(v span) span {
	if !d.queueing || !v.payload {
		return v
	}
	start := len(d.scratch)
	d.scratch = append(d.scratch, d.scan.Bytes()[v.start:v.end]...)
	return span{start, len(d.scratch), false}
}

// queueBlock is how many pending records a block of the queue holds: the
// queue grows by blocks, so it never copies and never makes garbage.
const queueBlock = 1024

// nextPending returns where the next checked record goes: the next slot of
// the queue of the event being decoded, or, outside an event, the one
// record delivered at once.
func (d *Decoder) nextPending() *pending {
	if !d.queueing {
		return &d.single
	}
	b := d.queued / queueBlock
	if b == len(d.queue) {
		d.queue = append(d.queue, make([]pending, queueBlock))
	}
	d.queued++
	return &d.queue[b][(d.queued-1)%queueBlock]
}

// deliver hands a checked record to the visitor as a Record.
func (d *Decoder) deliver(p *pending, shard string) {
	if d.v.Record == nil || d.vErr != nil {
		return
	}
	r := &d.rec
	r.Table = p.table
	r.Shard = shard
	r.EventName = p.eventName
	r.EventID = d.bytesOf(p.eventID)
	r.SequenceNumber = d.bytesOf(p.seq)
	r.Time = p.time
	r.StreamViewType = p.view
	r.PartitionKey = ddb.Key{Type: p.pk.typ, Value: d.bytesOf(p.pk.value)}
	r.SortKey = ddb.Key{Type: p.sk.typ}
	if p.sk.typ != 0 {
		r.SortKey.Value = d.bytesOf(p.sk.value)
	}
	r.KeysSize = int(p.keysSize)
	r.NewImageSize = int(p.newSize)
	r.OldImageSize = int(p.oldSize)
	r.SizeBytes = p.sizeBytes
	r.TTLDelete = p.ttl
	r.WCU, r.WCUExact = ddb.ItemWriteUnits(p.eventName.kind(p.ttl), r.NewImageSize, r.OldImageSize, r.KeysSize)
	r.Indexes = r.Indexes[:0]
	if d.plan != nil {
		d.deliverIndexes(r, p.firstWrite, p.writes)
	}
	d.vErr = d.v.Record(r)
}
