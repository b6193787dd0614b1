package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

var itemSizeCases = []struct {
	name string
	item string
	size int
}{
	{"empty item", `{}`, 0},
	{"S", `{"a":{"S":"xyz"}}`, 1 + 3},
	{"empty S", `{"a":{"S":""}}`, 1},
	{"S escapes", `{"a":{"S":"\u00e9\n\"\\\/"}}`, 1 + 2 + 4},
	{"S raw unicode", `{"a":{"S":"日本"}}`, 1 + 6},
	{"S surrogate pair", `{"a":{"S":"\ud83d\ude00"}}`, 1 + 4},
	{"S lone surrogate is U+FFFD", `{"a":{"S":"\ud800x"}}`, 1 + 3 + 1},
	{"S high surrogate then non-low", `{"a":{"S":"\ud800\u0041"}}`, 1 + 3 + 1},
	{"S invalid UTF-8 is U+FFFD", "{\"a\":{\"S\":\"\xff\"}}", 1 + 3},
	{"unicode name", `{"名前":{"S":"x"}}`, 6 + 1},
	{"escaped name", `{"\u0061b":{"S":"x"}}`, 2 + 1},
	{"N", `{"n":{"N":"1.5"}}`, 1 + 3},
	{"N zero", `{"n":{"N":"0"}}`, 1 + 1},
	{"N negative", `{"n":{"N":"-1.5"}}`, 1 + 4},
	{"N E-notation", `{"n":{"N":"6.13E-120"}}`, 1 + 3},
	{"N escaped", `{"n":{"N":"\u0031.5"}}`, 1 + 3},
	{"B", `{"b":{"B":"AAEC"}}`, 1 + 3},
	{"B one pad", `{"b":{"B":"AQI="}}`, 1 + 2},
	{"B two pads", `{"b":{"B":"AQ=="}}`, 1 + 1},
	{"B empty", `{"b":{"B":""}}`, 1},
	{"B escaped slash", `{"b":{"B":"\/w=="}}`, 1 + 1},
	{"BOOL", `{"t":{"BOOL":true},"f":{"BOOL":false}}`, 2 + 2},
	{"NULL", `{"z":{"NULL":true}}`, 1 + 1},
	{"SS", `{"s":{"SS":["a","bc"]}}`, 1 + 3},
	{"NS", `{"s":{"NS":["1","1.5","-1"]}}`, 1 + 2 + 3 + 3},
	{"BS", `{"s":{"BS":["AQ==","AQI="]}}`, 1 + 3},
	{"empty L", `{"l":{"L":[]}}`, 1 + 3},
	{"L", `{"l":{"L":[{"S":"a"},{"N":"1"}]}}`, 1 + 3 + (1 + 1) + (1 + 2)},
	{"empty M", `{"m":{"M":{}}}`, 1 + 3},
	{"M", `{"m":{"M":{"x":{"S":"ab"},"yy":{"BOOL":true}}}}`, 1 + 3 + (1 + 1 + 2) + (1 + 2 + 1)},
	{"nested", `{"m":{"M":{"l":{"L":[{"M":{"k":{"NULL":true}}},{"L":[]}]}}}}`,
		1 + 3 + (1 + 1 + (3 + (1 + (3 + 1 + 1 + 1)) + (1 + 3)))},
	{"whitespace", " { \"a\" : { \"S\" : \"x\" } , \"b\" : { \"L\" : [ { \"N\" : \"1\" } ] } } ", 1 + 1 + 1 + 3 + 1 + 2},
	{"NULL false", `{"z":{"NULL":false}}`, 1 + 1},
}

func TestItemSize(t *testing.T) {
	for _, c := range itemSizeCases {
		got, err := ItemSize([]byte(c.item))
		if err != nil || got != c.size {
			t.Errorf("%s: ItemSize(%s) = %d, %v; want %d", c.name, c.item, got, err, c.size)
		}
		if ref, err := refItemSize([]byte(c.item)); err != nil || ref != c.size {
			t.Errorf("%s: reference size of %s = %d, %v; the table says %d", c.name, c.item, ref, err, c.size)
		}
	}
}

func nested(depth int) string {
	return `{"a":` + strings.Repeat(`{"L":[`, depth) + `{"S":"x"}` + strings.Repeat(`]}`, depth) + `}`
}

func TestItemSizeErrors(t *testing.T) {
	cases := []struct {
		item string
		err  error
	}{
		{`{"a":{"X":"1"}}`, ErrAttributeValue},
		{`{"a":{"S":"1","N":"1"}}`, ErrAttributeValue},
		{`{"a":{}}`, ErrAttributeValue},
		{`{"a":null}`, ErrAttributeValue},
		{`{"a":"x"}`, ErrAttributeValue},
		{`{"a":{"S":1}}`, ErrAttributeValue},
		{`{"a":{"S":null}}`, ErrAttributeValue},
		{`{"a":{"BOOL":"true"}}`, ErrAttributeValue},
		{`{"a":{"L":{}}}`, ErrAttributeValue},
		{`{"a":{"M":[]}}`, ErrAttributeValue},
		{`{"a":{"SS":["a",1]}}`, ErrAttributeValue},
		{`{"a":{"SS":"a"}}`, ErrAttributeValue},
		{`[]`, ErrAttributeValue},
		{`"item"`, ErrAttributeValue},
		{`{"a":{"N":"1x"}}`, ErrNumber},
		{`{"a":{"N":1}}`, ErrAttributeValue},
		{`{"a":{"N":"1e200"}}`, ErrNumber},
		{`{"a":{"NS":["1","x"]}}`, ErrNumber},
		{`{"a":{"B":"AQ="}}`, ErrBase64},
		{`{"a":{"B":"A==="}}`, ErrBase64},
		{`{"a":{"B":"AQ==AQ=="}}`, ErrBase64},
		{`{"a":{"B":"!!!!"}}`, ErrBase64},
		{`{"a":{"BS":["AQ==","*"]}}`, ErrBase64},
		{nested(65), ErrTooDeep},
	}
	for _, c := range cases {
		if got, err := ItemSize([]byte(c.item)); !errors.Is(err, c.err) {
			t.Errorf("ItemSize(%s) = %d, %v; want %v", c.item, got, err, c.err)
		}
		if got, err := refItemSize([]byte(c.item)); err == nil {
			t.Errorf("the reference accepts %s as %d", c.item, got)
		}
	}
	if got, err := ItemSize([]byte(nested(64))); err != nil || got != 1+64*4+1 {
		t.Errorf("64 levels of L: %d, %v", got, err)
	}
	for _, bad := range []string{``, `{`, `{"a":{"S":"x"}`, `{"a":{"S":"x"}} x`, `{"a" {"S":"x"}}`, "{\"a\":{\"S\":\"\x01\"}}",
		`{"a":{"S":"\q"}}`, `{"a":{"S":"\u12"}}`, `{"a":{"L":[1,]}}`, `{"a":{"L":[tru]}}`, `{"a":{"L":[01]}}`} {
		var se *SyntaxError
		if _, err := ItemSize([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("ItemSize(%q) = %v, want a *SyntaxError", bad, err)
		}
	}
}

func TestItemSizeAgainstReference(t *testing.T) {
	g := newGen(7)
	for range 3000 {
		item := g.item(1+g.r.IntN(12), g.r.IntN(4))
		got, err := ItemSize(item)
		ref, refErr := refItemSize(item)
		if err != nil || refErr != nil || got != ref {
			t.Fatalf("ItemSize = %d, %v; reference %d, %v; item %s", got, err, ref, refErr, item)
		}
	}
}

func FuzzItemSize(f *testing.F) {
	for _, c := range itemSizeCases {
		f.Add([]byte(c.item))
	}
	g := newGen(8)
	for range 20 {
		f.Add(g.item(1+g.r.IntN(6), 3))
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		checkFastAgrees(t, item)
		got, err := ItemSize(item)
		if err != nil {
			var se *SyntaxError
			known := errors.As(err, &se)
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("ItemSize(%q): %v is neither a *SyntaxError nor wraps a sentinel", item, err)
			}
		}
		if hasDuplicateKeys(item) {
			return // encoding/json keeps one of them: no reference
		}
		ref, refErr := refItemSize(item)
		if (err == nil) != (refErr == nil) || got != ref {
			t.Fatalf("ItemSize(%q) = %d, %v; reference %d, %v", item, got, err, ref, refErr)
		}
	})
}

// TestEventKind: each event name is the kind of write ddb charges.
func TestEventKind(t *testing.T) {
	for _, c := range []struct {
		ev   EventName
		ttl  bool
		want ddb.WriteKind
	}{
		{Insert, false, ddb.Created},
		{Modify, false, ddb.Updated},
		{Remove, false, ddb.Deleted},
		{Remove, true, ddb.Expired},
		{0, false, 0},
	} {
		if got := c.ev.kind(c.ttl); got != c.want {
			t.Errorf("%v.kind(%v) = %v, want %v", c.ev, c.ttl, got, c.want)
		}
	}
}

// The sizes of random items, generated apart from the scanner, must match
// on every byte boundary that decides a WCU.
func TestWriteUnitsBoundaries(t *testing.T) {
	for _, target := range []int{1023, 1024, 1025, 2047, 2048, 2049, 400 * 1024} {
		// {"p":{"S":"..."}} is 1 + len bytes.
		item := `{"p":{"S":"` + strings.Repeat("x", target-1) + `"}}`
		size, err := ItemSize([]byte(item))
		if err != nil || size != target {
			t.Fatalf("size %d, %v; want %d", size, err, target)
		}
		wcu := ddb.WriteUnits(size)
		if want := uint64((target + 1023) / 1024); wcu != want {
			t.Errorf("%d bytes: %d WCU, want %d", target, wcu, want)
		}
	}
}

// checkFastAgrees: wherever the compact fast path answers, the general
// scanner accepts the item and gives the same size and end.
func checkFastAgrees(t *testing.T, item []byte) {
	t.Helper()
	if len(item) == 0 || item[0] != '{' {
		return
	}
	fast := itemDecoder(item)
	end, size, ok := fast.sizeFast(0, nil, 0)
	if fast.scan.Err() != nil || fast.rs.err != nil {
		t.Fatalf("sizeFast left an error behind on %q", item)
	}
	if !ok {
		return
	}
	general := itemDecoder(item)
	end2, size2, _ := general.sizeMembers(0, 0)
	if general.scan.Err() != nil || general.rs.err != nil || end != end2 || size != size2 {
		t.Fatalf("sizeFast(%q) = %d, %d; general scanner %d, %d, %v %v", item, end, size, end2, size2, general.scan.Err(), general.rs.err)
	}
}

// itemDecoder is a decoder reading item, as ItemSize makes one.
func itemDecoder(item []byte) *Decoder {
	d := &Decoder{where: "item"}
	d.scan.Reset(item)
	return d
}

func TestSizeFastAgrees(t *testing.T) {
	hits := 0
	g := newGen(9)
	for range 3000 {
		item := g.item(1+g.r.IntN(10), 4)
		checkFastAgrees(t, item)
		if _, _, ok := itemDecoder(item).sizeFast(0, nil, 0); ok {
			hits++
		}
	}
	if hits < 2900 {
		t.Errorf("the fast path sized only %d of 3000 compact items", hits)
	}
	for _, c := range itemSizeCases {
		checkFastAgrees(t, []byte(c.item))
	}
	for _, item := range []string{`{"a":{"S":"x"},}`, `{"a":{"L":[,]}}`, `{"a":{"M":{]}}`, `{"a":{"L":[{"S":"x"}}}`,
		`{"a":{"SS":["x",]}}`, `{"a":{"NS":[1]}}`, `{"a":{"BOOL":tru}}`, nested(64), nested(65), `{"a":{"S":"x"}}}`} {
		checkFastAgrees(t, []byte(item))
	}
}

// TestFastNumber: the compact path sizes an N string exactly as ddb does,
// accepts every valid number without escapes, and refuses the rest.
func TestFastNumber(t *testing.T) {
	g := newGen(12)
	nums := []string{"0", "-0", "+1", "1.5", "-1.5E-3", ".5", "5.", "1e126", "1e-131", "0e999", "1.2.3", "-", "", "1e", "x",
		"12345678901234567890123456789012345678", "123456789012345678901234567890123456789", `1\u0030`}
	for range 2000 {
		nums = append(nums, g.number())
	}
	for _, n := range nums {
		q := []byte(`"` + n + `"}`)
		end, size := fastNumber(q, 0)
		want, err := ddb.NumberSize(n)
		escaped := strings.ContainsAny(n, `\"`)
		switch {
		case err == nil && !escaped && (end != len(n)+2 || size != want):
			t.Errorf("fastNumber(%s) = %d, %d; want %d, %d", q, end, size, len(n)+2, want)
		case (err != nil || escaped) && end >= 0:
			t.Errorf("fastNumber(%s) = %d, %d; ddb says %v", q, end, size, err)
		}
	}
}
