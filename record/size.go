package record

import (
	"encoding/base64"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Item sizes of DynamoDB JSON, by ddb's item-size rule, with the general
// scanner: any whitespace, escapes, and every error named. Values are
// measured while they are scanned; nothing is built. (fastsize.go sizes
// the compact JSON Lambda writes, nearly every image, in one tight loop.)

// Type tags of DynamoDB JSON attribute values.
const (
	tagUnknown = iota
	tagS
	tagN
	tagB
	tagBOOL
	tagNULL
	tagSS
	tagNS
	tagBS
	tagL
	tagM
)

// tagNames spells each type tag.
var tagNames = [tagM + 1]string{tagS: "S", tagN: "N", tagB: "B", tagBOOL: "BOOL", tagNULL: "NULL",
	tagSS: "SS", tagNS: "NS", tagBS: "BS", tagL: "L", tagM: "M"}

// oneLetterTags and setTags map the letter of a compact tag (S, N, B, M,
// L; SS, NS, BS) to the tag; tagUnknown for any other byte.
var oneLetterTags, setTags [256]uint8

var (
	numChar [256]bool // bytes that may appear in an N value
	b64Char [256]bool // the standard base64 alphabet, without padding
)

func init() {
	for tag, name := range tagNames {
		switch len(name) {
		case 1:
			oneLetterTags[name[0]] = uint8(tag)
		case 2:
			setTags[name[0]] = uint8(tag)
		}
	}
	for _, c := range []byte("0123456789+-.eE") {
		numChar[c] = true
	}
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		b64Char[c] = true
	}
}

// ItemSize returns the size in bytes of one item in DynamoDB JSON, such
// as a stream record's NewImage: {"id":{"S":"a"},"n":{"N":"1.5"}} is
// 2+1 + 1+3 = 7. It is the rule Decode applies to every image.
func ItemSize(itemJSON []byte) (int, error) {
	d := Decoder{where: "item"}
	d.scan.Reset(itemJSON)
	i := jsonscan.SkipWS(itemJSON, 0)
	object := d.scan.Peek(i) == '{'
	var size int
	if object {
		i, size = d.item(i)
	} else {
		i = d.scan.SkipValue(i)
	}
	if i >= 0 {
		if i = jsonscan.SkipWS(itemJSON, i); i < len(itemJSON) {
			d.scan.Fail(i, "data after the item")
		}
	}
	switch {
	case d.scan.Err() != nil:
		return 0, d.syntaxError()
	case !object:
		return 0, fmt.Errorf("%w: an item is a JSON object", ErrAttributeValue)
	case d.rs.err != nil:
		return 0, d.rs.err
	}
	return size, nil
}

// item sizes the item object at i: fast if it can, else in full.
func (d *Decoder) item(i int) (int, int) {
	if end, size, ok := d.sizeFast(i, nil, 0); ok {
		return end, size
	}
	end, size, _ := d.sizeMembers(i, 0)
	return end, size
}

// sizeMembers measures the object of attributes at i (an item, or the
// value of an M): the sum of name lengths and value sizes, and the count.
func (d *Decoder) sizeMembers(i, depth int) (end, size, count int) {
	return d.sizeAttrs(i, depth, nil, false)
}

// sizeAttrs is sizeMembers that also lists, when attrs is not nil, the
// item's top-level attributes in attrs: all of them, or only those the
// indexes need (see attrRef).
func (d *Decoder) sizeAttrs(i, depth int, attrs *[]attrRef, all bool) (end, size, count int) {
	b := d.scan.Bytes()
	i, closed := d.scan.Open(i, '}')
	for !closed {
		if d.scan.Peek(i) != '"' {
			return d.scan.Unexpected(i, "a string key"), 0, 0
		}
		a := attrRef{nameStart: i, id: -1}
		var n, v int
		e := jsonscan.PlainString(b, i)
		if e >= 0 {
			i, n = e, e-i-2
		} else if i, n, _ = d.scan.ScanString(i); i < 0 {
			return i, 0, 0
		}
		if attrs != nil && !all {
			a.id = d.attrID(a.nameStart, i, e >= 0)
		}
		a.nameEnd = i
		if i = d.scan.Expect(i, ':', "':'"); i < 0 {
			return i, 0, 0
		}
		a.valStart = i
		if i, v = d.sizeAV(i, depth); i < 0 {
			return i, 0, 0
		}
		if attrs != nil && (all || a.id >= 0) {
			a.valEnd, a.size = i, n+v
			if a.id >= 0 {
				a.typ = d.valueKeyType(a.valStart)
			}
			*attrs = append(*attrs, a)
		}
		size += n + v
		count++
		if i, closed = d.scan.Next(i, '}'); i < 0 {
			return i, 0, 0
		}
	}
	return i, size, count
}

// sizeAV measures the attribute value object {"TAG": value} at i.
func (d *Decoder) sizeAV(i, depth int) (int, int) {
	if d.scan.Peek(i) != '{' {
		return d.wrongType(i)
	}
	i, empty := d.scan.Open(i, '}')
	if empty {
		d.bad(ErrAttributeValue, i-1) // no type tag
		return i, 0
	}
	if d.scan.Peek(i) != '"' {
		return d.scan.Unexpected(i, "a string key"), 0
	}
	i, tag := d.readTag(i)
	if i < 0 {
		return i, 0
	}
	if i = d.scan.Expect(i, ':', "':'"); i < 0 {
		return i, 0
	}
	i, size := d.sizeTagged(i, tag, depth)
	if i < 0 {
		return i, 0
	}
	return d.closeAV(i), size
}

// readTag reads the type tag, the key of an attribute-value object, at q.
func (d *Decoder) readTag(q int) (int, int) {
	if b := d.scan.Bytes(); q+3 < len(b) { // compact, as nearly always
		if tag := oneLetterTags[b[q+1]]; tag != tagUnknown && b[q+2] == '"' {
			return q + 3, int(tag)
		}
		if tag := setTags[b[q+1]]; tag != tagUnknown && b[q+2] == 'S' && b[q+3] == '"' {
			return q + 4, int(tag)
		}
	}
	end, s := d.scan.StringBytes(q)
	for tag, name := range tagNames {
		if name != "" && string(s) == name {
			return end, tag
		}
	}
	return end, tagUnknown
}

// closeAV ends an attribute-value object after its one value.
func (d *Decoder) closeAV(i int) int {
	if i = jsonscan.SkipWS(d.scan.Bytes(), i); d.scan.Peek(i) == ',' {
		d.bad(ErrAttributeValue, i) // two type tags
		return d.scan.SkipMembers(i)
	}
	i, _ = d.scan.Next(i, '}') // its '}', or a syntax error
	return i
}

// sizeTagged measures the value at i of an attribute value tagged tag.
func (d *Decoder) sizeTagged(i, tag, depth int) (int, int) {
	switch tag {
	case tagS:
		if d.scan.Peek(i) != '"' {
			return d.wrongType(i)
		}
		if end := jsonscan.PlainString(d.scan.Bytes(), i); end >= 0 {
			return end, end - i - 2
		}
		end, n, _ := d.scan.ScanString(i)
		return end, n
	case tagN:
		return d.sizeNumber(i)
	case tagB:
		return d.sizeBinary(i)
	case tagBOOL, tagNULL:
		switch d.scan.Peek(i) {
		case 't':
			return d.scan.Literal(i, "true"), ddb.BoolSize // NULL's value is true too
		case 'f':
			return d.scan.Literal(i, "false"), ddb.BoolSize
		}
		return d.wrongType(i)
	case tagSS, tagNS, tagBS:
		return d.sizeSet(i, tag)
	case tagL, tagM:
		if depth >= ddb.MaxNesting {
			d.bad(ErrTooDeep, i)
			return d.scan.SkipValue(i), 0
		}
		if tag == tagL {
			return d.sizeList(i, depth+1)
		}
		if d.scan.Peek(i) != '{' {
			return d.wrongType(i)
		}
		end, size, count := d.sizeMembers(i, depth+1)
		return end, ddb.ContainerSize(count, size)
	}
	d.bad(ErrAttributeValue, i) // unknown tag
	return d.scan.SkipValue(i), 0
}

// sizeSet measures an SS, NS or BS value at i.
func (d *Decoder) sizeSet(i, tag int) (int, int) {
	if d.scan.Peek(i) != '[' {
		return d.wrongType(i)
	}
	total := 0
	i, closed := d.scan.Open(i, ']')
	for !closed {
		var n int
		switch tag {
		case tagSS:
			if d.scan.Peek(i) != '"' {
				i, n = d.wrongType(i)
			} else {
				i, n, _ = d.scan.ScanString(i)
			}
		case tagNS:
			i, n = d.sizeNumber(i)
		default:
			i, n = d.sizeBinary(i)
		}
		if i < 0 {
			return i, 0
		}
		total += n
		if i, closed = d.scan.Next(i, ']'); i < 0 {
			return i, 0
		}
	}
	return i, total
}

// sizeNumber measures the N value (a JSON string) at i.
func (d *Decoder) sizeNumber(i int) (int, int) {
	if d.scan.Peek(i) != '"' {
		return d.wrongType(i)
	}
	if end, n := fastNumber(d.scan.Bytes(), i); end >= 0 {
		return end, n
	}
	// Escapes, junk, or a number DynamoDB cannot store: the error is named.
	end, s := d.scan.StringBytes(i)
	if end < 0 {
		return end, 0
	}
	num, err := ddb.ParseNumber(s)
	if err != nil {
		d.bad(err, i)
		return end, 0
	}
	return end, num.Size()
}

// sizeBinary measures the B value (a base64 JSON string) at i: its decoded
// length, from the length and the padding.
func (d *Decoder) sizeBinary(i int) (int, int) {
	if d.scan.Peek(i) != '"' {
		return d.wrongType(i)
	}
	if end, n, valid := plainBase64(d.scan.Bytes(), i); end >= 0 {
		if !valid {
			d.bad(ErrBase64, i)
		}
		return end, n
	}
	end, s := d.scan.StringBytes(i)
	if end < 0 {
		return end, 0
	}
	dec, ok := d.decodeBase64(s)
	if !ok {
		d.bad(ErrBase64, i)
		return end, 0
	}
	return end, len(dec)
}

// plainBase64 sizes the B string at q when it holds only the base64
// alphabet and padding: the position after it, its decoded length, and
// whether the padding is right (if not, the length is 0). end < 0 when the
// string holds anything else (escapes or junk).
func plainBase64(b []byte, q int) (end, n int, valid bool) {
	j := q + 1
	for j < len(b) && b64Char[b[j]] {
		j++
	}
	n = j - q - 1
	pad := 0
	for pad < 3 && byteAt(b, j) == '=' {
		j++
		pad++
	}
	if byteAt(b, j) != '"' {
		return -1, 0, false
	}
	if (n+pad)%4 != 0 || pad > 2 {
		return j + 1, 0, false
	}
	return j + 1, (n+pad)/4*3 - pad, true
}

// decodeBase64 decodes s as encoding/base64.StdEncoding does (as
// aws-lambda-go does), into scratch valid until the next call.
func (d *Decoder) decodeBase64(s []byte) ([]byte, bool) {
	n := base64.StdEncoding.DecodedLen(len(s))
	if cap(d.b64) < n {
		d.b64 = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(d.b64[:n], s)
	return d.b64[:n], err == nil
}

// sizeList measures an L value at i (see ddb.ContainerSize).
func (d *Decoder) sizeList(i, depth int) (int, int) {
	if d.scan.Peek(i) != '[' {
		return d.wrongType(i)
	}
	total := ddb.ContainerOverhead
	i, closed := d.scan.Open(i, ']')
	for !closed {
		var n int
		if i, n = d.sizeAV(i, depth); i < 0 {
			return i, 0
		}
		total += ddb.ElementOverhead + n
		if i, closed = d.scan.Next(i, ']'); i < 0 {
			return i, 0
		}
	}
	return i, total
}

// wrongType flags a value whose JSON type does not fit its tag and skips it.
func (d *Decoder) wrongType(i int) (int, int) {
	d.bad(ErrAttributeValue, i)
	return d.scan.SkipValue(i), 0
}
