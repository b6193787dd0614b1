package record

// Charging a record's write to each index: the GSI rules (see index.go).

// chargeIndexes computes what the current record cost each index, and
// appends to d.is.out the writes that touched one; it returns the position
// of the first and how many there are.
func (d *Decoder) chargeIndexes() (first, n int32) {
	p, rs, is := d.ix, &d.rs, &d.is
	first = int32(len(is.out))
	have := [2]bool{rs.newSize >= 0, rs.oldSize >= 0}
	// need: the images the rules read for this event are there, so that
	// an index the item is in by neither image costs nothing, exactly.
	var need bool
	switch {
	case rs.eventName == Remove && rs.ttlType && rs.ttlPrinc, rs.eventName == Remove:
		need = have[sideOld]
	case rs.eventName == Insert:
		need = have[sideNew]
	default:
		need = have[sideNew] && have[sideOld]
	}
	allChanged := -1 // unknown yet
	for x := range p.ix {
		def := &p.ix[x]
		// in[s]: image s shows the item in the index.
		in := [2]bool{have[sideNew] && d.inIndex(sideNew, def), have[sideOld] && d.inIndex(sideOld, def)}
		if need && !in[sideNew] && !in[sideOld] {
			continue // the index's blank write: not listed
		}
		c := d.applyRules(def, have, in, &allChanged)
		if c.exact && c.del == 0 && c.put == 0 && c.ttl == 0 {
			continue // the index's blank write: not listed
		}
		o := ixOut{x: int32(x), delWCU: uint32(c.del), putWCU: uint32(c.put), ttl: uint32(c.ttl), exact: c.exact}
		// The key values, canonical, only for the entries written.
		if c.del > 0 || c.ttl > 0 {
			k := d.indexKey(sideOld, def.pk)
			k.value = d.hold(k.value)
			o.del = k.held()
		}
		if c.put > 0 {
			k := d.indexKey(sideNew, def.pk)
			k.value = d.hold(k.value)
			o.put = k.held()
		}
		is.out = append(is.out, o)
	}
	return first, int32(len(is.out)) - first
}

// entrySize is the size of the item's entry in index def by image s: the
// table's key attributes, the index's key attributes that are not table
// keys, and the projected attributes (for ALL: the whole item).
func (d *Decoder) entrySize(def *ixDef, s int) int {
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

// charge is what a write cost one index, in WCU.
type charge struct {
	del, put, ttl uint64
	exact         bool
}

// applyRules decides what the write cost index def, from which images
// there are (have) and whether each shows the item in the index (in).
// allChanged caches, across the record's indexes, whether any attribute
// changed (-1: not known yet).
func (d *Decoder) applyRules(def *ixDef, have, in [2]bool, allChanged *int) charge {
	rs := &d.rs
	entry := func(s int) uint64 { return units(d.entrySize(def, s)) }
	c := charge{exact: true}
	switch {
	case rs.eventName == Remove && rs.ttlType && rs.ttlPrinc: // a TTL delete: free
		if have[sideOld] && in[sideOld] {
			c.ttl = entry(sideOld)
		}
		c.exact = have[sideOld]
	case rs.eventName == Insert:
		if !have[sideNew] {
			c.exact = false
		} else if in[sideNew] {
			c.put = entry(sideNew)
		}
	case rs.eventName == Remove:
		if !have[sideOld] {
			c.exact = false
		} else if in[sideOld] {
			c.del = entry(sideOld)
		}
	case !have[sideNew] || !have[sideOld]:
		c.exact = false
	case in[sideOld] && !in[sideNew]:
		c.del = entry(sideOld)
	case !in[sideOld] && in[sideNew]:
		c.put = entry(sideNew)
	case !in[sideOld]: // in neither
	case !d.sameAttr(def.pk) || (def.sk >= 0 && !d.sameAttr(def.sk)):
		c.del = entry(sideOld)
		c.put = entry(sideNew)
	default: // the same key: did a projected attribute change?
		changed := false
		switch {
		case def.all:
			if *allChanged < 0 {
				*allChanged = 0
				if d.anyAttrChanged() {
					*allChanged = 1
				}
			}
			changed = *allChanged == 1
		default:
			for _, id := range def.incl {
				if !d.sameAttr(id) {
					changed = true
					break
				}
			}
		}
		if changed {
			// units is monotonic: the larger entry's units are the larger.
			c.put = max(entry(sideOld), entry(sideNew))
		}
	}
	return c
}

// inIndex reports whether image side has every key attribute of index
// def, as S, N or B. It is small enough to inline.
func (d *Decoder) inIndex(side int, def *ixDef) bool {
	slots, gen := d.is.slots[side], d.is.gen[side]
	if a := &slots[def.pk]; a.gen != gen || a.typ == 0 {
		return false
	}
	if def.sk < 0 {
		return true
	}
	b := &slots[def.sk]
	return b.gen == gen && b.typ != 0
}

// valueKeyType returns the type of the attribute value object at i if it
// is S, N or B; 0 otherwise. The value has been checked already.
func (d *Decoder) valueKeyType(i int) KeyType {
	b := d.data
	i = skipWS(b, i+1)
	if d.peek(i) != '"' {
		return 0
	}
	save := d.rs.err
	_, tag := d.readTag(i)
	d.rs.err = save
	return tagKeyType(tag)
}

// indexKey returns the canonical value of attribute id in image side as an
// index key, or typ 0 when the image lacks it or it is not S, N or B.
func (d *Decoder) indexKey(side, id int) keyRef {
	a := d.attr(side, id)
	if a == nil {
		return keyRef{}
	}
	switch a.str { // a compact {"S":"…"}: its string's quotes are at valStart+5 and valEnd-2
	case strRaw:
		return keyRef{value: span{a.valStart + 6, a.valEnd - 2, true}, typ: String}
	case strCoded:
		start := len(d.scratch)
		d.scratch = appendString(d.scratch, d.data, a.valStart+5, a.valEnd-1)
		return keyRef{value: span{start, len(d.scratch), false}, typ: String}
	}
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

// deliverIndexes fills r.Indexes from the n results held at first: the
// writes that touched an index, in the indexes' order.
func (d *Decoder) deliverIndexes(r *Record, first, n int32) {
	r.Indexes = r.Indexes[:0]
	for _, o := range d.is.out[first : first+n] {
		r.Indexes = append(r.Indexes, IndexWrite{
			Index:  d.ix.defs[o.x].Name,
			WCU:    uint64(o.delWCU) + uint64(o.putWCU),
			Exact:  o.exact,
			TTLWCU: uint64(o.ttl),
		})
		w := &r.Indexes[len(r.Indexes)-1]
		if o.del.typ != 0 {
			w.Delete = IndexEntry{Key: Key{Type: o.del.typ, Value: d.heldBytes(o.del)}, WCU: uint64(o.delWCU)}
		}
		if o.put.typ != 0 {
			w.Put = IndexEntry{Key: Key{Type: o.put.typ, Value: d.heldBytes(o.put)}, WCU: uint64(o.putWCU)}
		}
	}
}
