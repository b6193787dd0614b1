package record

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
	d.data = payload
	defer func() { d.data = nil }()
	i := skipWS(payload, 0)
	switch d.peek(i) {
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
	i = skipWS(d.data, i+1)
	if d.peek(i) == '}' {
		return "", i + 1
	}
	for {
		if d.peek(i) != '"' {
			return "", -1
		}
		end, name := d.stringBytes(i)
		if end < 0 {
			return "", -1
		}
		v := d.expect(end, ':', "':'")
		if v < 0 {
			return "", -1
		}
		var t string
		switch {
		case string(name) == "eventSourceARN" && d.peek(v) == '"':
			var arn []byte
			if end, arn = d.stringBytes(v); end >= 0 {
				t = d.tableName(arn)
			}
		case event && string(name) == "Records" && d.peek(v) == '[':
			t, end = d.tableInArray(v, false)
		default:
			end = d.skipValue(v)
		}
		if t != "" || end < 0 {
			return t, end
		}
		var closed bool
		if i, closed = d.afterValue(end, '}'); closed || i < 0 {
			return "", i
		}
	}
}

// tableInArray reads the array at i (of events when event, else of
// records) for the first of its objects that names a table.
func (d *Decoder) tableInArray(i int, event bool) (string, int) {
	i = skipWS(d.data, i+1)
	if d.peek(i) == ']' {
		return "", i + 1
	}
	for {
		var t string
		var end int
		if d.peek(i) == '{' {
			t, end = d.tableIn(i, event)
		} else {
			end = d.skipValue(i)
		}
		if t != "" || end < 0 {
			return t, end
		}
		var closed bool
		if i, closed = d.afterValue(end, ']'); closed || i < 0 {
			return "", i
		}
	}
}
