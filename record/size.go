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
	var size int
	switch d.scan.Peek(i) {
	case '{':
		if i, size = d.item(i); i >= 0 {
			if i = jsonscan.SkipWS(itemJSON, i); i < len(itemJSON) {
				d.scan.Fail(i, "data after the item")
			}
		}
	default:
		if i = d.scan.SkipValue(i); i >= 0 {
			if i = jsonscan.SkipWS(itemJSON, i); i < len(itemJSON) {
				d.scan.Fail(i, "data after the item")
			} else {
				return 0, fmt.Errorf("%w: an item is a JSON object", ErrAttributeValue)
			}
		}
	}
	if d.scan.Err() != nil {
		return 0, d.syntaxError()
	}
	if d.rs.err != nil {
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
	b := d.scan.Bytes()
	i = jsonscan.SkipWS(b, i+1)
	if d.scan.Peek(i) == '}' {
		return i + 1, 0, 0
	}
	for {
		if d.scan.Peek(i) != '"' {
			return d.scan.Unexpected(i, "a string key"), 0, 0
		}
		var n, v int
		if e := jsonscan.PlainString(b, i); e >= 0 {
			i, n = e, e-i-2
		} else if i, n, _ = d.scan.ScanString(i); i < 0 {
			return i, 0, 0
		}
		if i = d.scan.Expect(i, ':', "':'"); i < 0 {
			return i, 0, 0
		}
		if i, v = d.sizeAV(i, depth); i < 0 {
			return i, 0, 0
		}
		size += n + v
		count++
		var closed bool
		if i, closed = d.scan.Next(i, '}'); closed || i < 0 {
			return i, size, count
		}
	}
}

// sizeAV measures the attribute value object {"TAG": value} at i.
func (d *Decoder) sizeAV(i, depth int) (int, int) {
	if d.scan.Peek(i) != '{' {
		return d.wrongType(i)
	}
	b := d.scan.Bytes()
	i = jsonscan.SkipWS(b, i+1)
	switch d.scan.Peek(i) {
	case '"':
	case '}':
		d.bad(ErrAttributeValue, i)
		return i + 1, 0
	default:
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
	i = jsonscan.SkipWS(d.scan.Bytes(), i)
	switch d.scan.Peek(i) {
	case '}':
		return i + 1
	case ',':
		d.bad(ErrAttributeValue, i) // two type tags
		return d.scan.SkipMembers(i)
	}
	return d.scan.Unexpected(i, "',' or '}'")
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
	b := d.scan.Bytes()
	i = jsonscan.SkipWS(b, i+1)
	if d.scan.Peek(i) == ']' {
		return i + 1, 0
	}
	total := 0
	for closed := false; ; {
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
		if i, closed = d.scan.Next(i, ']'); closed || i < 0 {
			return i, total
		}
	}
}

// sizeNumber measures the N value (a JSON string) at i.
func (d *Decoder) sizeNumber(i int) (int, int) {
	if d.scan.Peek(i) != '"' {
		return d.wrongType(i)
	}
	b := d.scan.Bytes()
	j := i + 1
	for j < len(b) && numChar[b[j]] {
		j++
	}
	var num ddb.Decimal
	var err error
	end := j + 1
	if d.scan.Peek(j) == '"' {
		num, err = ddb.ParseNumber(b[i+1 : j])
	} else { // escapes or junk: take the slow road
		var s []byte
		if end, s = d.scan.StringBytes(i); end < 0 {
			return end, 0
		}
		num, err = ddb.ParseNumber(s)
	}
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
	b := d.scan.Bytes()
	j := i + 1
	for j < len(b) && b64Char[b[j]] {
		j++
	}
	n := j - i - 1
	pad := 0
	for pad < 3 && d.scan.Peek(j) == '=' {
		j++
		pad++
	}
	if d.scan.Peek(j) == '"' {
		if (n+pad)%4 != 0 || pad > 2 {
			d.bad(ErrBase64, i)
			return j + 1, 0
		}
		return j + 1, (n+pad)/4*3 - pad
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
	b := d.scan.Bytes()
	i = jsonscan.SkipWS(b, i+1)
	if d.scan.Peek(i) == ']' {
		return i + 1, ddb.ContainerOverhead
	}
	total := ddb.ContainerOverhead
	for closed := false; ; {
		var n int
		if i, n = d.sizeAV(i, depth); i < 0 {
			return i, 0
		}
		total += ddb.ElementOverhead + n
		if i, closed = d.scan.Next(i, ']'); closed || i < 0 {
			return i, total
		}
	}
}

// wrongType flags a value whose JSON type does not fit its tag and skips it.
func (d *Decoder) wrongType(i int) (int, int) {
	d.bad(ErrAttributeValue, i)
	return d.scan.SkipValue(i), 0
}
