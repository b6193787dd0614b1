package record

import (
	"hash/maphash"
	"math/bits"
)

// Canonical hashes of attribute values, to tell whether an attribute
// changed between a record's images when its JSON differs: two values
// DynamoDB treats as equal hash alike however they are spelled (numbers
// in canonical form, strings with their escapes resolved, binaries
// decoded, sets and maps in any order, whitespace anywhere). Two different
// values collide with probability about 2^-64.

// mix is SplitMix64's finaliser: it spreads a combination of hashes.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// canonHash hashes the attribute value object at i, which the size pass
// has already checked; ok is false if it turns out not to be one.
func (d *Decoder) canonHash(i int) (h uint64, ok bool) {
	save, saveSyntax := d.rs.err, d.syntax
	_, h = d.hashAV(i, 0)
	ok = d.rs.err == save && d.syntax == saveSyntax
	d.rs.err, d.syntax = save, saveSyntax
	return h, ok
}

func (d *Decoder) hashBytes(tag int, b []byte) uint64 {
	return mix(maphash.Bytes(d.ix.seed, b) + uint64(tag))
}

// hashAV hashes the attribute value object at i and returns its end.
func (d *Decoder) hashAV(i, depth int) (int, uint64) {
	b := d.data
	if d.peek(i) != '{' || depth > maxNesting {
		d.bad(ErrAttributeValue, i)
		return -1, 0
	}
	i = skipWS(b, i+1)
	if d.peek(i) != '"' {
		d.bad(ErrAttributeValue, i)
		return -1, 0
	}
	i, tag := d.readTag(i)
	if i < 0 {
		return i, 0
	}
	i = skipWS(b, i)
	if d.peek(i) != ':' {
		d.bad(ErrAttributeValue, i)
		return -1, 0
	}
	i = skipWS(b, i+1)
	var h uint64
	switch tag {
	case tagS, tagN, tagB:
		i, h = d.hashScalar(i, tag)
	case tagBOOL, tagNULL:
		switch d.peek(i) {
		case 't':
			i, h = d.literal(i, "true"), mix(uint64(tag)<<8|1)
		case 'f':
			i, h = d.literal(i, "false"), mix(uint64(tag)<<8|2)
		default:
			i = -1
		}
	case tagSS, tagNS, tagBS: // unordered: the sum of the elements' hashes
		elem := tagS
		if tag == tagNS {
			elem = tagN
		} else if tag == tagBS {
			elem = tagB
		}
		var sum uint64
		i = d.hashElems(i, '[', ']', func(j int) int {
			end, e := d.hashScalar(j, elem)
			sum += e
			return end
		})
		h = mix(sum + uint64(tag))
	case tagL: // ordered
		h = uint64(tag)
		i = d.hashElems(i, '[', ']', func(j int) int {
			end, e := d.hashAV(j, depth+1)
			h = mix(bits.RotateLeft64(h, 5) ^ e)
			return end
		})
		h = mix(h)
	case tagM: // unordered: the sum of each member's name and value
		var sum uint64
		i = d.hashElems(i, '{', '}', func(j int) int {
			end, name := d.stringBytes(j)
			if end < 0 {
				return end
			}
			hn := d.hashBytes(0, name)
			end = skipWS(b, end)
			if d.peek(end) != ':' {
				return -1
			}
			end, e := d.hashAV(skipWS(b, end+1), depth+1)
			sum += mix(hn ^ bits.RotateLeft64(e, 17))
			return end
		})
		h = mix(sum + uint64(tag))
	default:
		i = -1
	}
	if i < 0 {
		d.bad(ErrAttributeValue, 0)
		return -1, 0
	}
	i = skipWS(b, i)
	if d.peek(i) != '}' {
		d.bad(ErrAttributeValue, i)
		return -1, 0
	}
	return i + 1, h
}

// hashScalar hashes the S, N or B value (a JSON string) at i.
func (d *Decoder) hashScalar(i, tag int) (int, uint64) {
	if d.peek(i) != '"' {
		return -1, 0
	}
	end, s := d.stringBytes(i)
	if end < 0 {
		return end, 0
	}
	switch tag {
	case tagN:
		num, err := parseNumber(s)
		if err != nil {
			return -1, 0
		}
		d.is.canon = appendCanonical(d.is.canon[:0], s, &num)
		s = d.is.canon
	case tagB:
		dec, ok := d.decodeBase64(s)
		if !ok {
			return -1, 0
		}
		s = dec
	}
	return end, d.hashBytes(tag, s)
}

// hashElems walks the elements of an array or object at i, calling each
// at every one; each returns the element's end.
func (d *Decoder) hashElems(i int, open, close byte, each func(int) int) int {
	b := d.data
	if d.peek(i) != open {
		return -1
	}
	i = skipWS(b, i+1)
	if d.peek(i) == close {
		return i + 1
	}
	for {
		if i = each(i); i < 0 {
			return i
		}
		i = skipWS(b, i)
		switch d.peek(i) {
		case ',':
			i = skipWS(b, i+1)
		case close:
			return i + 1
		default:
			return -1
		}
	}
}
