package record

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Kinesis Data Streams for DynamoDB: a Lambda Kinesis record carries, in
// kinesis.data, base64 of one DynamoDB change record, which has a stream
// record's fields (eventID, eventName, userIdentity, dynamodb with Keys,
// the images, SizeBytes and ApproximateCreationDateTime) and tableName in
// place of an ARN, and no SequenceNumber or StreamViewType. The decoder
// knows such a record by its "kinesis" member, whatever the event around
// it, so one payload may mix both sources: the change record is decoded
// from the base64 by the same members, sized and charged by the same
// rules, and delivered as a stream record is. The Lambda's own fields
// around it (its eventID of shard and sequence number, its eventName
// "aws:kinesis:record", the Kinesis stream's eventSourceARN) are not the
// change's, and are skipped. See docs/kinesis.md.

// kinesis decodes the "kinesis" object at i of a Lambda Kinesis record:
// its data's change record is decoded, checked and delivered (or queued)
// here, and the rest of the enclosing record is skipped. A "kinesis"
// member inside a change record is not one, and is skipped.
func (d *Decoder) kinesis(i int) int {
	if d.inKinesis {
		return d.scan.SkipValue(i)
	}
	start := d.recStart
	d.resetRecord() // what the record said before "kinesis" is the Lambda's
	end, data, ok := d.kinesisData(i)
	if end < 0 {
		return end
	}
	var err error
	if ok {
		err = d.changeRecord(data, start)
	} else {
		d.rs.err = fmt.Errorf("%w: kinesis.data is missing or not a base64 string", ErrKinesisData)
		err = d.finishRecord(start)
	}
	d.rs.kinesis = true // the rest of the record is the Lambda's
	if err != nil {
		d.queuedErr = err
		return -1 // unwinds to records() or object(), which return err
	}
	return end
}

// kinesisData finds kinesis.data at i and decodes its base64 into d.kin:
// ok is false when it is absent or not a base64 string, end < 0 on a
// syntax error of the payload.
func (d *Decoder) kinesisData(i int) (end int, data []byte, ok bool) {
	if d.scan.Peek(i) != '{' {
		return d.scan.SkipValue(i), nil, false
	}
	i, closed := d.scan.Open(i, '}')
	for !closed {
		var key []byte
		if i, key = d.scan.Key(i); i < 0 {
			return i, nil, false
		}
		if string(key) == "data" && d.scan.Peek(i) == '"' {
			i, data, ok = d.base64String(i)
			if i < 0 {
				return i, nil, false
			}
		} else if i = d.scan.SkipValue(i); i < 0 {
			return i, nil, false
		}
		if i, closed = d.scan.Next(i, '}'); i < 0 {
			return i, nil, false
		}
	}
	return i, data, ok
}

// base64String decodes the base64 string at q into d.kin. Its end is found
// with one IndexByte and the base64 decoder checks every byte; it skips
// CR and LF, which a JSON string cannot hold raw, so a decoded length
// short of the whole string's (3 bytes a skipped 4) sends the string,
// as one with escapes (JSON may write "/" as "\/"), the scanner's way.
func (d *Decoder) base64String(q int) (end int, data []byte, ok bool) {
	s := d.scan.Bytes()[q+1:]
	if k := bytes.IndexByte(s, '"'); k >= 0 && bytes.IndexByte(s[:k], '\\') < 0 {
		if data, ok = d.decodeKinesis(s[:k]); ok && len(data) >= len(s[:k])/4*3-2 {
			return q + 1 + k + 1, data, true
		}
	}
	if end, s = d.scan.StringBytes(q); end < 0 {
		return end, nil, false
	}
	data, ok = d.decodeKinesis(s)
	return end, data, ok
}

// decodeKinesis decodes base64 s into d.kin.
func (d *Decoder) decodeKinesis(s []byte) ([]byte, bool) {
	n := base64.StdEncoding.DecodedLen(len(s))
	if cap(d.kin) < n {
		d.kin = make([]byte, n+n/4)
	}
	m, err := base64.StdEncoding.Decode(d.kin[:n], s)
	return d.kin[:m], err == nil
}

// changeRecord decodes, checks and delivers (or queues) the change record
// data of the record at offset, with the scanner on data for the time, so
// that what the record's spans locate is read from data before the
// scanner goes back. A record that is not one JSON object is malformed,
// never a syntax error of the payload around it.
func (d *Decoder) changeRecord(data []byte, offset int) error {
	outer := d.scan.Bytes()
	d.scan.Reset(data)
	d.inKinesis = true
	defer func() { d.scan.Reset(outer); d.inKinesis = false }()
	j := jsonscan.SkipWS(data, 0)
	end := -1
	if d.scan.Peek(j) == '{' {
		end = d.members(j, kindRecord)
	}
	switch {
	case end < 0:
		msg := "not a JSON object"
		if e := d.scan.Err(); e != nil {
			msg = fmt.Sprintf("%s at byte %d", e.Msg, e.Offset)
		}
		d.rs.err = fmt.Errorf("%w: kinesis.data: %s", ErrKinesisData, msg)
		// A syntax error leaves spans half read: name the record by nothing.
		d.rs.eventID, d.rs.seq = span{}, span{}
	case jsonscan.SkipWS(data, end) < len(data):
		d.rs.err = fmt.Errorf("%w: kinesis.data holds more than one JSON value", ErrKinesisData)
	}
	return d.finishRecord(offset)
}
