package streams_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// avGen builds attribute-value trees from fuzz input, and sizes them
// directly from the tree by the guide's rules, with ddb.NumberSize for
// numbers (whose rule DynamoDB Local pins in TestNumberProbes).
type avGen struct {
	data []byte
}

func (g *avGen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

// bytes takes a length byte, then that many bytes (at most 40).
func (g *avGen) bytes() []byte {
	n := min(int(g.byte()%41), len(g.data))
	b := g.data[:n]
	g.data = g.data[n:]
	return b
}

// str is valid UTF-8, as every DynamoDB string is; anything goes otherwise:
// quotes, backslashes, control characters, U+2028.
func (g *avGen) str() string {
	return strings.ToValidUTF8(string(g.bytes()), "\uFFFD")
}

func (g *avGen) number() string {
	var b strings.Builder
	if g.byte()%3 == 0 {
		b.WriteByte('-')
	}
	digits := 1 + int(g.byte()%38)
	point := int(g.byte()) % (digits + 1)
	for i := range digits {
		if i == point && i > 0 {
			b.WriteByte('.')
		}
		b.WriteByte('0' + g.byte()%10)
	}
	if e := g.byte(); e%4 == 0 {
		b.WriteString("e" + strconv.Itoa(int(e/4)-32))
	}
	return b.String()
}

func (g *avGen) value(depth int) (types.AttributeValue, int) {
	kind := g.byte() % 10
	if depth > 5 {
		kind %= 8
	}
	switch kind {
	case 0:
		s := g.str()
		return &types.AttributeValueMemberS{Value: s}, len(s)
	case 1:
		n := g.number()
		size, err := ddb.NumberSize(n)
		if err != nil { // out of DynamoDB's range: use a number that is not
			n, size = "1", 2
		}
		return &types.AttributeValueMemberN{Value: n}, size
	case 2:
		b := g.bytes()
		return &types.AttributeValueMemberB{Value: b}, len(b)
	case 3:
		return &types.AttributeValueMemberBOOL{Value: g.byte()%2 == 0}, 1
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}, 1
	case 5:
		var ss []string
		size := 0
		for range g.byte() % 4 {
			s := g.str()
			ss, size = append(ss, s), size+len(s)
		}
		return &types.AttributeValueMemberSS{Value: ss}, size
	case 6:
		var ns []string
		size := 0
		for range g.byte() % 4 {
			n := g.number()
			if s, err := ddb.NumberSize(n); err == nil {
				ns, size = append(ns, n), size+s
			}
		}
		return &types.AttributeValueMemberNS{Value: ns}, size
	case 7:
		var bs [][]byte
		size := 0
		for range g.byte() % 4 {
			b := g.bytes()
			bs, size = append(bs, b), size+len(b)
		}
		return &types.AttributeValueMemberBS{Value: bs}, size
	case 8:
		l := []types.AttributeValue{}
		size := 3
		for range g.byte() % 5 {
			v, s := g.value(depth + 1)
			l, size = append(l, v), size+1+s
		}
		return &types.AttributeValueMemberL{Value: l}, size
	default:
		m, size := g.item(depth + 1)
		return &types.AttributeValueMemberM{Value: m}, 3 + len(m) + size
	}
}

// item returns a map of attributes and the sum of its names and values.
func (g *avGen) item(depth int) (map[string]types.AttributeValue, int) {
	m := map[string]types.AttributeValue{}
	size := 0
	for range g.byte() % 5 {
		name := g.str()
		if _, dup := m[name]; dup {
			continue
		}
		v, s := g.value(depth)
		m[name] = v
		size += len(name) + s
	}
	return m, size
}

// FuzzAppendLambdaRecord: whatever the item, AppendLambdaRecord writes
// valid JSON that record's decoder reads without complaint, and the size it
// measures is the size of the tree the test built.
func FuzzAppendLambdaRecord(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x09\x04\x00\x05a\"b\\c\x01\x03\x00\x01"))
	f.Add([]byte("\x04\x08\x03\x09\x02\x06\x07\x05\x01\x00\x22\x11"))
	f.Add([]byte("\x03\x01\x00\x26\x05\x07\x09\x02\x0b\x05\xe2\x80\xa8\x22\x5c\x00\xff\xfe"))
	f.Add([]byte("\x04\x09\x09\x09\x09\x09\x09\x08\x04\x00\x03\x01\x10\x20\x30\x40"))
	dec, err := record.NewDecoder(record.Config{PartitionKey: "pk"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &avGen{data: data}
		item, size := g.item(0)
		pk := &types.AttributeValueMemberS{Value: "k"}
		if old, ok := item["pk"]; ok {
			// The key attribute must be a key type; replace it.
			_, oldSize := (&avGen{}).sizeOf(old)
			size -= oldSize
		} else {
			size += len("pk")
		}
		item["pk"] = pk
		size++
		rec := types.Record{
			EventID: aws.String("id"), EventName: types.OperationTypeInsert, EventVersion: aws.String("1.1"),
			EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
			Dynamodb: &types.StreamRecord{
				Keys: map[string]types.AttributeValue{"pk": pk}, NewImage: item,
				SequenceNumber: aws.String("1"), StreamViewType: types.StreamViewTypeNewAndOldImages,
			},
		}
		payload := streams.AppendLambdaEvent(nil, []types.Record{rec}, testARN)
		if !json.Valid(payload) || !utf8.Valid(payload) {
			t.Fatalf("invalid JSON: %s", payload)
		}
		got, n := -1, 0
		err := dec.Decode(payload, record.Visitor{
			Record: func(r *record.Record) error { got, n = r.NewImageSize, n+1; return nil },
			Malformed: func(m *record.Malformed) error {
				t.Fatalf("malformed: %v\n%s", m.Err, payload)
				return nil
			},
		})
		if err != nil || n != 1 {
			t.Fatalf("Decode: %v, %d records\n%s", err, n, payload)
		}
		if got != size {
			t.Fatalf("record sizes the item %d bytes, the tree is %d\n%s", got, size, payload)
		}
	})
}

// sizeOf sizes a value the generator made, for replacing it.
func (g *avGen) sizeOf(av types.AttributeValue) (types.AttributeValue, int) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return av, len(v.Value)
	case *types.AttributeValueMemberN:
		s, _ := ddb.NumberSize(v.Value)
		return av, s
	case *types.AttributeValueMemberB:
		return av, len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return av, 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return av, n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			k, _ := ddb.NumberSize(s)
			n += k
		}
		return av, n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return av, n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			_, s := g.sizeOf(e)
			n += 1 + s
		}
		return av, n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			_, s := g.sizeOf(e)
			n += 1 + len(k) + s
		}
		return av, n
	}
	return av, 0
}
