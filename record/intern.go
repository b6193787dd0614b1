package record

import "bytes"

// Strings a batch repeats in every record (the table's ARN, the stream view
// type) become Go strings once: remembered as the JSON they were read from,
// and interned by value.

// maxInterned bounds the interning maps against hostile input.
const maxInterned = 1024

// repeated remembers the raw JSON of a string member's last value and what
// it decoded to: in a batch the next record nearly always has the same
// table ARN and view type, and one comparison then settles it.
type repeated struct {
	raw   []byte // with its quotes; nil when nothing is remembered
	value string
}

// match reports whether the value at i is the remembered one, and its end.
func (r *repeated) match(b []byte, i int) (int, bool) {
	if len(r.raw) == 0 || len(b)-i < len(r.raw) || !bytes.Equal(b[i:i+len(r.raw)], r.raw) {
		return 0, false
	}
	return i + len(r.raw), true
}

func (r *repeated) remember(raw []byte, value string) {
	r.raw = append(r.raw[:0], raw...)
	r.value = value
}

// viewType interns a StreamViewType.
func (d *Decoder) viewType(s []byte) string {
	switch string(s) {
	case "NEW_AND_OLD_IMAGES":
		return "NEW_AND_OLD_IMAGES"
	case "NEW_IMAGE":
		return "NEW_IMAGE"
	case "OLD_IMAGE":
		return "OLD_IMAGE"
	case "KEYS_ONLY":
		return "KEYS_ONLY"
	}
	return intern(d.views, s)
}

// tableName returns the table of a stream ARN,
// arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL, interned; "" if
// the ARN names no table.
func (d *Decoder) tableName(arn []byte) string {
	k := bytes.Index(arn, []byte(":table/"))
	if k < 0 {
		return ""
	}
	name := arn[k+len(":table/"):]
	if j := bytes.IndexByte(name, '/'); j >= 0 {
		name = name[:j]
	}
	return intern(d.tables, name)
}

// internTable interns a change record's tableName.
func (d *Decoder) internTable(name []byte) string { return intern(d.tables, name) }

// intern returns s as a string, allocating only the first time it is seen
// (up to maxInterned distinct strings).
func intern(m map[string]string, s []byte) string {
	if t, ok := m[string(s)]; ok {
		return t
	}
	t := string(s)
	if len(m) < maxInterned {
		m[t] = t
	}
	return t
}
