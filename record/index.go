package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"unicode/utf8"
)

// Global secondary indexes: their definitions, and what every write costs
// each of them, by DynamoDB's documented rules (AWS Developer Guide,
// "Provisioned throughput considerations for global secondary indexes"):
//
//   - a write that leaves the item out of the index before and after costs
//     nothing (sparse indexes);
//   - entering the index is one write, of the new entry;
//   - leaving it is one write, of the old entry;
//   - changing the index key is two writes: delete the old entry, put the
//     new one;
//   - changing only projected attributes is one write, of the larger entry;
//   - changing nothing projected costs nothing;
//
// where an entry is the table's key attributes, the index's key attributes
// and the projected attributes, sized by the item-size rules, and a write
// costs ceil(size/1 KB). An item is in an index when it has every key
// attribute of the index, as S, N or B.
//
// TTL deletes: DynamoDB removes the item from every index "in the same way
// as a DeleteItem operation", and TTL deletes are free. So a TTL delete is
// charged 0 WCU to the index, and the entry it removed is counted apart in
// IndexWrite.TTLWCU.

// Projection is what a global secondary index copies of an item besides
// the keys.
type Projection uint8

// The projection types of DynamoDB.
const (
	ProjectAll      Projection = iota + 1 // ALL: every attribute
	ProjectKeysOnly                       // KEYS_ONLY: the table's and the index's keys
	ProjectInclude                        // INCLUDE: the keys and Index.NonKeyAttributes
)

// String returns the projection type as DynamoDB spells it.
func (p Projection) String() string {
	switch p {
	case ProjectAll:
		return "ALL"
	case ProjectKeysOnly:
		return "KEYS_ONLY"
	case ProjectInclude:
		return "INCLUDE"
	}
	return fmt.Sprintf("Projection(%d)", uint8(p))
}

// ErrIndex is wrapped by the errors about index definitions.
var ErrIndex = errors.New("record: invalid index definition")

// ParseProjection reads a ProjectionType: ALL, KEYS_ONLY or INCLUDE.
func ParseProjection(s string) (Projection, error) {
	for _, p := range []Projection{ProjectAll, ProjectKeysOnly, ProjectInclude} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: projection type %q is not ALL, KEYS_ONLY or INCLUDE", ErrIndex, s)
}

// Index defines a global secondary index.
type Index struct {
	Name             string
	PartitionKey     string // the index's HASH key attribute
	SortKey          string // its RANGE key attribute; "" when it has none
	Projection       Projection
	NonKeyAttributes []string // the attributes INCLUDE projects
}

// Validate checks that ix could be a DynamoDB index.
func (ix Index) Validate() error {
	if ix.Name == "" {
		return fmt.Errorf("%w: an index has no name", ErrIndex)
	}
	if ix.PartitionKey == "" {
		return fmt.Errorf("%w: index %q has no partition key", ErrIndex, ix.Name)
	}
	for _, n := range []string{ix.Name, ix.PartitionKey, ix.SortKey} {
		if len(n) > maxKeyNameBytes || !utf8.ValidString(n) {
			return fmt.Errorf("%w: index %q: name %.40q is not UTF-8 of at most %d bytes", ErrIndex, ix.Name, n, maxKeyNameBytes)
		}
	}
	switch ix.Projection {
	case ProjectAll, ProjectKeysOnly:
		if len(ix.NonKeyAttributes) > 0 {
			return fmt.Errorf("%w: index %q: NonKeyAttributes need projection INCLUDE, not %s", ErrIndex, ix.Name, ix.Projection)
		}
	case ProjectInclude:
		for _, a := range ix.NonKeyAttributes {
			if a == "" || !utf8.ValidString(a) {
				return fmt.Errorf("%w: index %q: a NonKeyAttribute %q is empty or not UTF-8", ErrIndex, ix.Name, a)
			}
		}
	default:
		return fmt.Errorf("%w: index %q: projection %v", ErrIndex, ix.Name, ix.Projection)
	}
	return nil
}

// IndexEntry is one write to an index: the entry's partition key in the
// index, and its cost.
type IndexEntry struct {
	Key Key    // the index partition key (canonical); Type 0 when none
	WCU uint64 // 0 when there was no such write
}

// IndexWrite is what one stream record's write cost one index.
type IndexWrite struct {
	Index string // the index's name
	// WCU is what the index was charged: Delete.WCU + Put.WCU.
	WCU uint64
	// Exact is false when an image needed to decide was missing: WCU is
	// then a lower bound (0 when nothing could be told).
	Exact bool
	// Delete is the entry the write removed (the item left the index, or
	// its index key changed), and Put the entry it wrote (the item entered
	// the index, its key changed, or only projected attributes changed: then
	// one write of the larger entry, under the unchanged key).
	Delete, Put IndexEntry
	// TTLWCU is, for a TTL delete, the size in WCU of the entry DynamoDB's
	// TTL process removed from the index. TTL deletes are free: WCU is 0.
	TTLWCU uint64
}

// attrRef locates a top-level attribute of an image in the payload.
type attrRef struct {
	nameStart, nameEnd int // the name's JSON string, quotes included
	valStart, valEnd   int // its attribute value object
	size               int // name + value, by the item-size rules
	id                 int // the name's id in the indexPlan; -1 for a name no index needs
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

// SetIndexes replaces the indexes the decoder charges writes to, as
// Config.Indexes does; nil turns index analysis off. The Lambda calls it
// when DescribeTable shows the table's indexes have changed.
func (d *Decoder) SetIndexes(defs []Index) error {
	p, err := newIndexPlan(defs)
	if err != nil {
		return err
	}
	d.ix = p
	return nil
}

// Indexes returns the indexes the decoder charges writes to.
func (d *Decoder) Indexes() []Index {
	if d.ix == nil {
		return nil
	}
	return slices.Clone(d.ix.defs)
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

// charge computes what the current record cost each index, and appends
// it to d.is.out; it returns the position of the first.
func (d *Decoder) chargeIndexes() int32 {
	p, rs, is := d.ix, &d.rs, &d.is
	first := int32(len(is.out))
	have := [2]bool{rs.newSize >= 0, rs.oldSize >= 0}
	for s := range 2 {
		if cap(is.at[s]) < len(p.names) {
			is.at[s] = make([]int, len(p.names))
		}
		is.at[s] = is.at[s][:len(p.names)]
		clear(is.at[s])
		if !have[s] {
			continue
		}
		for k := range is.attrs[s] {
			is.at[s][is.attrs[s][k].id] = k + 1
		}
	}
	// The table's key attributes, which every entry holds (KeysSize).
	tableKey := [2]int{-1, -1}
	for k := 0; k < rs.nkeys && k < 2; k++ {
		name := d.bytesOf(rs.keys[k].name)
		if c := &is.tableKeys[k]; string(name) != c.name || !c.known {
			c.name, c.id, c.known = string(name), p.lookup(name), true
		}
		tableKey[k] = is.tableKeys[k].id
	}
	isTableKey := func(id int) bool { return id >= 0 && (id == tableKey[0] || id == tableKey[1]) }
	ttl := rs.eventName == Remove && rs.ttlType && rs.ttlPrinc
	allChanged := -1 // unknown yet
	for x := range p.defs {
		ix := &p.defs[x]
		var o ixOut
		// in[s]: the image shows the item in the index.
		var in [2]bool
		var entry [2]int
		for s := range 2 {
			if !have[s] {
				continue
			}
			in[s] = d.keyType(s, p.pk[x]) != 0 && (p.sk[x] < 0 || d.keyType(s, p.sk[x]) != 0)
			if !in[s] {
				continue
			}
			if ix.Projection == ProjectAll {
				entry[s] = rs.newSize
				if s == sideOld {
					entry[s] = rs.oldSize
				}
				continue
			}
			e := rs.keysSize
			counted := func(id int) {
				if k := is.at[s][id]; k > 0 {
					e += is.attrs[s][k-1].size
				}
			}
			if !isTableKey(p.pk[x]) {
				counted(p.pk[x])
			}
			if sk := p.sk[x]; sk >= 0 && sk != p.pk[x] && !isTableKey(sk) {
				counted(sk)
			}
			for j, id := range p.incl[x] {
				if id != p.pk[x] && id != p.sk[x] && !isTableKey(id) && !slices.Contains(p.incl[x][:j], id) {
					counted(id)
				}
			}
			entry[s] = e
		}
		o.exact = true
		switch {
		case ttl:
			if have[sideOld] && in[sideOld] {
				o.ttl = units(entry[sideOld])
			}
			o.exact = have[sideOld]
		case rs.eventName == Insert:
			if !have[sideNew] {
				o.exact = false
			} else if in[sideNew] {
				o.putWCU = units(entry[sideNew])
			}
		case rs.eventName == Remove:
			if !have[sideOld] {
				o.exact = false
			} else if in[sideOld] {
				o.delWCU = units(entry[sideOld])
			}
		case !have[sideNew] || !have[sideOld]:
			o.exact = false
		case in[sideOld] && !in[sideNew]:
			o.delWCU = units(entry[sideOld])
		case !in[sideOld] && in[sideNew]:
			o.putWCU = units(entry[sideNew])
		case !in[sideOld]: // in neither
		case !d.sameAttr(p.pk[x]) || (p.sk[x] >= 0 && !d.sameAttr(p.sk[x])):
			o.delWCU = units(entry[sideOld])
			o.putWCU = units(entry[sideNew])
		default: // the same key: did a projected attribute change?
			changed := false
			switch ix.Projection {
			case ProjectAll:
				if allChanged < 0 {
					allChanged = 0
					if d.anyAttrChanged() {
						allChanged = 1
					}
				}
				changed = allChanged == 1
			case ProjectInclude:
				for _, id := range p.incl[x] {
					if !d.sameAttr(id) {
						changed = true
						break
					}
				}
			}
			if changed {
				o.putWCU = units(max(entry[sideOld], entry[sideNew]))
			}
		}
		// The key values, canonical, only for the entries written.
		if o.delWCU > 0 || o.ttl > 0 {
			o.delKey = d.indexKey(sideOld, p.pk[x])
		}
		if o.putWCU > 0 {
			o.putKey = d.indexKey(sideNew, p.pk[x])
		}
		o.delKey.value, o.putKey.value = d.hold(o.delKey.value), d.hold(o.putKey.value)
		o.wcu = o.delWCU + o.putWCU
		is.out = append(is.out, o)
	}
	return first
}

// keyType returns the type of attribute id in image side if it is S, N
// or B, and 0 when the image lacks it or it has another type.
func (d *Decoder) keyType(side, id int) KeyType {
	k := d.is.at[side][id]
	if k == 0 {
		return 0
	}
	b := d.data
	i := d.is.attrs[side][k-1].valStart
	if i+4 < len(b) && b[i] == '{' && b[i+1] == '"' && b[i+3] == '"' { // compact {"S":
		switch b[i+2] {
		case 'S', 'N', 'B':
			return KeyType(b[i+2])
		}
		return 0
	}
	i = skipWS(b, i+1)
	if d.peek(i) != '"' {
		return 0
	}
	save := d.rs.err
	_, tag := d.readTag(i)
	d.rs.err = save
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

// indexKey returns the canonical value of attribute id in image side as an
// index key, or typ 0 when the image lacks it or it is not S, N or B.
func (d *Decoder) indexKey(side, id int) keyRef {
	k := d.is.at[side][id]
	if k == 0 {
		return keyRef{}
	}
	a := &d.is.attrs[side][k-1]
	var ka keyAttr
	if _, _, ok := d.compactKeyValue(a.valStart, &ka); ok {
		return keyRef{value: ka.value, typ: ka.typ}
	}
	b := d.data
	i := skipWS(b, a.valStart+1)
	if d.peek(i) != '"' {
		return keyRef{}
	}
	save := d.rs.err
	defer func() { d.rs.err = save }() // the value was checked when it was sized
	i, tag := d.readTag(i)
	if i < 0 || (tag != tagS && tag != tagN && tag != tagB) {
		return keyRef{}
	}
	i = skipWS(b, i)
	if d.peek(i) != ':' {
		return keyRef{}
	}
	if end, _ := d.keyValue(a.valStart, &ka); end < 0 || d.rs.err != nil || ka.typ == 0 {
		return keyRef{}
	}
	return keyRef{value: ka.value, typ: ka.typ}
}

// sameAttr reports whether attribute id has the same value in both images
// (or is absent from both).
func (d *Decoder) sameAttr(id int) bool {
	kn, ko := d.is.at[sideNew][id], d.is.at[sideOld][id]
	if kn == 0 || ko == 0 {
		return kn == ko
	}
	return d.sameValue(&d.is.attrs[sideNew][kn-1], &d.is.attrs[sideOld][ko-1])
}

// sameValue compares two attribute values: as raw JSON first, then, if
// they are spelled differently, by their canonical hashes (numbers in
// canonical form, strings and binaries decoded, sets and maps unordered).
func (d *Decoder) sameValue(a, b *attrRef) bool {
	ra, rb := d.data[a.valStart:a.valEnd], d.data[b.valStart:b.valEnd]
	if string(ra) == string(rb) {
		return true
	}
	if a.size != b.size { // the names are the same: the values differ in size
		return false
	}
	if plainScalar(ra) && plainScalar(rb) {
		return false // spelled one way only, and spelled differently
	}
	ha, oka := d.canonHash(a.valStart)
	hb, okb := d.canonHash(b.valStart)
	return oka && okb && ha == hb
}

// anyAttrChanged reports whether the images differ in any attribute.
// Stream records are written only for writes that change the item, so
// this is nearly always true; it is computed anyway, for replayed files.
func (d *Decoder) anyAttrChanged() bool {
	if d.rs.newSize != d.rs.oldSize {
		return true
	}
	in, io := d.is.image[sideNew], d.is.image[sideOld]
	if string(d.data[in[0]:in[1]]) == string(d.data[io[0]:io[1]]) {
		return false
	}
	// Spelled differently: compare attribute by attribute.
	var lists [2][]attrRef
	for s, im := range [2][2]int{in, io} {
		lists[s] = d.is.sorted[s][:0]
		if end, _ := d.walkAttrs(im[0], &lists[s], true); end < 0 {
			return true
		}
		d.is.sorted[s] = lists[s]
	}
	an, ao := lists[sideNew], lists[sideOld]
	if len(an) != len(ao) {
		return true
	}
	// Most often the attributes come in the same order.
	inOrder := true
	for k := range an {
		if string(d.attrName(&an[k], 0)) != string(d.attrName(&ao[k], 1)) {
			inOrder = false
			break
		}
		if !d.sameValue(&an[k], &ao[k]) {
			return true
		}
	}
	if inOrder {
		return false
	}
	byName := func(x, y attrRef) int {
		return bytesCompare(d.attrName(&x, 0), d.attrName(&y, 1))
	}
	slices.SortFunc(an, byName)
	slices.SortFunc(ao, byName)
	for k := range an {
		if string(d.attrName(&an[k], 0)) != string(d.attrName(&ao[k], 1)) || !d.sameValue(&an[k], &ao[k]) {
			return true
		}
	}
	return false
}

func bytesCompare(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

// deliverIndexes fills r.Indexes from the results held at first.
func (d *Decoder) deliverIndexes(r *Record, first int32) {
	for x := range d.ix.defs {
		o := &d.is.out[int(first)+x]
		w := IndexWrite{Index: d.ix.defs[x].Name, WCU: o.wcu, Exact: o.exact, TTLWCU: o.ttl}
		if o.delKey.typ != 0 {
			w.Delete = IndexEntry{Key: Key{Type: o.delKey.typ, Value: d.bytesOf(o.delKey.value)}, WCU: o.delWCU}
		}
		if o.putKey.typ != 0 {
			w.Put = IndexEntry{Key: Key{Type: o.putKey.typ, Value: d.bytesOf(o.putKey.value)}, WCU: o.putWCU}
		}
		r.Indexes = append(r.Indexes, w)
	}
}

// plainScalar reports whether raw is an attribute value with a single
// spelling: a compact {"S":"…"} of ASCII without escapes, or a compact
// {"N":"…"} integer without sign or leading zero. Two such values that are
// spelled differently are different values.
func plainScalar(raw []byte) bool {
	if len(raw) < 8 || raw[0] != '{' || raw[1] != '"' || raw[3] != '"' || raw[4] != ':' || raw[5] != '"' ||
		raw[len(raw)-2] != '"' || raw[len(raw)-1] != '}' {
		return false
	}
	v := raw[6 : len(raw)-2]
	switch raw[2] {
	case 'S':
		for _, c := range v {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				return false
			}
		}
		return true
	case 'N':
		if len(v) == 0 || v[0] == '0' {
			return false
		}
		for _, c := range v {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return false
}
