package record

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
)

// The decoder's index configuration, compiled, and the top-level
// attributes of each image that the indexes need, listed while the image
// is sized.

// attrRef locates a top-level attribute of an image in the payload.
type attrRef struct {
	nameStart, nameEnd int     // the name's JSON string, quotes included
	valStart, valEnd   int     // its attribute value object
	size               int     // name + value, by the item-size rules
	id                 int     // the name's id in the indexPlan; -1 for a name no index needs
	typ                KeyType // its value's type if S, N or B (as a key); 0 otherwise
}

// tagKeyType is the KeyType of a type tag; 0 for a type no key can have.
func tagKeyType(tag int) KeyType {
	switch tag {
	case tagS:
		return String
	case tagN:
		return Number
	case tagB:
		return Binary
	}
	return 0
}

// attrID returns the indexPlan id of the attribute name whose JSON string
// is b[q:end], plain when it holds no escape; -1 when no index needs it.
func (d *Decoder) attrID(q, end int, plain bool) int {
	if plain {
		return d.ix.lookup(d.data[q+1 : end-1])
	}
	d.is.names[0] = appendString(d.is.names[0][:0], d.data, q, end)
	return d.ix.lookup(d.is.names[0])
}

// indexPlan is a decoder's index configuration, compiled.
type indexPlan struct {
	defs   []Index
	names  []string       // the attributes that matter (index keys, INCLUDE attributes), by id
	short  [32][]int      // ids of those names, by length, for names under 32 bytes
	words  [9][]nameWord  // names of up to 8 bytes, by length, as little-endian words
	long   map[string]int // ids of longer names
	pk, sk []int          // per index, its key attributes' ids; sk -1 without a sort key
	incl   [][]int        // per index, the ids of INCLUDE's attributes
	anyAll bool           // some index projects ALL: every attribute is compared
	seed   maphash.Seed   // of canonical value hashes
}

func newIndexPlan(defs []Index) (*indexPlan, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	p := &indexPlan{defs: slices.Clone(defs), long: map[string]int{}, seed: maphash.MakeSeed()}
	id := func(name string) int {
		if k := p.lookup([]byte(name)); k >= 0 {
			return k
		}
		k := len(p.names)
		p.names = append(p.names, name)
		if len(name) < len(p.words) {
			var w [8]byte
			copy(w[:], name)
			p.words[len(name)] = append(p.words[len(name)], nameWord{binary.LittleEndian.Uint64(w[:]), k})
		}
		if len(name) < len(p.short) {
			p.short[len(name)] = append(p.short[len(name)], k)
		} else {
			p.long[name] = k
		}
		return k
	}
	seen := map[string]bool{}
	for _, ix := range defs {
		if err := ix.Validate(); err != nil {
			return nil, err
		}
		if seen[ix.Name] {
			return nil, fmt.Errorf("%w: two indexes named %q", ErrIndex, ix.Name)
		}
		seen[ix.Name] = true
		p.pk = append(p.pk, id(ix.PartitionKey))
		sk := -1
		if ix.SortKey != "" {
			sk = id(ix.SortKey)
		}
		p.sk = append(p.sk, sk)
		var incl []int
		if ix.Projection == ProjectInclude {
			for _, a := range ix.NonKeyAttributes {
				incl = append(incl, id(a))
			}
		}
		p.incl = append(p.incl, incl)
		p.anyAll = p.anyAll || ix.Projection == ProjectAll
	}
	return p, nil
}

// lookup returns the id of an attribute name, or -1.
func (p *indexPlan) lookup(name []byte) int {
	if n := len(name); n < len(p.words) {
		// Most names are short: one word compare each.
		var w uint64
		if cap(name) >= 8 {
			w = binary.LittleEndian.Uint64(name[:8]) & (1<<(8*n) - 1)
			if n == 8 {
				w = binary.LittleEndian.Uint64(name[:8])
			}
		} else {
			var b [8]byte
			copy(b[:], name)
			w = binary.LittleEndian.Uint64(b[:])
		}
		for _, e := range p.words[n] {
			if e.word == w {
				return e.id
			}
		}
		return -1
	}
	if len(name) < len(p.short) {
		for _, k := range p.short[len(name)] {
			if string(name) == p.names[k] {
				return k
			}
		}
		return -1
	}
	if k, ok := p.long[string(name)]; ok {
		return k
	}
	return -1
}

// nameWord is a name of up to 8 bytes as a little-endian word.
type nameWord struct {
	word uint64
	id   int
}

// indexState is the decoder's per-record scratch for index analysis.
type indexState struct {
	attrs [2][]attrRef // top-level attributes of NewImage (0) and OldImage (1)
	at    [2][]int     // per tracked name id, its position in attrs + 1; 0 when absent
	out   []ixOut      // results of the records waiting in the queue
	image [2][2]int    // each image's JSON, [start, end) in the payload
	// tableKeys remembers the ids of the last table key names: they are
	// the same in every record of a table.
	tableKeys [2]struct {
		name  string
		id    int
		known bool
	}
	names  [2][]byte    // decoded escaped names (attrName)
	sorted [2][]attrRef // attrs sorted by name (anyAttrChanged)
	canon  []byte       // a canonical number or decoded binary (canonHash)
}

// ixOut is an IndexWrite held in offsets, for a queued record.
type ixOut struct {
	wcu, ttl       uint64
	delWCU, putWCU uint64
	delKey, putKey keyRef
	exact          bool
}

// Image sides.
const (
	sideNew = 0
	sideOld = 1
)

// itemAttrs sizes the image at i, as item does, and lists in
// d.is.attrs[side] its top-level attributes whose names the indexes need.
func (d *Decoder) itemAttrs(i, side int) (int, int) {
	attrs := &d.is.attrs[side]
	*attrs = (*attrs)[:0]
	if end, size, ok := d.sizeFast(i, attrs); ok {
		return end, size
	}
	*attrs = (*attrs)[:0]
	return d.walkAttrs(i, attrs, false)
}

// walkAttrs sizes the item at i with the general scanner and lists its
// top-level attributes in attrs: all of them, or only those the indexes
// need.
func (d *Decoder) walkAttrs(i int, attrs *[]attrRef, all bool) (int, int) {
	// The general scanner, as sizeMembers at the top level.
	b := d.data
	i = skipWS(b, i+1)
	if d.peek(i) == '}' {
		return i + 1, 0
	}
	size := 0
	for {
		if d.peek(i) != '"' {
			return d.unexpected(i, "a string key"), 0
		}
		a := attrRef{nameStart: i, id: -1}
		var n, v int
		if i, n, _ = d.scanString(i); i < 0 {
			return i, 0
		}
		a.nameEnd = i
		if !all {
			a.id = d.attrID(a.nameStart, a.nameEnd, false)
		}
		if i = d.expect(i, ':', "':'"); i < 0 {
			return i, 0
		}
		a.valStart = i
		if i, v = d.sizeAV(i, 0); i < 0 {
			return i, 0
		}
		a.valEnd, a.size = i, n+v
		if a.id >= 0 {
			a.typ = d.valueKeyType(a.valStart)
		}
		if all || a.id >= 0 {
			*attrs = append(*attrs, a)
		}
		size += n + v
		i = skipWS(b, i)
		switch d.peek(i) {
		case ',':
			i = skipWS(b, i+1)
			continue
		case '}':
			return i + 1, size
		}
		return d.unexpected(i, "',' or '}'"), 0
	}
}

// indexImage is dynamoMember's NewImage or OldImage with indexes.
func (d *Decoder) indexImage(i, side int) (int, int) {
	switch d.peek(i) {
	case '{':
		end, size := d.itemAttrs(i, side)
		d.is.image[side] = [2]int{i, end}
		return end, size
	case 'n':
		d.is.attrs[side] = d.is.attrs[side][:0]
		return d.literal(i, "null"), -1
	}
	d.bad(ErrFieldType, i)
	return d.skipValue(i), -1
}

// attrName returns the decoded name of a, in buffer buf (0 or 1) when it
// needs decoding: valid until the next call with that buffer.
func (d *Decoder) attrName(a *attrRef, buf int) []byte {
	if plainString(d.data, a.nameStart) == a.nameEnd {
		return d.data[a.nameStart+1 : a.nameEnd-1]
	}
	d.is.names[buf] = appendString(d.is.names[buf][:0], d.data, a.nameStart, a.nameEnd)
	return d.is.names[buf]
}
