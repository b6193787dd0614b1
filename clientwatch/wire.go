package clientwatch

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unsafe"

	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// When the caller did not ask for ConsumedCapacity, the middleware asks for
// it, and must take it out again before the caller sees it. Taking it out
// of the decoded output would let the SDK decode it first: about nine
// allocations per call (a generic JSON map, then the typed structs). So it
// is taken out of the response body instead, by the Deserialize-step
// middleware (call.go), which sits just inside the SDK's
// OperationDeserializer: it reads the body into a pooled buffer, reads the
// top-level ConsumedCapacity member with the zero-allocation scanner of
// internal/jsonscan, and hands the SDK the body without it, which is byte
// for byte what DynamoDB sends a caller who did not ask. It sits outside
// the middlewares that check the body's CRC32 (X-Amz-Crc32, over the bytes
// on the wire) and decompress gzip, so the checksum is computed on the
// body as sent, and the scanner sees JSON. Bodies the scanner cannot read
// pass through as they came: the Initialize step then strips the decoded
// member instead.

// wireCap is one ConsumedCapacity object read off the wire: its table name
// (in callState.names), its total, the table's own units when DynamoDB
// broke them down (INDEXES), and its indexes' (callState.idx[idxStart:idxEnd]).
type wireCap struct {
	nameStart, nameEnd int
	total, table       float64
	hasTable           bool
	idxStart, idxEnd   int
}

// wireIndexCap is one index's units in a ConsumedCapacity object.
type wireIndexCap struct {
	nameStart, nameEnd int
	units              float64
	global             bool
}

// wireBody is the body the SDK reads: the buffered bytes, then the read
// error the original body ended with, if any; closing it closes the
// original (which is where the SDK's CRC32 check reports).
type wireBody struct {
	r    bytes.Reader
	err  error
	orig io.ReadCloser
}

func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.err != nil {
		err = b.err
	}
	return n, err
}

// WriteTo is Read for io.Copy, which the SDK drains the body with: a
// body that is an io.WriterTo is copied without a search for
// io.ReaderFrom on every call.
func (b *wireBody) WriteTo(w io.Writer) (int64, error) {
	n, err := b.r.WriteTo(w)
	if err == nil {
		err = b.err
	}
	return n, err
}

func (b *wireBody) Close() error { return b.orig.Close() }

// buffer reads resp's body into st.buf and gives the SDK the buffered
// copy in its place; ok is false when the body ended in an error (which
// the SDK still gets, after the bytes).
func (st *callState) buffer(resp *smithyhttp.Response) (ok bool) {
	buf := st.buf[:0]
	var rerr error
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := resp.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	st.buf = buf
	st.body.r.Reset(buf)
	st.body.err, st.body.orig = rerr, resp.Body
	resp.Body = &st.body
	st.wrapped = append(st.wrapped, resp)
	return rerr == nil
}

// takeCapacity takes ConsumedCapacity out of a 200 response's body. A
// panic in reading it leaves the body whole (the Initialize step strips
// the decoded member instead) and counts as an internal error.
func (st *callState) takeCapacity(resp *smithyhttp.Response) {
	if !st.buffer(resp) {
		return
	}
	defer st.recoverWire()
	if start, end, ok := st.read(st.buf); ok {
		st.buf = append(st.buf[:start], st.buf[end:]...)
		st.body.r.Reset(st.buf)
		st.ok = true
		if resp.ContentLength >= 0 {
			resp.ContentLength = int64(len(st.buf))
		}
	}
}

// recoverWire turns a panic in reading a body into an internal error:
// the body handed to the SDK is the one buffered, untouched.
func (st *callState) recoverWire() {
	if recover() != nil {
		st.panics++
		st.ok = false
		st.body.r.Reset(st.buf)
	}
}

var (
	errSkip = errors.New("clientwatch: not a capacity object")
	errStop = errors.New("clientwatch: the member is read") // the rest is the SDK's to read

	capacityName = []byte(`"ConsumedCapacity"`)
	// capacityName's tail, and what every escaped spelling of it holds
	// (no letter has a short escape): a body with neither before a
	// member has no other member of that name before it.
	capacityTail  = []byte(`ConsumedCapacity"`)
	escapedLetter = []byte(`\u00`)
)

// read finds the top-level ConsumedCapacity member of body, reads it into
// st.caps, and returns the span to cut out of the body (the member and one
// comma beside it). ok is false when body is not a JSON object, has no
// such member, or holds one the scanner cannot read: then nothing is cut
// (what lies before a last member is searched, not checked: a body the
// SDK refuses either way may be cut). It tokenizes no more than the
// member: when it comes last, as DynamoDB Local sends it, it is found from
// the end (findLast); when first, the scan stops at the next member's
// name. A Query page's items are the SDK's to read, not twice.
func (st *callState) read(body []byte) (start, end int, ok bool) {
	st.caps, st.idx, st.names = st.caps[:0], st.idx[:0], st.names[:0]
	if start, end, vs, ve, found := st.findLast(body); found {
		if st.readValue(body[vs:ve]) {
			return start, end, true
		}
		st.caps, st.idx, st.names = st.caps[:0], st.idx[:0], st.names[:0]
	}
	start, end, vs, ve, found := st.find(body)
	if !found || !st.readValue(body[vs:ve]) {
		return 0, 0, false
	}
	return start, end, true
}

// readValue reads the member's value, which it validates whole: one
// object (single-table calls) or an array of them.
func (st *callState) readValue(v []byte) bool {
	switch v[0] {
	case '{':
		return st.readCapacity(v)
	case '[':
		return st.sc.Elements(v, func(s, e int) error {
			if !st.readCapacity(v[s:e]) {
				return errSkip
			}
			return nil
		}) == nil
	}
	return false
}

// findLast is find for a body whose last member is ConsumedCapacity, as
// DynamoDB Local sends it after a GetItem's item or a Query's whole page:
// it finds the member from the end, reading only the member itself and
// searching (not tokenizing) what comes before it. found is false when
// it cannot tell, and find must scan. The value is the bytes up to the
// body's last '}': read validates them whole (readValue), and scans from
// the start when they are not one value.
//
// Why a name found this way is the top-level member: in valid JSON
// `"ConsumedCapacity"` followed by ':' is a key, and the only object that
// closes with a single '}' right before the end of the body is the top
// level. Conversely, the body with the member cut out (up to the end of
// the value before the comma) is valid JSON only if the body was; an
// invalid body the SDK refuses either way. With neither the name nor an
// escape in the bytes before it, no member of that name comes first.
func (st *callState) findLast(body []byte) (start, end, vs, ve int, found bool) {
	j, ve := lastCapacityName(body)
	if j <= 0 {
		return 0, 0, 0, 0, false
	}
	k := lastNonWS(body, j-1)
	if k < 0 || body[k] != ',' {
		return 0, 0, 0, 0, false
	}
	if k = lastNonWS(body, k-1); k < 0 || !endsValue(body[k]) {
		return 0, 0, 0, 0, false
	}
	sc := &st.sc
	sc.Reset(body)
	if vs = sc.Expect(j+len(capacityName), ':', "':'"); vs < 0 || vs >= ve {
		return 0, 0, 0, 0, false
	}
	prefix := body[:j]
	if bytes.Contains(prefix, capacityTail) || bytes.IndexByte(prefix, '\\') >= 0 && bytes.Contains(prefix, escapedLetter) {
		return 0, 0, 0, 0, false
	}
	return k + 1, ve, vs, ve, true // `,"ConsumedCapacity":…` and the whitespace around its comma
}

// lastSearch bounds how far from the end lastCapacityName looks: past
// any ConsumedCapacity a response carries (a table's and its indexes'),
// short of making a large body whose last member is something else pay
// much for the search before it is scanned from the start.
const lastSearch = 1 << 10

// lastCapacityName returns the position of the last `"ConsumedCapacity"`
// within lastSearch bytes of the end of body, or -1, and the end of the
// last member's value: the last byte before the body's own closing '}',
// which for this member is '}' or ']'; any other body is not searched at
// all. It hops from quote to quote: bytes.LastIndex hashes every byte it
// passes, several times the cost.
func lastCapacityName(b []byte) (at, valueEnd int) {
	e := lastNonWS(b, len(b)-1)
	if e < 1 || b[e] != '}' {
		return -1, 0
	}
	k := lastNonWS(b, e-1)
	if k < 0 || b[k] != '}' && b[k] != ']' {
		return -1, 0
	}
	n := len(capacityName)
	for i, stop := k, max(0, len(b)-lastSearch); ; {
		q := bytes.LastIndexByte(b[stop:i], '"')
		if q < 0 {
			return -1, 0
		}
		q += stop // the name's closing quote?
		if q-n+1 >= stop && b[q-1] == 'y' && string(b[q-n+1:q+1]) == string(capacityName) {
			return q - n + 1, k + 1
		}
		i = q
	}
}

// lastNonWS returns the position of the last byte at or before i that is
// not JSON whitespace, or -1.
func lastNonWS(b []byte, i int) int {
	for i >= 0 && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i--
	}
	return i
}

// endsValue reports whether c can be the last byte of a JSON value.
func endsValue(c byte) bool {
	return c == '"' || c == '}' || c == ']' || c == 'e' || c == 'l' || jsonscan.IsDigit(c)
}

// find finds the top-level ConsumedCapacity member by scanning the body
// from its start: the span to cut and the span of its value.
func (st *callState) find(body []byte) (start, end, vs, ve int, found bool) {
	prevEnd := -1
	err := st.sc.Members(body, func(name []byte, key, s, e int) error {
		if string(name) != "ConsumedCapacity" {
			prevEnd = e
			return nil
		}
		found, vs, ve = true, s, e
		if prevEnd >= 0 {
			start, end = prevEnd, e // `,"ConsumedCapacity":…`
			return errStop
		}
		// The member is first, as DynamoDB sends it: cut it and the comma
		// after it, up to the next member's name, found without reading
		// that member's value.
		next, closed := st.sc.Next(e, '}')
		switch {
		case next < 0:
			return errSkip
		case closed:
			start, end = key, e // `{"ConsumedCapacity":…}` leaves `{}`
		case bytes.HasPrefix(body[next:], capacityName):
			return errSkip // twice: leave such a body to the SDK
		default:
			start, end = key, next
		}
		return errStop
	})
	if err != nil && err != errStop || !found {
		return 0, 0, 0, 0, false
	}
	return start, end, vs, ve, true
}

// readCapacity reads one ConsumedCapacity object: TableName, the total
// CapacityUnits, the table's own (Table) and each index's.
func (st *callState) readCapacity(obj []byte) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	c := wireCap{nameStart: len(st.names), nameEnd: len(st.names), idxStart: len(st.idx)}
	err := st.sc1.Members(obj, func(name []byte, _, s, e int) error {
		v := obj[s:e]
		switch string(name) {
		case "TableName":
			var ok bool
			if c.nameStart, c.nameEnd, ok = st.addName(v); !ok {
				return errSkip
			}
		case "CapacityUnits":
			f, ok := number(v)
			if !ok {
				return errSkip
			}
			c.total = f
		case "Table":
			units, present, ok := unitsOf(&st.sc2, v)
			if !ok {
				return errSkip
			}
			c.table, c.hasTable = units, present
		case "GlobalSecondaryIndexes", "LocalSecondaryIndexes":
			if !st.readIndexes(v, name[0] == 'G') {
				return errSkip
			}
		}
		return nil
	})
	if err != nil {
		return false
	}
	c.idxEnd = len(st.idx)
	st.caps = append(st.caps, c)
	return true
}

// addName appends a JSON string without escapes (table and index names
// never need them) to st.names and returns its span.
func (st *callState) addName(v []byte) (start, end int, ok bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return 0, 0, false
	}
	start = len(st.names)
	st.names = append(st.names, v[1:len(v)-1]...)
	return start, len(st.names), true
}

// readIndexes reads {"name":{"CapacityUnits":…},…} into st.idx.
func (st *callState) readIndexes(obj []byte, global bool) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	return st.sc2.Members(obj, func(name []byte, key, s, e int) error {
		units, _, ok := unitsOf(&st.sc3, obj[s:e])
		if !ok || bytes.IndexByte(name, '\\') >= 0 {
			return errSkip
		}
		start := len(st.names)
		st.names = append(st.names, name...)
		st.idx = append(st.idx, wireIndexCap{nameStart: start, nameEnd: len(st.names), units: units, global: global})
		return nil
	}) == nil
}

// unitsOf reads the CapacityUnits of a Capacity object
// ({"CapacityUnits":…,"ReadCapacityUnits":…,…}), if it has one.
func unitsOf(sc *jsonscan.Scanner, obj []byte) (units float64, present, ok bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return 0, false, false
	}
	err := sc.Members(obj, func(name []byte, _, s, e int) error {
		if string(name) == "CapacityUnits" {
			var valid bool
			if units, valid = number(obj[s:e]); !valid {
				return errSkip
			}
			present = true
		}
		return nil
	})
	return units, present, err == nil
}

// number parses a JSON number (the scanner has validated it) without
// copying it into a string. Capacity units come as a few decimal digits
// ("0.5", "12.0"): those it reads itself, exactly as ParseFloat does (an
// integer below 2^53 divided by a power of ten up to 10^15, both exact
// in a float64, is correctly rounded), in a fraction of its cost.
func number(b []byte) (float64, bool) {
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return 0, false
	}
	if f, ok := shortDecimal(b); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return f, err == nil
}

// shortDecimal reads digits, an optional '.' and digits, 15 digits in all
// at most; ok is false for anything else (a sign, an exponent, more
// digits), which ParseFloat reads.
func shortDecimal(b []byte) (f float64, ok bool) {
	if len(b) > 16 {
		return 0, false
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	return float64(mant) / pow10[frac], true
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
