package record_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/record"
)

// avJSON writes an SDK attribute value as DynamoDB JSON, the form the
// stream decoder sizes: the oracle for AttributeValueItemSize.
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

// TestAttributeValueItemSizeMatchesItemSize holds the SDK form to the one
// implementation of the size rules: every random item must size exactly as
// its DynamoDB JSON does.
func TestAttributeValueItemSizeMatchesItemSize(t *testing.T) {
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
		got, err := record.AttributeValueItemSize(item)
		if err != nil || got != want {
			t.Fatalf("item %d %s: AttributeValueItemSize = %d, %v; ItemSize = %d", i, b.String(), got, err, want)
		}
	}
}

func TestAttributeValueSizeRejects(t *testing.T) {
	for _, tc := range []struct {
		v    types.AttributeValue
		want error
	}{
		{&types.AttributeValueMemberN{Value: "abc"}, record.ErrNumber},
		{&types.AttributeValueMemberNS{Value: []string{"1", "1e999"}}, record.ErrNumber},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: ""}}}, record.ErrNumber},
		{nil, record.ErrAttributeValue},
	} {
		if n, err := record.AttributeValueSize(tc.v); !errors.Is(err, tc.want) {
			t.Errorf("AttributeValueSize(%#v) = %d, %v; want %v", tc.v, n, err, tc.want)
		}
	}
	if _, err := record.AttributeValueSize(&types.UnknownUnionMember{Tag: "X"}); !errors.Is(err, record.ErrAttributeValue) {
		t.Errorf("unknown member: %v, want ErrAttributeValue", err)
	}
}

// TestAppendAttributeValueKey holds the SDK key form to CanonicalNumber and
// to the stream decoder's canonical keys.
func TestAppendAttributeValueKey(t *testing.T) {
	for _, n := range numbers {
		want, err := record.CanonicalNumber(nil, []byte(n))
		if err != nil {
			t.Fatal(err)
		}
		got, typ, err := record.AppendAttributeValueKey([]byte("x"), &types.AttributeValueMemberN{Value: n})
		if err != nil || typ != record.Number || string(got) != "x"+string(want) {
			t.Errorf("N %q: %q %c %v, want %q", n, got, typ, err, "x"+string(want))
		}
	}
	got, typ, err := record.AppendAttributeValueKey(nil, &types.AttributeValueMemberS{Value: "USER#é"})
	if err != nil || typ != record.String || string(got) != "USER#é" {
		t.Errorf("S: %q %c %v", got, typ, err)
	}
	got, typ, err = record.AppendAttributeValueKey(nil, &types.AttributeValueMemberB{Value: []byte{0, 1}})
	if err != nil || typ != record.Binary || string(got) != "\x00\x01" {
		t.Errorf("B: %q %c %v", got, typ, err)
	}
	if _, _, err := record.AppendAttributeValueKey(nil, &types.AttributeValueMemberBOOL{}); !errors.Is(err, record.ErrKey) {
		t.Errorf("BOOL: %v, want ErrKey", err)
	}
	if _, _, err := record.AppendAttributeValueKey(nil, &types.AttributeValueMemberN{Value: "1e999"}); !errors.Is(err, record.ErrNumber) {
		t.Errorf("N 1e999: %v, want ErrNumber", err)
	}
	buf := make([]byte, 0, 64)
	var v types.AttributeValue = &types.AttributeValueMemberN{Value: "12.50"}
	if a := testing.AllocsPerRun(100, func() {
		buf, _, _ = record.AppendAttributeValueKey(buf[:0], v)
	}); a != 0 {
		t.Errorf("AppendAttributeValueKey allocates %v times", a)
	}
}
