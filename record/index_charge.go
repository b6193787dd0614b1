package record

import (
	"slices"
)

// Charging a record's write to each index: the GSI rules (see index.go).

// chargeIndexes computes what the current record cost each index, and
// appends it to d.is.out; it returns the position of the first.
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
	allChanged := -1 // unknown yet
	for x := range p.defs {
		// in[s]: image s shows the item in the index; entry[s]: its entry.
		var in [2]bool
		var entry [2]int
		for s := range 2 {
			if have[s] {
				in[s] = d.keyType(s, p.pk[x]) != 0 && (p.sk[x] < 0 || d.keyType(s, p.sk[x]) != 0)
			}
			if in[s] {
				entry[s] = d.entrySize(x, s, tableKey)
			}
		}
		o := d.applyRules(x, have, in, entry, &allChanged)
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

// entrySize is the size of the item's entry in index x by image s: the
// table's key attributes, the index's key attributes that are not table
// keys, and the projected attributes (for ALL: the whole item).
func (d *Decoder) entrySize(x, s int, tableKey [2]int) int {
	p, rs, is := d.ix, &d.rs, &d.is
	if p.defs[x].Projection == ProjectAll {
		if s == sideOld {
			return rs.oldSize
		}
		return rs.newSize
	}
	isTableKey := func(id int) bool { return id >= 0 && (id == tableKey[0] || id == tableKey[1]) }
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
	return e
}

// applyRules decides what the write cost index x, from which images there
// are (have), whether each shows the item in the index (in) and the
// entries' sizes. allChanged caches, across the record's indexes, whether
// any attribute changed (-1: not known yet).
func (d *Decoder) applyRules(x int, have, in [2]bool, entry [2]int, allChanged *int) ixOut {
	p, rs := d.ix, &d.rs
	o := ixOut{exact: true}
	switch {
	case rs.eventName == Remove && rs.ttlType && rs.ttlPrinc: // a TTL delete: free
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
		switch p.defs[x].Projection {
		case ProjectAll:
			if *allChanged < 0 {
				*allChanged = 0
				if d.anyAttrChanged() {
					*allChanged = 1
				}
			}
			changed = *allChanged == 1
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
	return o
}

// keyType returns the type of attribute id in image side if it is S, N
// or B, and 0 when the image lacks it or it has another type.
func (d *Decoder) keyType(side, id int) KeyType {
	if k := d.is.at[side][id]; k > 0 {
		return d.is.attrs[side][k-1].typ
	}
	return 0
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
