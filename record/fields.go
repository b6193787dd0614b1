package record

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// The fields of a stream record, as members decodes them: the record's
// own (eventName, eventID, eventSourceARN, userIdentity, dynamodb) and
// those of its "dynamodb" object. Keys are keys.go's, the images are sized
// by size.go (or, with indexes, index_image.go), and the numbers of times
// and sizes are read by epoch.go.

// recState is what has been read of the current record.
type recState struct {
	err        error // first reason the record is malformed
	eventName  EventName
	haveName   bool
	haveDynamo bool
	haveKeys   bool
	byService  bool // userIdentity.type == "Service"
	byDynamoDB bool // userIdentity.principalId == "dynamodb.amazonaws.com"
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

// ttlDelete reports whether the record is a delete by DynamoDB's TTL
// process: a REMOVE by the service principal dynamodb.amazonaws.com.
func (rs *recState) ttlDelete() bool {
	return rs.eventName == Remove && rs.byService && rs.byDynamoDB
}

func (d *Decoder) resetRecord() {
	d.rs = recState{newSize: -1, oldSize: -1}
	if !d.queueing { // queued records keep their bytes in scratch
		d.scratch = d.scratch[:0]
		d.writes = d.writes[:0]
	}
	d.where = "record"
}

// recordMember decodes a member of a stream record. The compact spellings
// Lambda writes are read here; any other goes to a function of its own.
func (d *Decoder) recordMember(id, i int) int {
	b := d.scan.Bytes()
	switch id {
	case fEventName:
		if len(b)-i >= 8 { // compact `"INSERT"` and the others are 8 bytes
			w := binary.LittleEndian.Uint64(b[i:])
			for e, word := range eventNameWords {
				if w == word && e != 0 {
					d.rs.haveName, d.rs.eventName = true, EventName(e)
					return i + 8
				}
			}
		}
		return d.eventName(i)
	case fEventID:
		end, sp := d.copyString(i, "eventID")
		d.rs.eventID = sp
		return end
	case fEventSourceARN:
		if end, ok := d.lastARN.match(b, i); ok {
			d.rs.table = d.lastARN.value
			return end
		}
		return d.rememberString(i, "eventSourceARN", &d.lastARN, &d.rs.table, d.tableName)
	case fDynamodb:
		if d.scan.Peek(i) == '{' {
			d.rs.haveDynamo = true
			return d.members(i, kindDynamo)
		}
		return d.notObject(i, "dynamodb")
	case fUserIdentity:
		if d.scan.Peek(i) == '{' {
			return d.members(i, kindIdentity)
		}
		return d.notObject(i, "userIdentity")
	}
	// eventVersion, eventSource, awsRegion: plain strings, skipped.
	if d.scan.Peek(i) == '"' {
		if end := jsonscan.PlainString(b, i); end >= 0 {
			return end
		}
	}
	return d.scan.SkipValue(i)
}

// notObject skips the value at i of field, which is not an object, and
// flags the record malformed unless it is null.
func (d *Decoder) notObject(i int, field string) int {
	if d.scan.Peek(i) == 'n' {
		return d.scan.Literal(i, "null")
	}
	d.where = field
	d.bad(ErrFieldType, i)
	return d.scan.SkipValue(i)
}

// eventName decodes the record's eventName at i, spelled otherwise than
// Lambda does.
func (d *Decoder) eventName(i int) int {
	if d.scan.Peek(i) != '"' {
		end, _ := d.copyString(i, "eventName")
		return end
	}
	end, s := d.scan.StringBytes(i)
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
}

// eventNameWords holds, by EventName, the compact JSON of the name: 8 bytes
// with its quotes, read as a little-endian word.
var eventNameWords [Remove + 1]uint64

func init() {
	for _, e := range []EventName{Insert, Modify, Remove} {
		eventNameWords[e] = binary.LittleEndian.Uint64([]byte(`"` + e.String() + `"`))
	}
}

// rememberString decodes the string at i of field, the record's
// eventSourceARN or StreamViewType, into what conv makes of it, kept in
// *dst, and remembers both for the next record (see repeated).
func (d *Decoder) rememberString(i int, field string, r *repeated, dst *string, conv func([]byte) string) int {
	if d.scan.Peek(i) != '"' {
		end, _ := d.copyString(i, field)
		return end
	}
	end, s := d.scan.StringBytes(i)
	*dst = conv(s)
	if end >= 0 {
		r.remember(d.scan.Bytes()[i:end], *dst)
	}
	return end
}

// identityMember decodes a member of userIdentity, which marks TTL deletes.
func (d *Decoder) identityMember(id, i int) int {
	var want string
	var flag *bool
	switch id {
	case fType, fTypeAPI:
		want, flag = "Service", &d.rs.byService
	case fPrincipalID, fPrincipalIDAPI:
		want, flag = "dynamodb.amazonaws.com", &d.rs.byDynamoDB
	default:
		return d.scan.SkipValue(i)
	}
	if d.scan.Peek(i) != '"' {
		return d.scan.SkipValue(i) // not a TTL delete, and harmless
	}
	end, s := d.scan.StringBytes(i)
	*flag = string(s) == want
	return end
}

// dynamoMember decodes a member of a record's "dynamodb".
func (d *Decoder) dynamoMember(id, i int) int {
	switch id {
	case fKeys:
		d.where = "dynamodb.Keys"
		switch d.scan.Peek(i) {
		case '{':
			d.rs.haveKeys = true
			return d.keys(i)
		case 'n':
			d.rs.haveKeys = false
			return d.scan.Literal(i, "null")
		}
		d.bad(ErrFieldType, i)
		return d.scan.SkipValue(i)
	case fNewImage:
		d.where = "dynamodb.NewImage"
		end, size := d.image(i, sideNew)
		d.rs.newSize = size
		return end
	case fOldImage:
		d.where = "dynamodb.OldImage"
		end, size := d.image(i, sideOld)
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
		if end, ok := d.lastView.match(d.scan.Bytes(), i); ok {
			d.rs.viewType = d.lastView.value
			return end
		}
		return d.rememberString(i, "dynamodb.StreamViewType", &d.lastView, &d.rs.viewType, d.viewType)
	}
	return d.scan.SkipValue(i)
}

// Image sides.
const (
	sideNew = 0
	sideOld = 1
)

// image measures the NewImage or OldImage at i; -1 when null. With
// indexes, it also notes the attributes they need (imageAttrs).
func (d *Decoder) image(i, side int) (int, int) {
	switch d.scan.Peek(i) {
	case '{':
		if d.plan != nil {
			return d.indexedItem(i, side)
		}
		return d.item(i)
	case 'n':
		if d.plan != nil {
			d.newImageSlots(side)
		}
		return d.scan.Literal(i, "null"), -1
	}
	d.bad(ErrFieldType, i)
	return d.scan.SkipValue(i), -1
}

// copyString locates the string at i (see stringSpan). null leaves it
// absent; any other type makes the record malformed.
func (d *Decoder) copyString(i int, field string) (int, span) {
	switch d.scan.Peek(i) {
	case '"':
		return d.stringSpan(i)
	case 'n':
		return d.scan.Literal(i, "null"), span{}
	}
	d.where = field
	d.bad(ErrFieldType, i)
	return d.scan.SkipValue(i), span{}
}

// span locates bytes of a record: in the payload when they needed no
// decoding, else copied into the decoder's scratch.
type span struct {
	start, end int
	payload    bool
}

func (d *Decoder) bytesOf(s span) []byte {
	if s.payload {
		return d.scan.Bytes()[s.start:s.end]
	}
	return d.scratch[s.start:s.end]
}

// stringSpan scans the string at q and locates its decoded bytes.
func (d *Decoder) stringSpan(q int) (int, span) {
	b := d.scan.Bytes()
	if end := jsonscan.ShortString(b, q); end >= 0 {
		return end, span{q + 1, end - 1, true}
	}
	if end := jsonscan.PlainString(b, q); end >= 0 {
		return end, span{q + 1, end - 1, true}
	}
	end, _, flags := d.scan.ScanString(q)
	if end < 0 || flags == 0 {
		return end, span{q + 1, end - 1, true}
	}
	start := len(d.scratch)
	d.scratch = jsonscan.AppendString(d.scratch, b, q, end)
	return end, span{start, len(d.scratch), false}
}

// bad records the first reason why the current record is malformed.
func (d *Decoder) bad(cause error, i int) {
	if d.rs.err == nil {
		d.rs.err = fmt.Errorf("%w (%s, byte %d)", cause, d.where, i)
	}
}
