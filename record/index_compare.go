package record

import (
	"bytes"
	"slices"
)

// Whether an attribute changed between a record's images.

// sameAttr reports whether attribute id has the same value in both images
// (or is absent from both).
func (d *Decoder) sameAttr(id int) bool {
	an, ao := d.attr(sideNew, id), d.attr(sideOld, id)
	if an == nil || ao == nil {
		return an == ao
	}
	return d.sameValue(an, ao)
}

// anyAttrChanged reports whether the images differ in any attribute.
// Stream records are written only for writes that change the item, so
// this is nearly always true; it is computed anyway, for replayed files.
func (d *Decoder) anyAttrChanged() bool {
	if d.rs.newSize != d.rs.oldSize {
		return true
	}
	in, io := d.images.spans[sideNew], d.images.spans[sideOld]
	if data := d.scan.Bytes(); string(data[in[0]:in[1]]) == string(data[io[0]:io[1]]) {
		return false
	}
	// Spelled differently: compare attribute by attribute.
	var lists [2][]attrRef
	for s, im := range [2][2]int{in, io} {
		lists[s] = d.images.sorted[s][:0]
		if end, _, _ := d.sizeAttrs(im[0], 0, &lists[s], true); end < 0 {
			return true
		}
		d.images.sorted[s] = lists[s]
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
		if !d.sameValue(&an[k].imgAttr, &ao[k].imgAttr) {
			return true
		}
	}
	if inOrder {
		return false
	}
	byName := func(x, y attrRef) int {
		return bytes.Compare(d.attrName(&x, 0), d.attrName(&y, 1))
	}
	slices.SortFunc(an, byName)
	slices.SortFunc(ao, byName)
	for k := range an {
		if string(d.attrName(&an[k], 0)) != string(d.attrName(&ao[k], 1)) || !d.sameValue(&an[k].imgAttr, &ao[k].imgAttr) {
			return true
		}
	}
	return false
}

// sameValue compares two attribute values: as raw JSON first, then, if
// they are spelled differently, by their canonical hashes (numbers in
// canonical form, strings and binaries decoded, sets and maps unordered).
func (d *Decoder) sameValue(a, b *imgAttr) bool {
	data := d.scan.Bytes()
	ra, rb := data[a.valStart:a.valEnd], data[b.valStart:b.valEnd]
	if string(ra) == string(rb) {
		return true
	}
	if a.size != b.size { // the names are the same: the values differ in size
		return false
	}
	if a.str == strRaw && b.str == strRaw {
		return false // compact strings with nothing to decode, spelled differently
	}
	if plainScalar(ra) && plainScalar(rb) {
		return false // spelled one way only, and spelled differently
	}
	ha, oka := d.canonHash(a.valStart)
	hb, okb := d.canonHash(b.valStart)
	return oka && okb && ha == hb
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
