package record

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"time"
)

// span locates bytes of a record: in the payload when they needed no
// decoding, else copied into the decoder's scratch.
type span struct {
	start, end int
	payload    bool
}

func (d *Decoder) bytesOf(s span) []byte {
	if s.payload {
		return d.data[s.start:s.end]
	}
	return d.scratch[s.start:s.end]
}

// stringSpan scans the string at q and locates its decoded bytes.
func (d *Decoder) stringSpan(q int) (int, span) {
	if end := shortString(d.data, q); end >= 0 {
		return end, span{q + 1, end - 1, true}
	}
	if end := plainString(d.data, q); end >= 0 {
		return end, span{q + 1, end - 1, true}
	}
	end, _, flags := d.scanString(q)
	if end < 0 || flags == 0 {
		return end, span{q + 1, end - 1, true}
	}
	start := len(d.scratch)
	d.scratch = appendString(d.scratch, d.data, q, end)
	return end, span{start, len(d.scratch), false}
}

// recState is what has been read of the current record.
type recState struct {
	err        error // first reason the record is malformed
	eventName  EventName
	haveName   bool
	haveDynamo bool
	haveKeys   bool
	ttlType    bool // userIdentity.type == "Service"
	ttlPrinc   bool // userIdentity.principalId == "dynamodb.amazonaws.com"
	nkeys      int
	keys       [2]keyAttr
	keyIDs     [2]int32 // with indexes, each key's name id in the indexPlan + 1; 0: none
	keysSize   int
	newSize    int
	oldSize    int
	sizeBytes  int64
	time       time.Time
	viewType   string
	eventID    span
	seq        span
	table      string // from eventSourceARN
}

func (d *Decoder) resetRecord() {
	d.rs = recState{newSize: -1, oldSize: -1}
	if !d.queueing { // queued records keep their bytes in scratch
		d.scratch = d.scratch[:0]
		d.is.out = d.is.out[:0]
	}
	d.where = "record"
}

// copyString locates the string at i (see stringSpan). null leaves it
// absent; any other type makes the record malformed.
func (d *Decoder) copyString(i int, field string) (int, span) {
	switch d.peek(i) {
	case '"':
		return d.stringSpan(i)
	case 'n':
		return d.literal(i, "null"), span{}
	}
	d.where = field
	d.bad(ErrFieldType, i)
	return d.skipValue(i), span{}
}

// recordMember decodes a member of a stream record.
func (d *Decoder) recordMember(id, i int) int {
	switch id {
	case fEventName:
		if len(d.data)-i >= 8 { // compact `"INSERT"` and the others are 8 bytes
			w := binary.LittleEndian.Uint64(d.data[i:])
			for e, word := range eventNameWords {
				if w == word && e != 0 {
					d.rs.haveName, d.rs.eventName = true, EventName(e)
					return i + 8
				}
			}
		}
		if d.peek(i) != '"' {
			end, _ := d.copyString(i, "eventName")
			return end
		}
		end, s := d.stringBytes(i)
		d.rs.haveName = true
		switch string(s) {
		case "INSERT":
			d.rs.eventName = Insert
		case "MODIFY":
			d.rs.eventName = Modify
		case "REMOVE":
			d.rs.eventName = Remove
		default:
			d.where = "eventName"
			d.bad(ErrEventName, i)
		}
		return end
	case fEventID:
		end, sp := d.copyString(i, "eventID")
		d.rs.eventID = sp
		return end
	case fEventSourceARN:
		if end, ok := d.lastARN.match(d.data, i); ok {
			d.rs.table = d.lastARN.value
			return end
		}
		if d.peek(i) != '"' {
			end, _ := d.copyString(i, "eventSourceARN")
			return end
		}
		end, s := d.stringBytes(i)
		d.rs.table = d.tableName(s)
		if end >= 0 {
			d.lastARN.remember(d.data[i:end], d.rs.table)
		}
		return end
	case fDynamodb:
		switch d.peek(i) {
		case '{':
			d.rs.haveDynamo = true
			return d.members(i, kindDynamo)
		case 'n':
			return d.literal(i, "null")
		}
		d.where = "dynamodb"
		d.bad(ErrFieldType, i)
		return d.skipValue(i)
	case fUserIdentity:
		switch d.peek(i) {
		case '{':
			return d.members(i, kindIdentity)
		case 'n':
			return d.literal(i, "null")
		}
		d.where = "userIdentity"
		d.bad(ErrFieldType, i)
		return d.skipValue(i)
	}
	// eventVersion, eventSource, awsRegion: plain strings, skipped.
	if d.peek(i) == '"' {
		if end := plainString(d.data, i); end >= 0 {
			return end
		}
	}
	return d.skipValue(i)
}

// identityMember decodes a member of userIdentity, which marks TTL deletes.
func (d *Decoder) identityMember(id, i int) int {
	var want string
	var flag *bool
	switch id {
	case fType:
		want, flag = "Service", &d.rs.ttlType
	case fPrincipalID:
		want, flag = "dynamodb.amazonaws.com", &d.rs.ttlPrinc
	default:
		return d.skipValue(i)
	}
	if d.peek(i) != '"' {
		return d.skipValue(i) // not a TTL delete, and harmless
	}
	end, s := d.stringBytes(i)
	*flag = string(s) == want
	return end
}

// dynamoMember decodes a member of a record's "dynamodb".
func (d *Decoder) dynamoMember(id, i int) int {
	switch id {
	case fKeys:
		d.where = "dynamodb.Keys"
		switch d.peek(i) {
		case '{':
			d.rs.haveKeys = true
			return d.keys(i)
		case 'n':
			d.rs.haveKeys = false
			return d.literal(i, "null")
		}
		d.bad(ErrFieldType, i)
		return d.skipValue(i)
	case fNewImage:
		d.where = "dynamodb.NewImage"
		if d.ix != nil {
			end, size := d.indexImage(i, sideNew)
			d.rs.newSize = size
			return end
		}
		end, size := d.image(i)
		d.rs.newSize = size
		return end
	case fOldImage:
		d.where = "dynamodb.OldImage"
		if d.ix != nil {
			end, size := d.indexImage(i, sideOld)
			d.rs.oldSize = size
			return end
		}
		end, size := d.image(i)
		d.rs.oldSize = size
		return end
	case fSequenceNumber:
		end, sp := d.copyString(i, "dynamodb.SequenceNumber")
		d.rs.seq = sp
		return end
	case fApproximateCreationDateTime:
		return d.creationTime(i)
	case fSizeBytes:
		return d.sizeBytes(i)
	case fStreamViewType:
		if end, ok := d.lastView.match(d.data, i); ok {
			d.rs.viewType = d.lastView.value
			return end
		}
		if d.peek(i) != '"' {
			end, _ := d.copyString(i, "dynamodb.StreamViewType")
			return end
		}
		end, s := d.stringBytes(i)
		d.rs.viewType = d.viewType(s)
		if end >= 0 {
			d.lastView.remember(d.data[i:end], d.rs.viewType)
		}
		return end
	}
	return d.skipValue(i)
}

// image measures NewImage or OldImage at i; -1 when null.
func (d *Decoder) image(i int) (int, int) {
	switch d.peek(i) {
	case '{':
		return d.item(i)
	case 'n':
		return d.literal(i, "null"), -1
	}
	d.bad(ErrFieldType, i)
	return d.skipValue(i), -1
}

// creationTime decodes ApproximateCreationDateTime: epoch seconds, maybe
// fractional. It parses the digits itself so that the nanoseconds are
// exact, and falls back to strconv for exponent notation.
func (d *Decoder) creationTime(i int) int {
	switch c := d.peek(i); {
	case c == 'n':
		return d.literal(i, "null")
	case c != '-' && !isDigit(c):
		d.where = "dynamodb.ApproximateCreationDateTime"
		d.bad(ErrFieldType, i)
		return d.skipValue(i)
	}
	if sec, nsec, end, ok := plainEpoch(d.data, i); ok {
		d.rs.time = time.Unix(sec, nsec).UTC()
		return end
	}
	end := d.scanNumber(i)
	if end < 0 {
		return end
	}
	t, ok := parseEpoch(d.data[i:end])
	if !ok {
		d.where = "dynamodb.ApproximateCreationDateTime"
		d.bad(ErrFieldType, i)
	}
	d.rs.time = t
	return end
}

// plainUint reads the JSON number at i in one pass when it is what Lambda
// writes for times and sizes: at most 18 digits, no leading zero, no sign,
// fraction or exponent. ok is false for anything else, which the general
// path then reads or rejects.
func plainUint(b []byte, i int) (v int64, end int, ok bool) {
	j := i
	for ; j < len(b) && b[j]-'0' <= 9; j++ {
		v = v*10 + int64(b[j]-'0')
	}
	if n := j - i; n == 0 || n > 18 || (n > 1 && b[i] == '0') {
		return 0, -1, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return v, j, false
	}
	return v, j, true
}

// plainEpoch reads epoch seconds at i in one pass when they are plainUint
// seconds with an optional fraction of digits; ok is false otherwise.
func plainEpoch(b []byte, i int) (sec, nsec int64, end int, ok bool) {
	sec, j, ok := plainUint(b, i)
	if ok {
		return sec, 0, j, true
	}
	if j < 0 || b[j] != '.' {
		return 0, 0, 0, false
	}
	j++
	start := j
	for scale := int64(1e8); j < len(b) && b[j]-'0' <= 9; j++ {
		nsec += int64(b[j]-'0') * scale
		scale /= 10
	}
	if j == start || (j < len(b) && (b[j] == 'e' || b[j] == 'E')) {
		return 0, 0, 0, false
	}
	return sec, nsec, j, true
}

// parseEpoch converts a valid JSON number of epoch seconds to a UTC time.
func parseEpoch(b []byte) (time.Time, bool) {
	if hasExponent(b) {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.Abs(f) >= 1<<62 {
			return time.Time{}, false
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var sec, nsec int64
	k := 0
	for ; k < len(b) && b[k] != '.'; k++ {
		if sec = sec*10 + int64(b[k]-'0'); sec >= 1<<62 {
			return time.Time{}, false
		}
	}
	scale := int64(1e8)
	for k++; k < len(b) && scale > 0; k++ {
		nsec += int64(b[k]-'0') * scale
		scale /= 10
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}

func hasExponent(b []byte) bool {
	for _, c := range b {
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// sizeBytes decodes dynamodb.SizeBytes, an integer.
func (d *Decoder) sizeBytes(i int) int {
	switch c := d.peek(i); {
	case c == 'n':
		return d.literal(i, "null")
	case c != '-' && !isDigit(c):
		d.where = "dynamodb.SizeBytes"
		d.bad(ErrFieldType, i)
		return d.skipValue(i)
	}
	if n, end, ok := plainUint(d.data, i); ok {
		d.rs.sizeBytes = n
		return end
	}
	end := d.scanNumber(i)
	if end < 0 {
		return end
	}
	// A valid JSON number: an integer unless it has '.', 'e' or 'E'.
	var n int64
	neg := d.data[i] == '-'
	for _, c := range d.data[i:end] {
		if c == '-' {
			continue
		}
		if !isDigit(c) || n > (math.MaxInt64-9)/10 {
			d.where = "dynamodb.SizeBytes"
			d.bad(ErrFieldType, i)
			return end
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	d.rs.sizeBytes = n
	return end
}

// eventNameWords holds, by EventName, the compact JSON of the name: 8 bytes
// with its quotes, read as a little-endian word.
var eventNameWords [Remove + 1]uint64

func init() {
	for _, e := range []EventName{Insert, Modify, Remove} {
		eventNameWords[e] = binary.LittleEndian.Uint64([]byte(`"` + e.String() + `"`))
	}
}

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
