package record

import "encoding/binary"

// dynamodb.Keys: the key attributes of a record, decoded into canonical
// form (see Key), and their size as an item.

// keyAttr is one attribute of dynamodb.Keys.
type keyAttr struct {
	name, value span
	typ         KeyType
}

// keys decodes dynamodb.Keys at i: the key values in canonical form, and
// the size of the keys as an item.
func (d *Decoder) keys(i int) int {
	d.rs.nkeys, d.rs.keysSize, d.rs.keyIDs = 0, 0, [2]int32{}
	b := d.data
	i = skipWS(b, i+1)
	if d.peek(i) == '}' {
		return i + 1
	}
	for {
		if d.peek(i) != '"' {
			return d.unexpected(i, "a string key")
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
			if i = d.expect(end, ':', "':'"); i < 0 {
				return i
			}
			if i, size = d.keyValue(i, &ka); i < 0 {
				return i
			}
		}
		d.rs.keysSize += ka.name.end - ka.name.start + size
		if d.rs.nkeys < len(d.rs.keys) {
			d.rs.keys[d.rs.nkeys] = ka
			if d.ix != nil { // which index attribute, if any, this key is (see entrySize)
				// A table's key names are the same in every record: the last
				// ones are kept as words (keyName), so one compare finds them.
				nb, c := d.bytesOf(name), &d.is.keys[d.rs.nkeys&1]
				id := c.id
				if n := len(nb); n != c.n || n > 8 || cap(nb) < 8 ||
					binary.LittleEndian.Uint64(nb[:8])&wordMasks[n] != c.word {
					id = d.keyID(d.rs.nkeys, nb)
				}
				d.rs.keyIDs[d.rs.nkeys] = id
			}
		}
		d.rs.nkeys++
		i = skipWS(b, i)
		switch d.peek(i) {
		case ',':
			i = skipWS(b, i+1)
			continue
		case '}':
			return i + 1
		}
		return d.unexpected(i, "',' or '}'")
	}
}

// compactKeyValue is keyValue for what Lambda writes nearly always: a
// compact {"S":"..."} with a plain string, or {"N":"..."} with a number
// already in canonical form (an integer without leading zeros), whose bytes
// are then the key as they stand. ok is false for anything else, and
// keyValue decides.
func (d *Decoder) compactKeyValue(i int, ka *keyAttr) (end, size int, ok bool) {
	b := d.data
	if i+7 > len(b) || b[i] != '{' || b[i+1] != '"' || b[i+3] != '"' || b[i+4] != ':' || b[i+5] != '"' {
		return 0, 0, false
	}
	q := i + 5 // the value's quote
	switch b[i+2] {
	case 'S':
		e := shortString(b, q)
		if e < 0 {
			e = plainString(b, q)
		}
		if e < 0 || byteAt(b, e) != '}' {
			return 0, 0, false
		}
		ka.typ, ka.value = String, span{q + 1, e - 1, true}
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
		e, n := plainDecimal(b, q)
		if e != j+1 {
			return 0, 0, false // beyond DynamoDB's limits: keyValue names the error
		}
		ka.typ, ka.value = Number, span{q + 1, j, true}
		return e + 1, n, true
	}
	return 0, 0, false
}

// keyValue decodes the attribute value of a key at i into ka, in canonical
// form, and returns its size.
func (d *Decoder) keyValue(i int, ka *keyAttr) (int, int) {
	start := i
	if d.peek(i) != '{' {
		return d.sizeAV(i, 0)
	}
	j := skipWS(d.data, i+1)
	if d.peek(j) != '"' {
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
	if i = d.expect(j, ':', "':'"); i < 0 {
		return i, 0
	}
	if d.peek(i) != '"' {
		d.bad(ErrAttributeValue, i)
		if i = d.skipValue(i); i < 0 {
			return i, 0
		}
		return d.closeAV(i), 0
	}
	if tag == tagS {
		end, sp := d.stringSpan(i)
		if end < 0 {
			return end, 0
		}
		ka.typ, ka.value = String, sp
		return d.closeAV(end), sp.end - sp.start
	}
	end, s := d.stringBytes(i)
	if end < 0 {
		return end, 0
	}
	vstart := len(d.scratch)
	size := len(s)
	switch tag {
	case tagN:
		ka.typ = Number
		num, err := parseNumber(s)
		if err != nil {
			d.bad(err, i)
			break
		}
		size = num.size()
		d.scratch = appendCanonical(d.scratch, s, &num)
	case tagB:
		ka.typ = Binary
		dec, ok := d.decodeBase64(s)
		if !ok {
			d.bad(ErrBase64, i)
			break
		}
		size = len(dec)
		d.scratch = append(d.scratch, dec...)
	}
	ka.value = span{vstart, len(d.scratch), false}
	return d.closeAV(end), size
}
