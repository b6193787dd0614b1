package streams_test

// The oracle's random writes: items of every attribute type, nested, with
// unicode names, numbers of many shapes, and sizes on 1 KB boundaries.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/ddb"
)

// run makes n random writes to 24 items. big allows items up to 380 KB.
func (o *oracle) run(n int, big bool) {
	const items = 24
	for range n {
		k := o.key(o.rng.IntN(items))
		cur := o.items[o.keyString(k)]
		switch p := o.rng.IntN(100); {
		case cur != nil && p < 15:
			o.delete(k)
		case p < 55:
			o.put(o.randomItem(k, big))
		default:
			o.apply(k, o.randomUpdate(k, cur, big))
		}
	}
}

// key returns item i's key. A number sort key is spelled a different way
// each time (-3, -3.0, -300e-2, 4, +4…): all spellings are one item, in
// the table and in record's canonical keys.
func (o *oracle) key(i int) map[string]ddbtypes.AttributeValue {
	k := map[string]ddbtypes.AttributeValue{}
	if o.sk == "" {
		k[o.pk] = &ddbtypes.AttributeValueMemberB{Value: append([]byte{0, byte(i), 0xff}, "bin-key"...)}
		return k
	}
	k[o.pk] = &ddbtypes.AttributeValueMemberS{Value: fmt.Sprintf("USER#%d-ünï🔥", i%8)}
	v := i/8*7 - 3
	spellings := []string{"%d", "%d.0", "%d00e-2", "%d.000E0"}
	if v >= 0 {
		spellings = append(spellings, "+%d")
	}
	k[o.sk] = &ddbtypes.AttributeValueMemberN{Value: fmt.Sprintf(spellings[o.rng.IntN(len(spellings))], v)}
	return k
}

// randomItem builds an item for keys: random attributes, often padded so
// that its size lands on or next to a 1 KB multiple.
func (o *oracle) randomItem(keys map[string]ddbtypes.AttributeValue, big bool) map[string]ddbtypes.AttributeValue {
	item := maps.Clone(keys)
	o.version++
	item["ver"] = &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(o.version)}
	for range o.rng.IntN(8) {
		item[o.attrName()] = o.randomValue(0)
	}
	o.pad(item, big)
	return item
}

// randomUpdate builds an UpdateItem: new attributes SET, old ones REMOVEd,
// a nested map member SET, a list appended to, and sometimes the padding
// resized, so that items grow and shrink.
func (o *oracle) randomUpdate(keys, cur map[string]ddbtypes.AttributeValue, big bool) *update {
	u := &update{names: map[string]string{}, values: map[string]ddbtypes.AttributeValue{}, item: maps.Clone(cur)}
	if u.item == nil {
		u.item = maps.Clone(keys)
	}
	o.version++
	u.set("ver", &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(o.version)})
	touched := map[string]bool{o.pk: true, o.sk: true, "ver": true, "pad": true}
	for _, name := range slices.Sorted(maps.Keys(cur)) {
		if touched[name] {
			continue
		}
		switch v := cur[name].(type) {
		case *ddbtypes.AttributeValueMemberM:
			if o.rng.IntN(2) == 0 {
				touched[name] = true
				member, val := o.attrName(), o.randomValue(1)
				u.sets = append(u.sets, u.name(name)+"."+u.name(member)+" = "+u.value(val))
				m := maps.Clone(v.Value)
				m[member] = val
				u.item[name] = &ddbtypes.AttributeValueMemberM{Value: m}
			}
		case *ddbtypes.AttributeValueMemberL:
			if o.rng.IntN(2) == 0 {
				touched[name] = true
				add := []ddbtypes.AttributeValue{o.randomValue(1), o.randomValue(2)}
				ph := u.name(name)
				u.sets = append(u.sets, ph+" = list_append("+ph+", "+u.value(&ddbtypes.AttributeValueMemberL{Value: add})+")")
				u.item[name] = &ddbtypes.AttributeValueMemberL{Value: append(slices.Clone(v.Value), add...)}
			}
		}
		if !touched[name] && o.rng.IntN(3) == 0 {
			touched[name] = true
			u.removes = append(u.removes, u.name(name))
			delete(u.item, name)
		}
	}
	for range o.rng.IntN(4) {
		name := o.attrName()
		if !touched[name] {
			touched[name] = true
			u.set(name, o.randomValue(0))
		}
	}
	if _, padded := u.item["pad"]; !padded || o.rng.IntN(2) == 0 {
		delete(u.item, "pad")
		if o.pad(u.item, big) {
			u.set("pad", u.item["pad"])
		} else if padded {
			u.removes = append(u.removes, u.name("pad"))
		}
	}
	return u
}

// pad adds a "pad" string attribute that takes the item to a size on or
// next to a 1 KB multiple (measured by record's rules, so that any error in
// them shows as a WCU off by one), or to a random size. It reports whether
// it added one.
func (o *oracle) pad(item map[string]ddbtypes.AttributeValue, big bool) bool {
	var target int
	switch p := o.rng.IntN(100); {
	case p < 15:
		return false
	case p < 25:
		target = o.rng.IntN(3000) + 10
	default:
		kb := 1 + o.rng.IntN(4)
		if p >= 85 {
			kb = 5 + o.rng.IntN(60)
		}
		if big && p >= 97 {
			kb = 100 + o.rng.IntN(281) // up to 380 KB, leaving room for updates under the 400 KB limit
		}
		target = kb*1024 + o.rng.IntN(4) - 1 // one under, on, one over, two over
	}
	// The padding's bytes: its name (3) and its UTF-8 value; a multi-byte
	// filler exercises UTF-8 counting.
	need := target - o.size(item) - len("pad")
	if need < 1 {
		return false
	}
	filler := []string{"x", "é", "中", "😀"}[o.rng.IntN(4)]
	s := strings.Repeat(filler, need/len(filler)) + strings.Repeat("y", need%len(filler))
	item["pad"] = &ddbtypes.AttributeValueMemberS{Value: s}
	return true
}

// attrNames: ASCII, unicode, punctuation, and long names.
var attrNames = []string{
	"a", "count", "名前", "ñandú", "emoji😀", `quote"name`, "back\\slash", "dot.ted", "with space",
	"tab\tname", "Ωmega", strings.Repeat("long", 64), "x-y_z", "ß", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
}

func (o *oracle) attrName() string { return attrNames[o.rng.IntN(len(attrNames))] }

func (o *oracle) randomValue(depth int) ddbtypes.AttributeValue {
	kinds := 10
	if depth >= 4 {
		kinds = 8 // no more nesting
	}
	switch o.rng.IntN(kinds) {
	case 0:
		return &ddbtypes.AttributeValueMemberS{Value: o.randomString()}
	case 1:
		return &ddbtypes.AttributeValueMemberN{Value: o.randomNumber()}
	case 2:
		return &ddbtypes.AttributeValueMemberB{Value: o.randomBytes()}
	case 3:
		return &ddbtypes.AttributeValueMemberBOOL{Value: o.rng.IntN(2) == 0}
	case 4:
		return &ddbtypes.AttributeValueMemberNULL{Value: true}
	case 5:
		return &ddbtypes.AttributeValueMemberSS{Value: o.uniq(o.randomString, func(s string) string { return s })}
	case 6:
		return &ddbtypes.AttributeValueMemberNS{Value: o.uniq(o.randomNumber, func(s string) string {
			c, _ := ddb.CanonicalNumber(nil, []byte(s)) // "1" and "1.0" are one element
			return string(c)
		})}
	case 7:
		var bs [][]byte
		for _, s := range o.uniq(func() string { return string(o.randomBytes()) }, func(s string) string { return s }) {
			bs = append(bs, []byte(s))
		}
		return &ddbtypes.AttributeValueMemberBS{Value: bs}
	case 8:
		l := []ddbtypes.AttributeValue{}
		for range o.rng.IntN(5) {
			l = append(l, o.randomValue(depth+1))
		}
		return &ddbtypes.AttributeValueMemberL{Value: l}
	default:
		m := map[string]ddbtypes.AttributeValue{}
		for range o.rng.IntN(5) {
			m[o.attrName()] = o.randomValue(depth + 1)
		}
		return &ddbtypes.AttributeValueMemberM{Value: m}
	}
}

func (o *oracle) uniq(gen func() string, canon func(string) string) []string {
	var out []string
	seen := map[string]bool{}
	for range 1 + o.rng.IntN(5) {
		s := gen()
		if c := canon(s); !seen[c] {
			seen[c] = true
			out = append(out, s)
		}
	}
	return out
}

func (o *oracle) randomString() string {
	// DynamoDB Local 1.11 rejects empty strings.
	pieces := []string{"a", "Z", "0", " ", "é", "中文", "😀", `"`, `\`, "\n", "\t", "\u0001", "\u2028", "<&>", "ÿ"}
	var b strings.Builder
	for range 1 + o.rng.IntN(12) {
		b.WriteString(pieces[o.rng.IntN(len(pieces))])
	}
	return b.String()
}

func (o *oracle) randomBytes() []byte {
	b := make([]byte, 1+o.rng.IntN(40))
	for i := range b {
		b[i] = byte(o.rng.IntN(256))
	}
	return b
}

// numberShapes are the spellings the generator mixes: integers, decimals,
// negatives, leading and trailing zeros, signs, exponents at both ends of
// DynamoDB's range, and 38 significant digits.
var numberShapes = []string{
	"0", "-0", "7", "-3", "230", "12000", "1.5", "-1.5", "3.14159", "0.00091", "-1", "1.500", "1500.000",
	"007", "-0.000120", "+5", ".5", "5.", "1.5E3", "1e-130", "-9.99e125", "6.13E-120", "1E+5", "5e0",
	"99999999999999999999999999999999999999", "-1.2345678901234567890123456789012345678",
	"0.1", "10", "100", "1000", "0.01", "0.001", "123456.789",
}

func (o *oracle) randomNumber() string {
	if o.rng.IntN(3) == 0 {
		return numberShapes[o.rng.IntN(len(numberShapes))]
	}
	for {
		digits := 1 + o.rng.IntN(38)
		if o.rng.IntN(3) == 0 {
			digits = 38
		}
		var b strings.Builder
		if o.rng.IntN(3) == 0 {
			b.WriteByte('-')
		}
		point := o.rng.IntN(digits + 1)
		for i := range digits {
			if i == point && i > 0 {
				b.WriteByte('.')
			}
			d := byte('0' + o.rng.IntN(10))
			if i == 0 && d == '0' && digits > 1 {
				d = '1'
			}
			b.WriteByte(d)
		}
		for range o.rng.IntN(4) {
			if point >= digits {
				b.WriteByte('0') // trailing zeros of an integer
			}
		}
		if o.rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "e%d", o.rng.IntN(240)-120)
		}
		s := b.String()
		if _, err := ddb.NumberSize(s); err == nil {
			return s
		}
	}
}

// toStreams converts DynamoDB attribute values to the Streams SDK's type.
func toStreams(item map[string]ddbtypes.AttributeValue) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		out[k] = toStreamsAV(v)
	}
	return out
}

func toStreamsAV(av ddbtypes.AttributeValue) types.AttributeValue {
	switch v := av.(type) {
	case *ddbtypes.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}
	case *ddbtypes.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}
	case *ddbtypes.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: v.Value}
	case *ddbtypes.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}
	case *ddbtypes.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}
	case *ddbtypes.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: v.Value}
	case *ddbtypes.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: v.Value}
	case *ddbtypes.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: v.Value}
	case *ddbtypes.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toStreamsAV(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case *ddbtypes.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: toStreams(v.Value)}
	}
	panic(fmt.Sprintf("unexpected %T", av))
}
