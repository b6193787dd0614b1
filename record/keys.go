package record

import (
	"encoding/binary"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// dynamodb.Keys: the key attributes of a record, decoded into canonical
// form (see ddb.Key), and their size as an item.

// keyAttr is one attribute of dynamodb.Keys.
type keyAttr struct {
	name, value span
	typ         ddb.KeyType
}

// keys decodes dynamodb.Keys at i: the key values in canonical form, and
// the size of the keys as an item.
func (d *Decoder) keys(i int) int {
	d.rs.nkeys, d.rs.keysSize, d.rs.keyIDs = 0, 0, [2]int32{}
	b := d.scan.Bytes()
	i, closed := d.scan.Open(i, '}')
	for !closed {
		if d.scan.Peek(i) != '"' {
			return d.scan.Unexpected(i, "a string key")
		}
		end, name := d.stringSpan(i)
		if end < 0 {
			return end
		}
		ka := keyAttr{name: name}
		var size int
		if e, n, ok := d.compactKeyValue(end+1, &ka); ok && b[end] == ':' { // b[end] exists if ok
			i, size = e, n
		} else {
			if i = d.scan.Expect(end, ':', "':'"); i < 0 {
				return i
			}
			if i, size = d.keyValue(i, &ka); i < 0 {
				return i
			}
		}
		d.rs.keysSize += ka.name.end - ka.name.start + size
		if d.rs.nkeys < len(d.rs.keys) {
			d.rs.keys[d.rs.nkeys] = ka
			if d.plan != nil { // which index attribute, if any, this key is (see entrySize)
				// A table's key names are the same in every record: the last
				// ones are kept as words (keyName), so one compare finds them.
				nb, c := d.bytesOf(name), &d.keyNames[d.rs.nkeys&1]
				id := c.id
				if n := len(nb); n != c.n || n > 8 || cap(nb) < 8 ||
					binary.LittleEndian.Uint64(nb[:8])&wordMasks[n] != c.word {
					id = d.keyID(d.rs.nkeys, nb)
				}
				d.rs.keyIDs[d.rs.nkeys] = id
			}
		}
		d.rs.nkeys++
		if i, closed = d.scan.Next(i, '}'); i < 0 {
			return i
		}
	}
	return i
}

// compactKeyValue is keyValue for what Lambda writes nearly always: a
// compact {"S":"..."} with a plain string, or {"N":"..."} with a number
// already in canonical form (an integer without leading zeros), whose bytes
// are then the key as they stand. ok is false for anything else, and
// keyValue decides.
func (d *Decoder) compactKeyValue(i int, ka *keyAttr) (end, size int, ok bool) {
	b := d.scan.Bytes()
	if i+7 > len(b) || b[i] != '{' || b[i+1] != '"' || b[i+3] != '"' || b[i+4] != ':' || b[i+5] != '"' {
		return 0, 0, false
	}
	q := i + 5 // the value's quote
	switch b[i+2] {
	case 'S':
		e := jsonscan.ShortString(b, q)
		if e < 0 {
			e = jsonscan.PlainString(b, q)
		}
		if e < 0 || byteAt(b, e) != '}' {
			return 0, 0, false
		}
		ka.typ, ka.value = ddb.String, span{q + 1, e - 1, true}
		return e + 1, e - q - 2, true
	case 'N':
		j := q + 1
		if byteAt(b, j) == '-' {
			j++
		}
		if c := byteAt(b, j); c < '1' || c > '9' { // "0" and "-0" are left to keyValue
			return 0, 0, false
		}
		for j++; j < len(b) && b[j]-'0' <= 9; j++ {
		}
		if byteAt(b, j) != '"' || byteAt(b, j+1) != '}' {
			return 0, 0, false
		}
		end, size := ddb.PlainNumberSize(b, q+1)
		if end != j {
			return 0, 0, false // beyond DynamoDB's limits: keyValue names the error
		}
		ka.typ, ka.value = ddb.Number, span{q + 1, j, true}
		return j + 2, size, true
	}
	return 0, 0, false
}

// keyValue decodes the attribute value of a key at i into ka, in canonical
// form, and returns its size.
func (d *Decoder) keyValue(i int, ka *keyAttr) (int, int) {
	start := i
	if d.scan.Peek(i) != '{' {
		return d.sizeAV(i, 0)
	}
	j := jsonscan.SkipWS(d.scan.Bytes(), i+1)
	if d.scan.Peek(j) != '"' {
		return d.sizeAV(start, 0)
	}
	j, tag := d.readTag(j)
	if j < 0 {
		return j, 0
	}
	if tag != tagS && tag != tagN && tag != tagB {
		d.bad(ErrKey, start)
		return d.sizeAV(start, 0)
	}
	if i = d.scan.Expect(j, ':', "':'"); i < 0 {
		return i, 0
	}
	if d.scan.Peek(i) != '"' {
		d.bad(ErrAttributeValue, i)
		if i = d.scan.SkipValue(i); i < 0 {
			return i, 0
		}
		return d.closeAV(i), 0
	}
	end, size := d.keyString(i, tag, ka)
	if end < 0 {
		return end, 0
	}
	return d.closeAV(end), size
}

// keyString decodes the S, N or B string at i, of a key value tagged tag,
// into ka in canonical form, and returns its end and size. A bad number or
// base64 makes the record malformed.
func (d *Decoder) keyString(i, tag int, ka *keyAttr) (int, int) {
	if tag == tagS {
		end, sp := d.stringSpan(i)
		if end < 0 {
			return end, 0
		}
		ka.typ, ka.value = ddb.String, sp
		return end, sp.end - sp.start
	}
	end, s := d.scan.StringBytes(i)
	if end < 0 {
		return end, 0
	}
	vstart := len(d.scratch)
	size := len(s)
	switch tag {
	case tagN:
		ka.typ = ddb.Number
		out, num, err := ddb.AppendCanonical(d.scratch, s)
		if err != nil {
			d.bad(err, i)
			break
		}
		size, d.scratch = num.Size(), out
	case tagB:
		ka.typ = ddb.Binary
		dec, ok := d.decodeBase64(s)
		if !ok {
			d.bad(ErrBase64, i)
			break
		}
		size = len(dec)
		d.scratch = append(d.scratch, dec...)
	}
	ka.value = span{vstart, len(d.scratch), false}
	return end, size
}
