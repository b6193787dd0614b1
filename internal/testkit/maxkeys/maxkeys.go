// Package maxkeys is test support: partition keys at the edges of what
// DynamoDB accepts (S and B keys of exactly 2,048 bytes, S keys ending in
// 2-, 3- and 4-byte UTF-8 characters, pairs that differ only in their last
// byte, N keys of 38 significant digits at the ends of the exponent range),
// with how hotkeys must print each, and Lambda stream events that carry them.
//
// The printed forms are written here by hand from DynamoDB's rules, not
// computed by the code under test: S as its UTF-8 text, B as standard
// base64 of its bytes, N as a plain decimal without exponent, leading zeros,
// trailing fractional zeros or "+".
package maxkeys

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// MaxBytes is DynamoDB's limit on a partition key: 2,048 bytes.
const MaxBytes = 2048

// Key is one partition key.
type Key struct {
	Name    string // what the key tests, for messages
	Type    string // "S", "N" or "B"
	Attr    string // the attribute value's JSON in a stream record, e.g. {"S":"…"}
	Printed string // how hotkeys must report it
}

func s(name, v string) Key {
	if len(v) != MaxBytes {
		panic(fmt.Sprintf("maxkeys: %s is %d bytes", name, len(v)))
	}
	return Key{Name: name, Type: "S", Attr: `{"S":"` + v + `"}`, Printed: v}
}

func b(name string, v []byte) Key {
	if len(v) != MaxBytes {
		panic(fmt.Sprintf("maxkeys: %s is %d bytes", name, len(v)))
	}
	enc := base64.StdEncoding.EncodeToString(v)
	return Key{Name: name, Type: "B", Attr: `{"B":"` + enc + `"}`, Printed: enc}
}

func n(name, literal, printed string) Key {
	return Key{Name: name, Type: "N", Attr: `{"N":"` + literal + `"}`, Printed: printed}
}

func binary(fill byte, last byte) []byte {
	v := make([]byte, MaxBytes)
	for i := range v {
		v[i] = fill + byte(i%7)
	}
	v[MaxBytes-1] = last
	return v
}

// Keys returns the keys, each distinct from the others.
func Keys() []Key {
	const digits = "12345678901234567890123456789012345678" // 38 significant digits
	return []Key{
		s("S ASCII", strings.Repeat("A", MaxBytes)),
		s("S ending in a 2-byte character", strings.Repeat("B", MaxBytes-2)+"é"),
		s("S ending in a 3-byte character", strings.Repeat("C", MaxBytes-3)+"€"),
		s("S ending in a 4-byte character", strings.Repeat("D", MaxBytes-4)+"😀"),
		s("S pair, last byte x", strings.Repeat("E", MaxBytes-1)+"x"),
		s("S pair, last byte y", strings.Repeat("E", MaxBytes-1)+"y"),
		// U+1F600 and U+1F601 differ only in their fourth byte.
		s("S pair ending in a 4-byte character, first", strings.Repeat("F", MaxBytes-4)+"\U0001F600"),
		s("S pair ending in a 4-byte character, second", strings.Repeat("F", MaxBytes-4)+"\U0001F601"),
		b("B", binary(0x10, 0xff)),
		b("B pair, first", binary(0x80, 0x00)),
		b("B pair, second", binary(0x80, 0x01)),
		n("N, 38 digits, largest exponent", "9.9999999999999999999999999999999999999E+125",
			strings.Repeat("9", 38)+strings.Repeat("0", 126-38)),
		n("N, 38 digits, smallest exponent, negative", "-1.2345678901234567890123456789012345678E-130",
			"-0."+strings.Repeat("0", 129)+digits),
		n("N pair, first", "1234567890123456789012345678901234567.8", "1234567890123456789012345678901234567.8"),
		n("N pair, second", "1234567890123456789012345678901234567.9", "1234567890123456789012345678901234567.9"),
	}
}

// Writes is how many times Event writes key i: all different, so that
// every key has a WCU of its own.
func Writes(i int) int { return 2 + i }

// Record returns the JSON of one INSERT stream record of key k in table, at
// time at (sequence number seq), as Lambda delivers it.
func Record(table string, k Key, seq int, at time.Time) string {
	return fmt.Sprintf(`{"eventID":"e%d","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb",`+
		`"awsRegion":"eu-west-1","eventSourceARN":"arn:aws:dynamodb:eu-west-1:123456789012:table/%s/stream/2026-11-22T10:00:00.000",`+
		`"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":{"pk":%s},"NewImage":{"pk":%s,"n":{"N":"%d"}},`+
		`"SequenceNumber":"%021d","SizeBytes":%d,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`,
		seq, table, at.Unix(), k.Attr, k.Attr, seq, seq, len(k.Attr)*2+20)
}

// Records returns the records of every key, key i written Writes(i) times,
// interleaved, one second apart from start, with sequence numbers from 1.
// keyOf[j] is the index of record j's key.
func Records(table string, start time.Time) (records []string, keyOf []int) {
	keys := Keys()
	left := make([]int, len(keys))
	for i := range keys {
		left[i] = Writes(i)
	}
	for more := true; more; {
		more = false
		for i, k := range keys {
			if left[i] == 0 {
				continue
			}
			left[i]--
			more = true
			records = append(records, Record(table, k, len(records)+1, start.Add(time.Duration(len(records)%50)*time.Second)))
			keyOf = append(keyOf, i)
		}
	}
	return records, keyOf
}

// Event wraps records in a DynamoDBEvent.
func Event(records []string) []byte {
	return []byte(`{"Records":[` + strings.Join(records, ",") + `]}`)
}
