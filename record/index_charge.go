package record

import (
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Charging a record's write to each index: the facts of the write, from
// the attributes imageAttrs noted in its images, then ddb.ChargeIndex.

// chargeIndexes computes what the current record cost each index, and
// appends to d.writes the writes that touched one; it returns the position
// of the first and how many there are.
func (d *Decoder) chargeIndexes() (first, n int32) {
	rs := &d.rs
	first = int32(len(d.writes))
	kind := rs.eventName.kind(rs.ttlDelete())
	known := [2]bool{rs.newSize >= 0, rs.oldSize >= 0}
	// need: the images the rules read for this event are there, so that
	// an index the item is in by neither image costs nothing, exactly.
	var need bool
	switch kind {
	case ddb.Expired, ddb.Deleted:
		need = known[sideOld]
	case ddb.Created:
		need = known[sideNew]
	default:
		need = known[sideNew] && known[sideOld]
	}
	allChanged := -1 // whether any attribute changed: unknown yet
	for k := range d.plan.indexes {
		def := &d.plan.indexes[k]
		f := ddb.IndexFacts{Kind: kind}
		f.New = ddb.IndexSide{Known: known[sideNew], In: known[sideNew] && d.inIndex(sideNew, def)}
		f.Old = ddb.IndexSide{Known: known[sideOld], In: known[sideOld] && d.inIndex(sideOld, def)}
		if need && !f.New.In && !f.Old.In {
			continue // the index's blank write: not listed
		}
		d.indexFacts(def, &f, &allChanged)
		c := ddb.ChargeIndex(&f)
		if c.Exact && c.WCU() == 0 && c.Expired == 0 {
			continue // the index's blank write: not listed
		}
		// Packed, with the canonical key values of the entries written only.
		w := packedWrite{index: int32(k), delWCU: uint32(c.Delete), putWCU: uint32(c.Put), ttlWCU: uint32(c.Expired), exact: c.Exact}
		if c.Delete > 0 || c.Expired > 0 {
			k := d.indexKey(sideOld, def.pk)
			k.value = d.copyQueued(k.value)
			w.del = k.pack()
		}
		if c.Put > 0 {
			k := d.indexKey(sideNew, def.pk)
			k.value = d.copyQueued(k.value)
			w.put = k.pack()
		}
		d.writes = append(d.writes, w)
	}
	return first, int32(len(d.writes)) - first
}

// indexFacts completes f, whose sides say whether the item is in index
// def, with the facts the rules read of an item in it: the size of its
// entry on each side it is in, and, when it is in on both, whether its
// index key or a projected attribute changed. allChanged caches, across
// the record's indexes, whether any attribute changed (-1: not known yet).
func (d *Decoder) indexFacts(def *compiledIndex, f *ddb.IndexFacts, allChanged *int) {
	if f.Old.In {
		f.Old.Entry = d.entrySize(def, sideOld)
	}
	if f.New.In {
		f.New.Entry = d.entrySize(def, sideNew)
	}
	if !f.Old.In || !f.New.In {
		return
	}
	f.KeyChanged = !d.sameAttr(def.pk) || (def.sk >= 0 && !d.sameAttr(def.sk))
	if f.KeyChanged {
		return
	}
	if def.all {
		if *allChanged < 0 {
			*allChanged = 0
			if d.anyAttrChanged() {
				*allChanged = 1
			}
		}
		f.ProjectedChanged = *allChanged == 1
		return
	}
	for _, id := range def.included {
		if !d.sameAttr(id) {
			f.ProjectedChanged = true
			return
		}
	}
}

// entrySize is the size of the item's entry in index def by image s: the
// table's key attributes, the index's key attributes that are not table
// keys, and the projected attributes (for ALL: the whole item).
func (d *Decoder) entrySize(def *compiledIndex, s int) int {
	rs := &d.rs
	if def.all {
		if s == sideOld {
			return rs.oldSize
		}
		return rs.newSize
	}
	e := rs.keysSize
	for _, id := range def.entry {
		if k := int32(id + 1); k == rs.keyIDs[0] || k == rs.keyIDs[1] {
			continue // a table key: KeysSize has it
		}
		if a := d.attr(s, id); a != nil {
			e += a.size
		}
	}
	return e
}

// inIndex reports whether image side has every key attribute of index
// def, as S, N or B. It is small enough to inline.
func (d *Decoder) inIndex(side int, def *compiledIndex) bool {
	slots, gen := d.images.slots[side], d.images.gen[side]
	if a := &slots[def.pk]; a.gen != gen || a.typ == 0 {
		return false
	}
	if def.sk < 0 {
		return true
	}
	b := &slots[def.sk]
	return b.gen == gen && b.typ != 0
}

// indexKey returns the canonical value of attribute id in image side as an
// index key, or typ 0 when the image lacks it or it is not S, N or B.
func (d *Decoder) indexKey(side, id int) keyRef {
	a := d.attr(side, id)
	if a == nil || a.typ == 0 {
		return keyRef{}
	}
	switch a.str { // a compact {"S":"…"}: its string's quotes are at valStart+5 and valEnd-2
	case strRaw:
		return keyRef{value: span{a.valStart + 6, a.valEnd - 2, true}, typ: ddb.String}
	case strCoded:
		start := len(d.scratch)
		d.scratch = jsonscan.AppendString(d.scratch, d.scan.Bytes(), a.valStart+5, a.valEnd-1)
		return keyRef{value: span{start, len(d.scratch), false}, typ: ddb.String}
	}
	var ka keyAttr
	if _, _, ok := d.compactKeyValue(a.valStart, &ka); !ok {
		// Spelled otherwise: decoded as Keys are. It was checked when it was sized.
		save := d.rs.err
		if end, _ := d.keyValue(a.valStart, &ka); end < 0 || d.rs.err != nil {
			ka.typ = 0
		}
		d.rs.err = save
	}
	return keyRef{value: ka.value, typ: ka.typ}
}

// deliverIndexes fills r.Indexes from the n writes packed at first: the
// writes that touched an index, in the indexes' order.
func (d *Decoder) deliverIndexes(r *Record, first, n int32) {
	r.Indexes = r.Indexes[:0]
	for _, w := range d.writes[first : first+n] {
		r.Indexes = append(r.Indexes, IndexWrite{
			Index:  d.plan.defs[w.index].Name,
			WCU:    uint64(w.delWCU) + uint64(w.putWCU),
			Exact:  w.exact,
			TTLWCU: uint64(w.ttlWCU),
		})
		iw := &r.Indexes[len(r.Indexes)-1]
		if w.del.typ != 0 {
			iw.Delete = ddb.IndexEntry{Key: ddb.Key{Type: w.del.typ, Value: d.bytesOf(w.del.span())}, WCU: uint64(w.delWCU)}
		}
		if w.put.typ != 0 {
			iw.Put = ddb.IndexEntry{Key: ddb.Key{Type: w.put.typ, Value: d.bytesOf(w.put.span())}, WCU: uint64(w.putWCU)}
		}
	}
}

// packedWrite is an IndexWrite of a queued record, packed in offsets; only
// a write that touched the index (see Record.Indexes) has one, so that a
// batch's results stay small enough to stay in cache. Units fit in 32
// bits: finishRecord rejects items over 2^31 bytes, so an entry is under
// 2^32 bytes.
type packedWrite struct {
	del, put       packedKey
	delWCU, putWCU uint32
	ttlWCU         uint32
	index          int32 // in the plan
	exact          bool
}

// packedKey is a keyRef in 16 bytes.
type packedKey struct {
	start   int
	n       uint32 // attribute values are under 2^31 bytes (finishRecord)
	typ     ddb.KeyType
	payload bool
}

func (k keyRef) pack() packedKey {
	return packedKey{start: k.value.start, n: uint32(k.value.end - k.value.start), typ: k.typ, payload: k.value.payload}
}

func (k packedKey) span() span { return span{k.start, k.start + int(k.n), k.payload} }
