package record

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
	d.rs.nkeys, d.rs.keysSize = 0, 0
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
		if i = d.expect(end, ':', "':'"); i < 0 {
			return i
		}
		var size int
		if i, size = d.keyValue(i, &ka); i < 0 {
			return i
		}
		d.rs.keysSize += ka.name.end - ka.name.start + size
		if d.rs.nkeys < len(d.rs.keys) {
			d.rs.keys[d.rs.nkeys] = ka
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
