package record

import "github.com/hotkeys-dev/hotkeys/internal/jsonscan"

// FirstTable returns the table that payload's first eventSourceARN names:
// the top-level one of an event, or else that of the first record that
// has one; "" when none does, or when the payload is not JSON as far as
// it reads (Decode then says what is wrong).
//
// It reads no further than that ARN and decodes nothing on the way: every
// other value is skipped, so it costs a few microseconds where decoding
// the batch costs milliseconds. The Lambda asks it which table a batch is
// of, so that the table's indexes are set before the batch is decoded.
func (d *Decoder) FirstTable(payload []byte) string {
	d.scan.Reset(payload)
	defer d.scan.Reset(nil)
	i := jsonscan.SkipWS(payload, bomLen(payload))
	switch d.scan.Peek(i) {
	case '{':
		t, _ := d.tableIn(i, true)
		return t
	case '[':
		t, _ := d.tableInArray(i, true)
		return t
	}
	return ""
}

// tableIn reads the object at i for a table: its own eventSourceARN, or,
// when it may be an event, that of the first of its Records that has one.
// It returns the table, or "" and the position just past the object
// (negative on a syntax error).
func (d *Decoder) tableIn(i int, event bool) (string, int) {
	i, closed := d.scan.Open(i, '}')
	for !closed {
		v, name := d.scan.Key(i)
		if v < 0 {
			return "", v
		}
		var t string
		var end int
		switch {
		case string(name) == "eventSourceARN" && d.scan.Peek(v) == '"':
			var arn []byte
			if end, arn = d.scan.StringBytes(v); end >= 0 {
				t = d.tableName(arn)
			}
		case event && string(name) == "Records" && d.scan.Peek(v) == '[':
			t, end = d.tableInArray(v, false)
		default:
			end = d.scan.SkipValue(v)
		}
		if t != "" || end < 0 {
			return t, end
		}
		if i, closed = d.scan.Next(end, '}'); i < 0 {
			return "", i
		}
	}
	return "", i
}

// tableInArray reads the array at i (of events when event, else of
// records) for the first of its objects that names a table.
func (d *Decoder) tableInArray(i int, event bool) (string, int) {
	i, closed := d.scan.Open(i, ']')
	for !closed {
		var t string
		var end int
		if d.scan.Peek(i) == '{' {
			t, end = d.tableIn(i, event)
		} else {
			end = d.scan.SkipValue(i)
		}
		if t != "" || end < 0 {
			return t, end
		}
		if i, closed = d.scan.Next(end, ']'); i < 0 {
			return "", i
		}
	}
	return "", i
}
