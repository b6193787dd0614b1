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
	fNextShardIterator // of a GetRecords output, whose Records lack eventSourceARN
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
	// The same, as the GetRecords API spells them (AWS CLI's output).
	fTypeAPI
	fPrincipalIDAPI
	fLast = fPrincipalIDAPI
)

// fieldNames spells each field as its JSON key.
var fieldNames = [fLast + 1]string{
	fEventID: "eventID", fEventName: "eventName", fEventSourceARN: "eventSourceARN", fDynamodb: "dynamodb",
	fUserIdentity: "userIdentity", fEventVersion: "eventVersion", fEventSource: "eventSource", fAWSRegion: "awsRegion",
	fRecords: "Records", fWindow: "window", fState: "state", fShardID: "shardId",
	fIsFinalInvokeForWindow: "isFinalInvokeForWindow", fIsWindowTerminatedEarly: "isWindowTerminatedEarly",
	fNextShardIterator: "NextShardIterator",
	fKeys:              "Keys", fNewImage: "NewImage", fOldImage: "OldImage", fSequenceNumber: "SequenceNumber",
	fSizeBytes: "SizeBytes", fStreamViewType: "StreamViewType", fApproximateCreationDateTime: "ApproximateCreationDateTime",
	fType: "type", fPrincipalID: "principalId", fTypeAPI: "Type", fPrincipalIDAPI: "PrincipalId",
}

// kindFields are the fields of each kind of object: their ids run from
// the first to the last, in the order of the constants above.
var kindFields = [kindIdentity + 1][2]int{
	kindTop:      {fEventID, fNextShardIterator}, // a record's fields or an event's
	kindRecord:   {fEventID, fAWSRegion},
	kindDynamo:   {fKeys, fApproximateCreationDateTime},
	kindIdentity: {fType, fPrincipalIDAPI},
}

// fieldID names a member key of an object of the given kind: the general
// path, for keys matchField does not know at sight (escaped, spaced, or a
// field it does not try, as an event's).
func fieldID(kind int, key []byte) int {
	for id := kindFields[kind][0]; id <= kindFields[kind][1]; id++ {
		if string(key) == fieldNames[id] {
			return id
		}
	}
	return fUnknown
}

// literal is a compact member key, `"name":`, of at most 32 bytes, as four
// little-endian words and masks, so that one comparison of four words,
// without a branch per word, tells whether b holds it.
type literal struct {
	s     string
	words [4]uint64
	masks [4]uint64
}

// at reports whether b holds l at i.
func (l *literal) at(b []byte, i int) bool {
	if len(b)-i < 32 {
		return l.s != "" && len(b)-i >= len(l.s) && string(b[i:i+len(l.s)]) == l.s
	}
	return l.starts((*[32]byte)(b[i:]))
}

// starts reports whether w starts with l. It is small enough to inline.
func (l *literal) starts(w *[32]byte) bool {
	return (binary.LittleEndian.Uint64(w[:])^l.words[0])&l.masks[0]|
		(binary.LittleEndian.Uint64(w[8:])^l.words[1])&l.masks[1]|
		(binary.LittleEndian.Uint64(w[16:])^l.words[2])&l.masks[2]|
		(binary.LittleEndian.Uint64(w[24:])^l.words[3])&l.masks[3] == 0
}

func newLiteral(s string) literal {
	l := literal{s: s}
	var p [32]byte
	copy(p[:], s)
	for k := range l.words {
		l.words[k] = binary.LittleEndian.Uint64(p[8*k:])
		for j := 8 * k; j < min(8*k+8, len(s)); j++ {
			l.masks[k] |= 0xff << (8 * (j - 8*k))
		}
	}
	return l
}

// lits holds `"name":` of the fields matchField knows, by field.
var lits [fLast + 1]literal

// follows[id] is the field Lambda writes after field id, and opens[kind]
// the first field of an object of kind: the order aws-lambda-go and the
// Lambda service use. matchField tries it first.
var (
	follows = [fLast + 1]int{
		fEventID:                     fEventName,
		fEventName:                   fEventVersion,
		fEventVersion:                fEventSource,
		fEventSource:                 fAWSRegion,
		fAWSRegion:                   fDynamodb,
		fDynamodb:                    fEventSourceARN,
		fEventSourceARN:              fUserIdentity,
		fApproximateCreationDateTime: fKeys,
		fKeys:                        fNewImage,
		fNewImage:                    fOldImage,
		fOldImage:                    fSequenceNumber,
		fSequenceNumber:              fSizeBytes,
		fSizeBytes:                   fStreamViewType,
	}
	opens = [kindIdentity + 1]int{kindRecord: fEventID, kindDynamo: fApproximateCreationDateTime}
)

func init() {
	for id := fEventID; id <= fAWSRegion; id++ { // a record's fields
		lits[id] = newLiteral(`"` + fieldNames[id] + `":`)
	}
	for id := fKeys; id <= fApproximateCreationDateTime; id++ { // its dynamodb's
		lits[id] = newLiteral(`"` + fieldNames[id] + `":`)
	}
	// A field with no literal (fUnknown, the envelope's fields) must match
	// nothing as a guess: it wants a 0 byte where members has a quote.
	for id := range lits {
		if lits[id].s == "" {
			lits[id].masks[0] = 0xff
		}
	}
}

// matchField tries the compact `"name":` of the fields Lambda writes, at
// the quote i, among the fields of kind. It returns the field and the
// position after the colon, or fUnknown and i. (members first tries the
// field it expects there, from follows.)
func matchField(b []byte, i, kind int) (int, int) {
	if len(b)-i < 8 {
		return fUnknown, i
	}
	w := binary.LittleEndian.Uint64(b[i:]) // the quote and 7 bytes
	for id := kindFields[kind][0]; id <= kindFields[kind][1]; id++ {
		if l := &lits[id]; l.s != "" && w&l.masks[0] == l.words[0] && l.at(b, i) {
			return id, i + len(l.s)
		}
	}
	return fUnknown, i
}

// at reports whether b holds the string lit at i.
func at(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
