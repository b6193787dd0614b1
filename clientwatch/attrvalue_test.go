package clientwatch

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
)

// avJSON writes an SDK attribute value as DynamoDB JSON, the form the
// stream decoder sizes: record.ItemSize of it is the oracle for itemSize,
// so that the client and the Lambda size an item alike. (Only this test
// imports record.)
func avJSON(b *strings.Builder, v types.AttributeValue) {
	q := func(s string) { j, _ := json.Marshal(s); b.Write(j) }
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString(`{"S":`)
		q(v.Value)
	case *types.AttributeValueMemberN:
		b.WriteString(`{"N":`)
		q(v.Value)
	case *types.AttributeValueMemberB:
		b.WriteString(`{"B":`)
		q(base64.StdEncoding.EncodeToString(v.Value))
	case *types.AttributeValueMemberBOOL:
		b.WriteString(`{"BOOL":` + strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString(`{"NULL":true`)
	case *types.AttributeValueMemberSS:
		b.WriteString(`{"SS":[`)
		for i, s := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			q(s)
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberNS:
		b.WriteString(`{"NS":[`)
		for i, s := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			q(s)
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberBS:
		b.WriteString(`{"BS":[`)
		for i, s := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			q(base64.StdEncoding.EncodeToString(s))
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberL:
		b.WriteString(`{"L":[`)
		for i, e := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			avJSON(b, e)
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberM:
		b.WriteString(`{"M":`)
		itemJSON(b, v.Value)
	}
	b.WriteByte('}')
}

func itemJSON(b *strings.Builder, item map[string]types.AttributeValue) {
	b.WriteByte('{')
	first := true
	for name, v := range item {
		if !first {
			b.WriteByte(',')
		}
		first = false
		j, _ := json.Marshal(name)
		b.Write(j)
		b.WriteByte(':')
		avJSON(b, v)
	}
	b.WriteByte('}')
}

var numbers = []string{"0", "1", "-1", "1.5", "-1.5", "12000", "230", "0.00091", "3.14159", "1e10", "-0.000", "99999999999999999999999999999999999999", "1.0E-3", "+10"}

func randomAV(r *rand.Rand, depth int) types.AttributeValue {
	str := func() string { return strings.Repeat("é", r.IntN(4)) + strings.Repeat("x", r.IntN(40)) + "k" }
	n := 7
	if depth < 3 {
		n = 11
	}
	switch r.IntN(n) {
	case 0:
		return &types.AttributeValueMemberS{Value: str()}
	case 1:
		return &types.AttributeValueMemberN{Value: numbers[r.IntN(len(numbers))]}
	case 2:
		return &types.AttributeValueMemberB{Value: []byte(str())}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: r.IntN(2) == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5:
		return &types.AttributeValueMemberSS{Value: []string{str(), str()}}
	case 6:
		return &types.AttributeValueMemberNS{Value: []string{numbers[r.IntN(len(numbers))], "7"}}
	case 7:
		return &types.AttributeValueMemberBS{Value: [][]byte{[]byte(str())}}
	case 8:
		l := make([]types.AttributeValue, r.IntN(4))
		for i := range l {
			l[i] = randomAV(r, depth+1)
		}
		return &types.AttributeValueMemberL{Value: l}
	default:
		m := map[string]types.AttributeValue{}
		for range r.IntN(4) {
			m[str()] = randomAV(r, depth+1)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
}

// TestItemSizeMatchesRecord holds the SDK walker to the stream decoder's:
// both add up ddb's rules, and every random item must size exactly as its
// DynamoDB JSON does.
func TestItemSizeMatchesRecord(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	for i := range 2000 {
		item := map[string]types.AttributeValue{}
		for range 1 + r.IntN(6) {
			item["a"+strconv.Itoa(r.IntN(100))] = randomAV(r, 0)
		}
		var b strings.Builder
		itemJSON(&b, item)
		want, err := record.ItemSize([]byte(b.String()))
		if err != nil {
			t.Fatalf("item %d: ItemSize(%s): %v", i, b.String(), err)
		}
		got, err := itemSize(item)
		if err != nil || got != want {
			t.Fatalf("item %d %s: itemSize = %d, %v; record.ItemSize = %d", i, b.String(), got, err, want)
		}
	}
}

func TestAttributeValueSizeRejects(t *testing.T) {
	deep := types.AttributeValue(&types.AttributeValueMemberNULL{Value: true})
	for range ddb.MaxNesting + 1 {
		deep = &types.AttributeValueMemberL{Value: []types.AttributeValue{deep}}
	}
	for _, tc := range []struct {
		v    types.AttributeValue
		want error
	}{
		{&types.AttributeValueMemberN{Value: "abc"}, ddb.ErrNumber},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1e999"}}, ddb.ErrNumber},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: ""}}}, ddb.ErrNumber},
		{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "1e126"}}}, ddb.ErrNumber},
		{nil, errAttributeValue},
		{&types.UnknownUnionMember{Tag: "X"}, errAttributeValue},
		{deep, errAttributeValue},
	} {
		if n, err := attributeValueSize(tc.v, 0); !errors.Is(err, tc.want) {
			t.Errorf("attributeValueSize(%#v) = %d, %v; want %v", tc.v, n, err, tc.want)
		}
	}
	if n, err := attributeValueSize(deep.(*types.AttributeValueMemberL).Value[0], 0); err != nil || n != (ddb.MaxNesting)*4+1 {
		t.Errorf("L nested %d deep = %d, %v; want %d", ddb.MaxNesting, n, err, ddb.MaxNesting*4+1)
	}
}

// TestAppendKey holds the SDK key form to ddb.CanonicalNumber and to the
// stream decoder's canonical keys.
func TestAppendKey(t *testing.T) {
	for _, n := range numbers {
		want, err := ddb.CanonicalNumber(nil, []byte(n))
		if err != nil {
			t.Fatal(err)
		}
		got, typ, err := appendKey([]byte("x"), &types.AttributeValueMemberN{Value: n})
		if err != nil || typ != ddb.Number || string(got) != "x"+string(want) {
			t.Errorf("N %q: %q %c %v, want %q", n, got, typ, err, "x"+string(want))
		}
	}
	got, typ, err := appendKey(nil, &types.AttributeValueMemberS{Value: "USER#é"})
	if err != nil || typ != ddb.String || string(got) != "USER#é" {
		t.Errorf("S: %q %c %v", got, typ, err)
	}
	got, typ, err = appendKey(nil, &types.AttributeValueMemberB{Value: []byte{0, 1}})
	if err != nil || typ != ddb.Binary || string(got) != "\x00\x01" {
		t.Errorf("B: %q %c %v", got, typ, err)
	}
	if _, _, err := appendKey(nil, &types.AttributeValueMemberBOOL{}); !errors.Is(err, errNotKey) {
		t.Errorf("BOOL: %v, want errNotKey", err)
	}
	if _, _, err := appendKey(nil, &types.AttributeValueMemberN{Value: "1e999"}); !errors.Is(err, ddb.ErrNumber) {
		t.Errorf("N 1e999: %v, want ErrNumber", err)
	}
	buf := make([]byte, 0, 64)
	var v types.AttributeValue = &types.AttributeValueMemberN{Value: "12.50"}
	if a := testing.AllocsPerRun(100, func() {
		buf, _, _ = appendKey(buf[:0], v)
	}); a != 0 {
		t.Errorf("appendKey allocates %v times", a)
	}
}
