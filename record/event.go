package record

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"time"
)

// The envelope of a Lambda event: the fields a DynamoDBTimeWindowEvent adds
// to a DynamoDBEvent. They are decoded with encoding/json where they are
// small and once per event (window, state); the records are not.

// deliverEvent hands the event and then its queued records to the visitor.
// Records take the event's shard, and its table where they have none of
// their own: the event's eventSourceARN, or the stream ARN a GetRecords
// output's NextShardIterator starts with, or else Config.Table.
func (d *Decoder) deliverEvent() {
	table := d.table
	switch {
	case len(d.topARN) > 0:
		d.ev.EventSourceARN = string(d.topARN)
		table = d.tableName(d.topARN)
	case len(d.iterARN) > 0:
		table = cmp.Or(d.tableName(d.iterARN), table)
	}
	if d.vErr == nil && d.v.Event != nil {
		d.vErr = d.v.Event(&d.ev)
	}
	for k := range d.envErrs {
		d.malformed(&d.envErrs[k])
	}
	for k := range d.queued {
		if d.vErr != nil {
			break
		}
		p := &d.queue[k/queueBlock][k%queueBlock]
		if p.bad != nil {
			if p.bad.Table == "" {
				p.bad.Table = table
			}
			d.malformed(p.bad)
			p.bad = nil
			continue
		}
		if p.table == "" {
			p.table = table
		}
		d.deliver(p, d.ev.ShardID)
	}
	d.queued = 0
}

// eventMember decodes the envelope fields of a top-level event object.
func (d *Decoder) eventMember(id, i int) (int, bool) {
	switch id {
	case fRecords:
		d.evSeen = true
		switch d.scan.Peek(i) {
		case '[':
			return d.records(i), true
		case 'n':
			return d.scan.Literal(i, "null"), true
		}
		return d.envelopeError(i, "Records is not an array"), true
	case fEventSourceARN: // of an event or of a record: both are kept
		if d.scan.Peek(i) != '"' {
			return d.recordMember(id, i), true
		}
		end, s := d.scan.StringBytes(i)
		d.topARN = append(d.topARN[:0], s...)
		d.rs.table = d.tableName(s)
		return end, true
	case fWindow:
		d.evSeen = true
		return d.window(i), true
	case fState:
		d.evSeen = true
		end := d.scan.SkipValue(i)
		if end >= 0 {
			var state map[string]string
			if err := json.Unmarshal(d.scan.Bytes()[i:end], &state); err != nil {
				d.addEnvelopeError(i, "state is not an object of strings")
			}
			d.ev.State = state
		}
		return end, true
	case fShardID:
		d.evSeen = true
		if d.scan.Peek(i) != '"' {
			return d.envelopeError(i, "shardId is not a string"), true
		}
		end, s := d.scan.StringBytes(i)
		d.ev.ShardID = string(s)
		return end, true
	case fIsFinalInvokeForWindow:
		d.evSeen = true
		return d.envelopeBool(i, "isFinalInvokeForWindow", &d.ev.IsFinalInvokeForWindow), true
	case fIsWindowTerminatedEarly:
		d.evSeen = true
		return d.envelopeBool(i, "isWindowTerminatedEarly", &d.ev.IsWindowTerminatedEarly), true
	case fNextShardIterator: // GetRecords output: "arn:aws:dynamodb:…:table/T/stream/L|1|…", or null
		d.evSeen = true
		return d.nextShardIterator(i), true
	}
	return 0, false
}

// nextShardIterator keeps the stream ARN that a GetRecords output's
// NextShardIterator begins with (before its first '|'), for the table name
// of records that carry no eventSourceARN; a null iterator is skipped.
func (d *Decoder) nextShardIterator(i int) int {
	if d.scan.Peek(i) != '"' {
		return d.scan.SkipValue(i)
	}
	end, s := d.scan.StringBytes(i)
	if k := bytes.IndexByte(s, '|'); k >= 0 {
		s = s[:k]
	}
	d.iterARN = append(d.iterARN[:0], s...)
	return end
}

// window decodes "window": {"start": RFC 3339, "end": RFC 3339}.
func (d *Decoder) window(i int) int {
	end := d.scan.SkipValue(i)
	b := d.scan.Bytes()
	if end < 0 || b[i] == 'n' {
		return end
	}
	var w struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
	}
	if b[i] != '{' || json.Unmarshal(b[i:end], &w) != nil {
		d.addEnvelopeError(i, "window is not {\"start\", \"end\"} in RFC 3339")
		return end
	}
	d.ev.WindowStart, d.ev.WindowEnd, d.ev.TimeWindow = w.Start, w.End, true
	return end
}

// envelopeBool decodes the boolean field name at i into *v; null is false.
func (d *Decoder) envelopeBool(i int, name string, v *bool) int {
	*v = d.scan.Peek(i) == 't'
	switch d.scan.Peek(i) {
	case 't':
		return d.scan.Literal(i, "true")
	case 'f':
		return d.scan.Literal(i, "false")
	case 'n':
		return d.scan.Literal(i, "null")
	}
	return d.envelopeError(i, name+" is not a boolean")
}

// envelopeError reports a bad envelope field at i and skips it.
func (d *Decoder) envelopeError(i int, what string) int {
	end := d.scan.SkipValue(i)
	if end >= 0 {
		d.addEnvelopeError(i, what)
	}
	return end
}

func (d *Decoder) addEnvelopeError(i int, what string) {
	d.envErrs = append(d.envErrs, Malformed{
		Offset: int64(i),
		Err:    fmt.Errorf("%w: %s (byte %d)", ErrEnvelope, what, i),
	})
}
