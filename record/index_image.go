package record

import (
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// The top-level attributes of a record's images that the indexes need,
// listed while the image is sized: where each value is, its size, and
// whether it could be a key.

// imageAttrs is the decoder's per-record scratch for index analysis.
type imageAttrs struct {
	// slots holds, per image (NewImage 0, OldImage 1) and per tracked name
	// id, the image's top-level attribute of that name: the one whose gen
	// is gen[side], the image's number. Other slots are stale (the image
	// lacks the name), so nothing is cleared per image.
	slots  [2][]imgAttr
	gen    [2]uint32
	list   []attrRef    // the general scanner's attributes, before they go to slots
	spans  [2][2]int    // each image's JSON, [start, end) in the payload
	names  [2][]byte    // decoded escaped names (attrName)
	sorted [2][]attrRef // attrs sorted by name (anyAttrChanged)
	canon  []byte       // a canonical number or decoded binary (canonHash)
}

// imgAttr is what the index rules need of a top-level attribute: where its
// value is, its size, and what kind of key it could be. imageAttrs.slots
// holds them by name id.
type imgAttr struct {
	valStart, valEnd int         // its attribute value object
	size             int         // name + value, by the item-size rules
	gen              uint32      // in imageAttrs.slots: the image it was read from
	typ              ddb.KeyType // its value's type if S, N or B (as a key); 0 otherwise
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

// attrRef locates a top-level attribute of an image in the payload.
type attrRef struct {
	nameStart, nameEnd int // the name's JSON string, quotes included
	id                 int // the name's id in the indexPlan; -1 for a name no index needs
	imgAttr
}

// indexedItem sizes the image at i, as item does, and puts in
// d.images.slots[side] its top-level attributes whose names the indexes
// need.
func (d *Decoder) indexedItem(i, side int) (int, int) {
	end, size := d.itemAttrs(i, side)
	d.images.spans[side] = [2]int{i, end}
	return end, size
}

// itemAttrs sizes the image at i with the fast scanner if it can, else
// with the general one, noting the attributes the indexes need.
func (d *Decoder) itemAttrs(i, side int) (int, int) {
	slots := d.newImageSlots(side)
	if end, size, ok := d.sizeFast(i, slots, d.images.gen[side]); ok {
		return end, size
	}
	slots = d.newImageSlots(side) // forget what the fast scanner put there
	d.images.list = d.images.list[:0]
	end, size, _ := d.sizeAttrs(i, 0, &d.images.list, false)
	for _, a := range d.images.list {
		a.gen = d.images.gen[side]
		slots[a.id] = a.imgAttr
	}
	return end, size
}

// newImageSlots starts a new image on side: no attribute in its slots.
func (d *Decoder) newImageSlots(side int) []imgAttr {
	im := &d.images
	if len(im.slots[side]) != len(d.plan.names) {
		im.slots[side] = make([]imgAttr, len(d.plan.names))
	}
	if im.gen[side]++; im.gen[side] == 0 { // wrapped: make every slot stale
		clear(im.slots[side])
		im.gen[side] = 1
	}
	return im.slots[side]
}

// attr returns the attribute of tracked name id in image side, or nil.
func (d *Decoder) attr(side, id int) *imgAttr {
	if a := &d.images.slots[side][id]; a.gen == d.images.gen[side] {
		return a
	}
	return nil
}

// attrID returns the indexPlan id of the attribute name whose JSON string
// is b[q:end], plain when it holds no escape; -1 when no index needs it.
func (d *Decoder) attrID(q, end int, plain bool) int {
	b := d.scan.Bytes()
	if plain {
		return d.plan.lookup(b[q+1 : end-1])
	}
	d.images.names[0] = jsonscan.AppendString(d.images.names[0][:0], b, q, end)
	return d.plan.lookup(d.images.names[0])
}

// valueKeyType returns the type of the attribute value object at i if it
// is S, N or B; 0 otherwise. The value has been checked already.
func (d *Decoder) valueKeyType(i int) ddb.KeyType {
	i = jsonscan.SkipWS(d.scan.Bytes(), i+1)
	if d.scan.Peek(i) != '"' {
		return 0
	}
	_, tag := d.readTag(i)
	return tagKeyType(tag)
}

// tagKeyType is the KeyType of a type tag; 0 for a type no key can have.
func tagKeyType(tag int) ddb.KeyType {
	switch tag {
	case tagS:
		return ddb.String
	case tagN:
		return ddb.Number
	case tagB:
		return ddb.Binary
	}
	return 0
}

// attrName returns the decoded name of a, in buffer buf (0 or 1) when it
// needs decoding: valid until the next call with that buffer.
func (d *Decoder) attrName(a *attrRef, buf int) []byte {
	b := d.scan.Bytes()
	if jsonscan.PlainString(b, a.nameStart) == a.nameEnd {
		return b[a.nameStart+1 : a.nameEnd-1]
	}
	d.images.names[buf] = jsonscan.AppendString(d.images.names[buf][:0], b, a.nameStart, a.nameEnd)
	return d.images.names[buf]
}
