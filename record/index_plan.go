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
	nameStart, nameEnd int // the name's JSON string, quotes included
	id                 int // the name's id in the indexPlan; -1 for a name no index needs
	imgAttr
}

// imgAttr is what the index rules need of a top-level attribute: where its
// value is, its size, and what kind of key it could be. indexState.slots
// holds them by name id.
type imgAttr struct {
	valStart, valEnd int     // its attribute value object
	size             int     // name + value, by the item-size rules
	gen              uint32  // in indexState.slots: the image it was read from
	typ              KeyType // its value's type if S, N or B (as a key); 0 otherwise
	// str tells, for a compact {"S":"…"} that sizeFast read, whether the
	// string's bytes are its value as they stand (strRaw) or need decoding
	// (strCoded); strUnknown otherwise. indexKey and sameValue then need
	// not scan the string again.
	str uint8
}

// imgAttr.str values.
const (
	strUnknown = iota
	strRaw
	strCoded
)

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

// indexPlan is a decoder's index configuration, compiled: what each
// record's charge needs of an index, derived once rather than per record.
type indexPlan struct {
	defs  []Index
	ix    []ixDef        // per index, compiled
	names []string       // the attributes that matter (index keys, INCLUDE attributes), by id
	short [32][]int      // ids of those names, by length, for names under 32 bytes
	words [9][]nameWord  // names of up to 8 bytes, by length, as little-endian words
	long  map[string]int // ids of longer names
	seed  maphash.Seed   // of canonical value hashes
}

// ixDef is one index, compiled.
type ixDef struct {
	pk, sk int   // its key attributes' ids; sk -1 without a sort key
	all    bool  // projection ALL: the entry is the whole item
	incl   []int // INCLUDE's attributes' ids, as listed (a change to any is a projected change)
	// entry lists, once each, the ids of the attributes an entry holds
	// besides the table's keys (which KeysSize counts): the index keys and
	// INCLUDE's attributes. Unused with ALL. Those that turn out to be the
	// table's keys are skipped per record (see entrySize).
	entry []int
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
		def := ixDef{pk: id(ix.PartitionKey), sk: -1, all: ix.Projection == ProjectAll}
		def.entry = append(def.entry, def.pk)
		if ix.SortKey != "" {
			def.sk = id(ix.SortKey)
			if def.sk != def.pk {
				def.entry = append(def.entry, def.sk)
			}
		}
		if ix.Projection == ProjectInclude {
			for _, a := range ix.NonKeyAttributes {
				k := id(a)
				def.incl = append(def.incl, k)
				if !slices.Contains(def.entry, k) {
					def.entry = append(def.entry, k)
				}
			}
		}
		p.ix = append(p.ix, def)
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

// shortID is lookup for the plain name of n < 8 bytes whose quote is at
// b[q], when b holds 8 bytes past the quote: small enough to inline in the
// scanner's loop.
func (p *indexPlan) shortID(b []byte, q, n int) int {
	w := binary.LittleEndian.Uint64(b[q+1:]) & wordMasks[n&7]
	for _, e := range p.words[n&7] {
		if e.word == w {
			return e.id
		}
	}
	return -1
}

// wordMasks[n] keeps the first n bytes of a little-endian word: a table
// rather than a shift by a variable, which costs several instructions
// more, and the sizing pass looks up every top-level name (1.0 M
// instructions per benchmark batch with three indexes, cachegrind).
var wordMasks = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ^uint64(0)}

// nameWord is a name of up to 8 bytes as a little-endian word.
type nameWord struct {
	word uint64
	id   int
}

// keyID returns the plan id + 1 of the name of key attribute k, or 0 when
// no index needs it, and keeps a name of up to 8 bytes with it in
// indexState.keys, where keys finds it again without a lookup.
func (d *Decoder) keyID(k int, name []byte) int32 {
	id := int32(d.ix.lookup(name) + 1)
	if n := len(name); n <= 8 && cap(name) >= 8 {
		d.is.keys[k&1] = keyName{word: binary.LittleEndian.Uint64(name[:8]) & wordMasks[n], n: n, id: id}
	}
	return id
}

// keyName is a key attribute's name of up to 8 bytes, as a word, its
// length and its keyID, as last seen. The zero value is the empty name,
// which no index needs.
type keyName struct {
	word uint64
	n    int
	id   int32
}

// indexState is the decoder's per-record scratch for index analysis.
type indexState struct {
	keys [2]keyName // the last key names (keyID); cleared with a new plan
	// slots holds, per image (NewImage 0, OldImage 1) and per tracked name
	// id, the image's top-level attribute of that name: the one whose gen
	// is gen[side], the image's number. Other slots are stale (the image
	// lacks the name), so nothing is cleared per image.
	slots  [2][]imgAttr
	gen    [2]uint32
	list   []attrRef    // the general scanner's attributes, before they go to slots
	out    []ixOut      // results of the records waiting in the queue: only the writes that touched an index
	image  [2][2]int    // each image's JSON, [start, end) in the payload
	names  [2][]byte    // decoded escaped names (attrName)
	sorted [2][]attrRef // attrs sorted by name (anyAttrChanged)
	canon  []byte       // a canonical number or decoded binary (canonHash)
}

// ixOut is an IndexWrite held in offsets, for a queued record; only a
// write that touched the index (see Record.Indexes) has one, so that a
// batch's results stay small enough to stay in cache.
// Units fit in 32 bits: finishRecord rejects items over 2^31 bytes, so an
// entry is under 2^32 bytes.
type ixOut struct {
	del, put       heldKey
	delWCU, putWCU uint32
	ttl            uint32
	x              int32 // the index
	exact          bool
}

// heldKey is a keyRef in 16 bytes.
type heldKey struct {
	start   int
	n       uint32 // attribute values are under 2^31 bytes (finishRecord)
	typ     KeyType
	payload bool
}

func (k keyRef) held() heldKey {
	return heldKey{start: k.value.start, n: uint32(k.value.end - k.value.start), typ: k.typ, payload: k.value.payload}
}

func (d *Decoder) heldBytes(k heldKey) []byte {
	return d.bytesOf(span{k.start, k.start + int(k.n), k.payload})
}

// Image sides.
const (
	sideNew = 0
	sideOld = 1
)

// itemAttrs sizes the image at i, as item does, and puts in
// d.is.slots[side] its top-level attributes whose names the indexes need.
func (d *Decoder) itemAttrs(i, side int) (int, int) {
	slots := d.newImageSlots(side)
	if end, size, ok := d.sizeFast(i, slots, d.is.gen[side]); ok {
		return end, size
	}
	slots = d.newImageSlots(side) // forget what the fast scanner put there
	d.is.list = d.is.list[:0]
	end, size := d.walkAttrs(i, &d.is.list, false)
	for _, a := range d.is.list {
		a.gen = d.is.gen[side]
		slots[a.id] = a.imgAttr
	}
	return end, size
}

// newImageSlots starts a new image on side: no attribute in its slots.
func (d *Decoder) newImageSlots(side int) []imgAttr {
	is := &d.is
	if len(is.slots[side]) != len(d.ix.names) {
		is.slots[side] = make([]imgAttr, len(d.ix.names))
	}
	if is.gen[side]++; is.gen[side] == 0 { // wrapped: make every slot stale
		clear(is.slots[side])
		is.gen[side] = 1
	}
	return is.slots[side]
}

// attr returns the attribute of tracked name id in image side, or nil.
func (d *Decoder) attr(side, id int) *imgAttr {
	if a := &d.is.slots[side][id]; a.gen == d.is.gen[side] {
		return a
	}
	return nil
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
		d.newImageSlots(side)
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
