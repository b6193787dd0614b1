package record

import (
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// sizeFast sizes the item object at i (an image) in one tight loop, for
// the compact JSON that Lambda and encoding/json write: no whitespace,
// one {"TAG":value} per attribute value, well-formed values. It returns
// ok=false at the first thing it does not expect, and the caller then
// sizes the item again with the general scanner, which also names the
// error if there is one. Both apply the same rules; the tests and the fuzz
// tests check that they agree wherever the fast one answers.
//
// slots, when not nil, receives the top-level attributes whose names the
// indexes need (see attrRef), each at its id, marked gen: only a decoder
// with indexes passes them.
//
// Long because one step is kept whole: a call per step (name, tag, value)
// costs about 3 % more instructions per batch (cachegrind), and this is the
// decoder's hottest loop.
func (d *Decoder) sizeFast(i int, slots []imgAttr, gen uint32) (end, size int, ok bool) {
	b := d.scan.Bytes()
	var top imgAttr // the top-level attribute being read, when slots track its name (topID >= 0)
	topID := -1
	// stack[k] is '{' for a map (the item at 0, then M values) or '[' for
	// an L value; nesting is bounded as in the general scanner.
	var stack [ddb.MaxNesting + 1]byte
	sp := 0
	stack[0] = '{'
	i++ // past the item's '{'
	empty := byteAt(b, i) == '}'
	for !empty {
		// A member of a map, from its name, or an element of a list.
		if stack[sp] == '[' {
			size += ddb.ElementOverhead
		} else {
			if byteAt(b, i) != '"' {
				return 0, 0, false
			}
			e := jsonscan.ShortString(b, i)
			if e < 0 {
				e = jsonscan.PlainString(b, i)
			}
			n, plain := e-i-2, e >= 0
			if !plain {
				if e, n, _ = d.scan.ScanString(i); e < 0 {
					d.scan.ClearErr()
					return 0, 0, false
				}
			}
			if byteAt(b, e) != ':' {
				return 0, 0, false
			}
			if sp > 0 {
				size += ddb.ElementOverhead // a member of an M; not an attribute of the item
			} else if slots != nil {
				if plain && n < 8 { // most names: ShortString read 8 bytes past the quote
					topID = d.plan.shortID(b, i, n)
				} else {
					topID = d.attrID(i, e, plain)
				}
				if topID >= 0 {
					top = imgAttr{valStart: e + 1, size: size}
				}
			}
			size += n
			i = e + 1
		}
		// Its value, {"T":value}: a scalar, or a container to step into.
		if i+6 >= len(b) || b[i] != '{' || b[i+1] != '"' {
			return 0, 0, false
		}
		tag, j := tagUnknown, 0
		switch {
		case b[i+3] == '"' && b[i+4] == ':':
			tag, j = int(oneLetterTags[b[i+2]]), i+5
		case b[i+3] == 'S' && b[i+4] == '"' && b[i+5] == ':':
			tag, j = int(setTags[b[i+2]]), i+6
		case at(b, i+2, `BOOL":`), at(b, i+2, `NULL":`):
			tag, j = tagBOOL, i+8 // BOOL and NULL size alike
		}
		if sp == 0 && topID >= 0 {
			top.typ = tagKeyType(tag)
		}
		switch tag {
		case tagM, tagL:
			open := byte('{')
			if tag == tagL {
				open = '['
			}
			if byteAt(b, j) != open || sp >= ddb.MaxNesting {
				return 0, 0, false
			}
			size += ddb.ContainerOverhead
			sp++
			stack[sp] = open
			i = j + 1
			if c := byteAt(b, i); c != '}' && c != ']' {
				continue // on to its first member or element
			}
			empty = true // close it below
		case tagS:
			str, n := uint8(strRaw), 0
			if byteAt(b, j) != '"' {
				return 0, 0, false
			}
			if i = jsonscan.ShortString(b, j); i >= 0 {
				n = i - j - 2
			} else if i = jsonscan.PlainString(b, j); i >= 0 {
				n = i - j - 2
			} else if i, n, str = d.fastString(j); i < 0 {
				return 0, 0, false
			}
			if sp == 0 {
				top.str = str
			}
			size += n
		case tagN:
			var n int
			if i, n = fastNumber(b, j); i < 0 {
				return 0, 0, false
			}
			size += n
		default:
			var n int
			if i, n = d.fastScalar(b, j, tag); i < 0 {
				return 0, 0, false
			}
			size += n
		}
		// Close the attribute value's '}', then any containers that end.
		for {
			if !empty {
				if byteAt(b, i) != '}' {
					return 0, 0, false
				}
				i++
				if sp == 0 && topID >= 0 {
					top.valEnd, top.size, top.gen = i, size-top.size, gen
					slots[topID] = top
					topID = -1
				}
			}
			empty = false
			c := byteAt(b, i)
			if c == ',' {
				i++
				break
			}
			if c != stack[sp]+2 { // '{' + 2 is '}', '[' + 2 is ']'
				return 0, 0, false
			}
			i++
			if sp == 0 {
				return i, size, true
			}
			sp--
		}
	}
	return i + 1, 0, true // {}
}

// fastString sizes the S string at j that is not plain, and says whether
// its bytes are its value as they stand (strRaw) or need decoding
// (strCoded); end < 0 when it is not a valid string.
func (d *Decoder) fastString(j int) (end, n int, str uint8) {
	end, n, flags := d.scan.ScanString(j)
	if end < 0 {
		d.scan.ClearErr()
		return -1, 0, 0
	}
	if flags != 0 {
		return end, n, strCoded
	}
	return end, n, strRaw
}

// fastScalar sizes the compact B, BOOL, NULL or set value at j of an
// attribute value tagged tag, and returns its end (-1 when it is not one)
// and size.
func (d *Decoder) fastScalar(b []byte, j, tag int) (end, n int) {
	switch tag {
	case tagB:
		return fastBinary(b, j)
	case tagBOOL:
		switch {
		case at(b, j, "true"):
			return j + 4, ddb.BoolSize // NULL's value is true too
		case at(b, j, "false"):
			return j + 5, ddb.BoolSize
		}
	case tagSS, tagNS, tagBS:
		return d.fastSet(b, j, tag)
	}
	return -1, 0
}

// fastSet sizes the compact SS, NS or BS array at q, or returns -1.
func (d *Decoder) fastSet(b []byte, q, tag int) (int, int) {
	if byteAt(b, q) != '[' {
		return -1, 0
	}
	i := q + 1
	if byteAt(b, i) == ']' {
		return i + 1, 0
	}
	total := 0
	for {
		var n int
		switch tag {
		case tagSS:
			if byteAt(b, i) != '"' {
				return -1, 0
			}
			e := jsonscan.PlainString(b, i)
			if e >= 0 {
				n = e - i - 2
			} else if e, n, _ = d.scan.ScanString(i); e < 0 {
				d.scan.ClearErr()
				return -1, 0
			}
			i = e
		case tagNS:
			i, n = fastNumber(b, i)
		default:
			i, n = fastBinary(b, i)
		}
		if i < 0 {
			return -1, 0
		}
		total += n
		switch byteAt(b, i) {
		case ',':
			i++
		case ']':
			return i + 1, total
		default:
			return -1, 0
		}
	}
}

// fastNumber sizes the plain N string at q, or returns -1.
func fastNumber(b []byte, q int) (int, int) {
	if end, size := ddb.PlainNumberSize(b, q+1); end >= 0 && byteAt(b, end) == '"' && byteAt(b, q) == '"' {
		return end + 1, size
	}
	if byteAt(b, q) != '"' {
		return -1, 0
	}
	j := q + 1
	for j < len(b) && numChar[b[j]] {
		j++
	}
	if byteAt(b, j) != '"' {
		return -1, 0
	}
	num, err := ddb.ParseNumber(b[q+1 : j])
	if err != nil {
		return -1, 0
	}
	return j + 1, num.Size()
}

// fastBinary sizes the plain B string at q, or returns -1.
func fastBinary(b []byte, q int) (int, int) {
	if byteAt(b, q) != '"' {
		return -1, 0
	}
	if end, n, valid := plainBase64(b, q); valid {
		return end, n
	}
	return -1, 0
}

func byteAt(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}
