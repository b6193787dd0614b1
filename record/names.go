package record

import "encoding/binary"

// Field names of stream records and Lambda events, as small integers, so
// that each member is matched once. Lambda writes compact JSON, so the
// decoder first compares the literal `"name":` at the key's quote, 8 bytes
// at a time; anything else (whitespace, escapes, unknown names) goes
// through fieldID.
const (
	fUnknown = iota
	// A record.
	fEventID
	fEventName
	fEventSourceARN
	fDynamodb
	fUserIdentity
	fEventVersion // known, and skipped
	fEventSource  // known, and skipped
	fAWSRegion    // known, and skipped
	// An event envelope.
	fRecords
	fWindow
	fState
	fShardID
	fIsFinalInvokeForWindow
	fIsWindowTerminatedEarly
	// A record's dynamodb.
	fKeys
	fNewImage
	fOldImage
	fSequenceNumber
	fSizeBytes
	fStreamViewType
	fApproximateCreationDateTime
	// A record's userIdentity.
	fType
	fPrincipalID
)

// fieldID names a member key of an object of the given kind.
func fieldID(kind int, key []byte) int {
	switch kind {
	case kindTop, kindRecord:
		switch string(key) {
		case "eventID":
			return fEventID
		case "eventName":
			return fEventName
		case "eventSourceARN":
			return fEventSourceARN
		case "dynamodb":
			return fDynamodb
		case "userIdentity":
			return fUserIdentity
		}
		if kind == kindTop {
			switch string(key) {
			case "Records":
				return fRecords
			case "window":
				return fWindow
			case "state":
				return fState
			case "shardId":
				return fShardID
			case "isFinalInvokeForWindow":
				return fIsFinalInvokeForWindow
			case "isWindowTerminatedEarly":
				return fIsWindowTerminatedEarly
			}
		}
	case kindDynamo:
		switch string(key) {
		case "Keys":
			return fKeys
		case "NewImage":
			return fNewImage
		case "OldImage":
			return fOldImage
		case "SequenceNumber":
			return fSequenceNumber
		case "SizeBytes":
			return fSizeBytes
		case "StreamViewType":
			return fStreamViewType
		case "ApproximateCreationDateTime":
			return fApproximateCreationDateTime
		}
	case kindIdentity:
		switch string(key) {
		case "type":
			return fType
		case "principalId":
			return fPrincipalID
		}
	}
	return fUnknown
}

// literal is a compact member key, `"name":`, as little-endian words:
// word k holds bytes 8k to 8k+7, and the last word the last 8 bytes.
type literal struct {
	n     int
	words [4]uint64
}

// at reports whether b holds l at i, given that its first word matches.
// Literals shorter than 8 bytes need 8 bytes of b anyway.
func (l *literal) at(b []byte, i int) bool {
	if len(b)-i < max(l.n, 8) {
		return false
	}
	if l.n < 8 {
		return binary.LittleEndian.Uint64(b[i:])&(1<<(8*l.n)-1) == l.words[0]
	}
	last := (l.n - 1) / 8
	for k := 1; k < last; k++ { // word 0 is matchField's switch
		if binary.LittleEndian.Uint64(b[i+8*k:]) != l.words[k] {
			return false
		}
	}
	return binary.LittleEndian.Uint64(b[i+l.n-8:]) == l.words[last]
}

func newLiteral(s string) literal {
	l := literal{n: len(s)}
	if len(s) < 8 {
		var p [8]byte
		copy(p[:], s)
		l.words[0] = binary.LittleEndian.Uint64(p[:])
		return l
	}
	for k := 0; k*8 < len(s); k++ {
		off := min(8*k, len(s)-8)
		l.words[k] = binary.LittleEndian.Uint64([]byte(s[off : off+8]))
	}
	return l
}

// lits holds `"name":` of the fields matchField knows, by field.
var lits [fPrincipalID + 1]literal

func init() {
	for id, name := range map[int]string{
		fEventID:                     "eventID",
		fEventName:                   "eventName",
		fEventVersion:                "eventVersion",
		fEventSource:                 "eventSource",
		fEventSourceARN:              "eventSourceARN",
		fAWSRegion:                   "awsRegion",
		fDynamodb:                    "dynamodb",
		fUserIdentity:                "userIdentity",
		fKeys:                        "Keys",
		fNewImage:                    "NewImage",
		fOldImage:                    "OldImage",
		fSequenceNumber:              "SequenceNumber",
		fSizeBytes:                   "SizeBytes",
		fStreamViewType:              "StreamViewType",
		fApproximateCreationDateTime: "ApproximateCreationDateTime",
	} {
		lits[id] = newLiteral(`"` + name + `":`)
	}
}

// matchField tries the compact `"name":` of the fields Lambda writes, at
// the quote i. It returns the field and the position after the colon, or
// fUnknown and i.
func matchField(b []byte, i, kind int) (int, int) {
	if len(b)-i < 16 {
		return fUnknown, i
	}
	w := binary.LittleEndian.Uint64(b[i:]) // the quote and 7 bytes
	var id int
	switch kind {
	case kindRecord, kindTop:
		switch w {
		case lits[fEventID].words[0]:
			id = fEventID
		case lits[fEventName].words[0]:
			id = fEventName
		case lits[fEventVersion].words[0]:
			id = fEventVersion
		case lits[fEventSource].words[0]: // and eventSourceARN
			id = fEventSource
			if !lits[id].at(b, i) {
				id = fEventSourceARN
			}
		case lits[fUserIdentity].words[0]:
			id = fUserIdentity
		case lits[fAWSRegion].words[0]:
			id = fAWSRegion
		case lits[fDynamodb].words[0]:
			id = fDynamodb
		}
	case kindDynamo:
		switch w {
		case lits[fNewImage].words[0]:
			id = fNewImage
		case lits[fOldImage].words[0]:
			id = fOldImage
		case lits[fSequenceNumber].words[0]:
			id = fSequenceNumber
		case lits[fSizeBytes].words[0]:
			id = fSizeBytes
		case lits[fStreamViewType].words[0]:
			id = fStreamViewType
		case lits[fApproximateCreationDateTime].words[0]:
			id = fApproximateCreationDateTime
		default:
			if w&(1<<56-1) == lits[fKeys].words[0] { // `"Keys":` is 7 bytes
				id = fKeys
			}
		}
	}
	if id == fUnknown || !lits[id].at(b, i) {
		return fUnknown, i
	}
	return id, i + lits[id].n
}

// at reports whether b holds the string lit at i.
func at(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
