package record

import (
	"hash/maphash"
	"math/bits"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Canonical hashes of attribute values, to tell whether an attribute
// changed between a record's images when its JSON differs: two values
// DynamoDB treats as equal hash alike however they are spelled (numbers
// in canonical form, strings with their escapes resolved, binaries
// decoded, sets and maps in any order, whitespace anywhere). Two different
// values collide with probability about 2^-64.

// canonHash hashes the attribute value object at i, which the size pass
// has already checked; ok is false if it turns out not to be one.
func (d *Decoder) canonHash(i int) (h uint64, ok bool) {
	saveSyntax := d.scan.Err()
	end, h := d.hashAV(i, 0)
	if saveSyntax == nil { // else the scanner kept it
		d.scan.ClearErr()
	}
	return h, end >= 0
}

// hashAV hashes the attribute value object at i and returns its end,
// negative when it turns out not to be one (canonHash then forgets any
// syntax error the scanner recorded).
func (d *Decoder) hashAV(i, depth int) (int, uint64) {
	if d.scan.Peek(i) != '{' || depth > ddb.MaxNesting {
		return -1, 0
	}
	i = jsonscan.SkipWS(d.scan.Bytes(), i+1)
	if d.scan.Peek(i) != '"' {
		return -1, 0
	}
	i, tag := d.readTag(i)
	if i < 0 {
		return i, 0
	}
	if i = d.scan.Expect(i, ':', "':'"); i < 0 {
		return i, 0
	}
	i, h := d.hashTagged(i, tag, depth)
	if i < 0 {
		return i, 0
	}
	if i, closed := d.scan.Next(i, '}'); closed {
		return i, h
	}
	return -1, 0
}

// hashTagged hashes the value at i of an attribute value tagged tag, and
// returns its end (negative when it is not one).
func (d *Decoder) hashTagged(i, tag, depth int) (int, uint64) {
	var h uint64
	switch tag {
	case tagS, tagN, tagB:
		i, h = d.hashScalar(i, tag)
	case tagBOOL, tagNULL:
		switch d.scan.Peek(i) {
		case 't':
			i, h = d.scan.Literal(i, "true"), mix(uint64(tag)<<8|1)
		case 'f':
			i, h = d.scan.Literal(i, "false"), mix(uint64(tag)<<8|2)
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
			end, e := d.hashMember(j, depth)
			sum += e
			return end
		})
		h = mix(sum + uint64(tag))
	default:
		i = -1
	}
	return i, h
}

// hashMember hashes the member at i of an M value at depth: its name and
// its value together.
func (d *Decoder) hashMember(i, depth int) (int, uint64) {
	v, name := d.scan.Key(i)
	if v < 0 {
		return v, 0
	}
	hn := d.hashBytes(0, name)
	end, e := d.hashAV(v, depth+1)
	return end, mix(hn ^ bits.RotateLeft64(e, 17))
}

// hashScalar hashes the S, N or B value (a JSON string) at i.
func (d *Decoder) hashScalar(i, tag int) (int, uint64) {
	if d.scan.Peek(i) != '"' {
		return -1, 0
	}
	end, s := d.scan.StringBytes(i)
	if end < 0 {
		return end, 0
	}
	switch tag {
	case tagN:
		canon, _, err := ddb.AppendCanonical(d.images.canon[:0], s)
		if err != nil {
			return -1, 0
		}
		d.images.canon, s = canon, canon
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
	if d.scan.Peek(i) != open {
		return -1
	}
	i, closed := d.scan.Open(i, close)
	for !closed && i >= 0 {
		if i = each(i); i >= 0 {
			i, closed = d.scan.Next(i, close)
		}
	}
	return i
}

func (d *Decoder) hashBytes(tag int, b []byte) uint64 {
	return mix(maphash.Bytes(d.plan.seed, b) + uint64(tag))
}

// mix is SplitMix64's finaliser: it spreads a combination of hashes.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
