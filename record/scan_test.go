package record

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// skipValue must accept exactly the JSON that encoding/json accepts.
func TestSkipValue(t *testing.T) {
	docs := []string{`[]`, `{}`, `[[]]`, `{"a":[1,{"b":"]}"}],"c":"\"]"}`, `["\\"]`, `[1, 2.5e-3, -0, true, false, null]`,
		`[1,]`, `[,]`, `{"a"}`, `{"a":}`, `{,}`, `[01]`, `["\u12"]`, `[tru]`, `{"a":1,}`, `[1 2]`, `{"a":1 "b":2}`,
		"[\"\x01\"]", `{"a":[}`, `[{]}`, `nul`, `-`, `1.`, `.1`, `1e`, `"abc`, `[`, `{"a":1`}
	g := newGen(11)
	for range 100 {
		docs = append(docs, string(g.item(1+g.r.IntN(10), 3)))
	}
	for _, doc := range docs {
		d := &Decoder{data: []byte(doc)}
		end := d.skipValue(0)
		valid := end == len(doc)
		if valid != json.Valid([]byte(doc)) {
			t.Errorf("skipValue(%q) = %d (%v); json.Valid says %v", doc, end, d.syntax, json.Valid([]byte(doc)))
		}
	}
}

// special must find the first byte that ends a plain run, in every word.
func TestSpecial(t *testing.T) {
	isSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	interesting := []byte{0, 1, 0x1f, 0x20, 0x21, '"', 0x23, '[', '\\', ']', 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	r := rand.New(rand.NewPCG(1, 1))
	var p [8]byte
	for range 2_000_000 {
		for k := range p {
			p[k] = interesting[r.IntN(len(interesting))]
		}
		want := 8
		for k, c := range p {
			if isSpecial(c) {
				want = k
				break
			}
		}
		if got := bits.TrailingZeros64(special(binary.LittleEndian.Uint64(p[:]))) >> 3; got != want {
			t.Fatalf("special(%q): first at %d, want %d", p, got, want)
		}
	}
}

// TestLiteralAt checks the masked-word comparison members uses for its
// guess (and matchField after its switch) against a string comparison:
// every field's literal against every field's text, near misses, and the
// end of the payload; fUnknown's literal matches nothing.
func TestLiteralAt(t *testing.T) {
	var texts []string
	for id := range lits {
		if l := lits[id].s; l != "" {
			name := l[1 : len(l)-2]
			texts = append(texts, l, `"`+name+`x":`, `"`+name+`" :`, `"`+name[:len(name)-1]+`":`, `"x`+name+`":`)
		}
	}
	for id := range lits {
		l := &lits[id]
		for _, text := range texts {
			for _, tail := range []string{`"value that is long enough to fill 32 bytes"`, `1}`, ``} {
				in := []byte(text + tail)
				want := l.s != "" && strings.HasPrefix(string(in), l.s)
				if got := l.at(in, 0); got != want {
					t.Errorf("lits[%d] (%q).at(%q) = %v, want %v", id, l.s, in, got, want)
				}
			}
		}
	}
}

func TestMatchField(t *testing.T) {
	names := map[int][]string{
		kindRecord: {"eventID", "eventName", "eventVersion", "eventSource", "eventSourceARN", "awsRegion", "dynamodb"},
		kindDynamo: {"Keys", "NewImage", "OldImage", "SequenceNumber", "SizeBytes", "StreamViewType", "ApproximateCreationDateTime"},
	}
	for kind, list := range names {
		for _, name := range list {
			want := fieldID(kind, []byte(name))
			if name == "eventVersion" || name == "eventSource" || name == "awsRegion" {
				want = map[string]int{"eventVersion": fEventVersion, "eventSource": fEventSource, "awsRegion": fAWSRegion}[name]
			}
			if want == fUnknown {
				t.Fatalf("fieldID does not know %q", name)
			}
			for _, tail := range []string{`"value that is long enough"`, `1}`} { // and at the payload's end
				in := []byte(`"` + name + `":` + tail)
				if id, next := matchField(in, 0, kind); id != want || next != len(name)+3 {
					t.Errorf("matchField(%q) = %d, %d; want %d, %d", in, id, next, want, len(name)+3)
				}
				for _, near := range []string{`"` + name + `x":`, `"` + name + `" :`, `"` + name[:len(name)-1] + `":`, `"x` + name + `":`} {
					in := []byte(near + tail)
					if id, _ := matchField(in, 0, kind); id != fUnknown {
						t.Errorf("matchField(%q) = %d, want fUnknown", in, id)
					}
				}
			}
			in := []byte(`"` + name + `":"value that is long enough"`)
			// Names of one kind of object are not fields of another.
			other := kindDynamo
			if kind == kindDynamo {
				other = kindRecord
			}
			if id, _ := matchField(in, 0, other); id != fUnknown {
				t.Errorf("matchField(%q, other kind) = %d", in, id)
			}
		}
	}
}

// TestPlainNumbersAgree: the one-pass readers of times and sizes answer
// exactly as the general path (scanNumber, then parseEpoch or a digit
// loop) wherever they answer, and decline what they cannot read.
func TestPlainNumbersAgree(t *testing.T) {
	cases := []string{
		"0", "7", "1763805600", "1763805600.5", "1763805600.155", "1763805600.123456789", "1763805600.1234567891234",
		"0.5", "0.000000001", "999999999999999999", "1000000000000000000", "05", "00", "0.", "1.", ".5",
		"1e9", "1.5E9", "1763805600e0", "-1", "-0.5", "1763805600.5e1", "12,", "12}", "1.5,",
	}
	// The random cases are the shapes Lambda writes: the fast readers must
	// answer every one of them (plainUint those without a fraction), or
	// "agree wherever they answer" could hold by never answering.
	fixed := len(cases)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		s := strconv.FormatInt(r.Int64N(1<<40), 10)
		if r.IntN(2) == 0 {
			s += "." + strconv.FormatInt(1e12+r.Int64N(1e12), 10)[1:2+r.IntN(12)]
		}
		cases = append(cases, s)
	}
	var d Decoder
	for i, c := range cases {
		b := []byte(c + "}")
		d.data, d.syntax = b, nil
		end := d.scanNumber(0)
		valid := end > 0 // a number token ends at end; what follows is the caller's
		sec, nsec, e, ok := plainEpoch(b, 0)
		if !ok && i >= fixed {
			t.Errorf("plainEpoch(%q) declined a plain decimal", c)
		}
		if ok {
			want, wok := parseEpoch(b[:max(end, 0)])
			if !valid || !wok || e != end || !time.Unix(sec, nsec).Equal(want) {
				t.Errorf("plainEpoch(%q) = %d.%09d end %d; general: %v valid %v end %d", c, sec, nsec, e, want, valid, end)
			}
		}
		v, e, ok := plainUint(b, 0)
		if !ok && i >= fixed && !strings.Contains(c, ".") {
			t.Errorf("plainUint(%q) declined a plain integer", c)
		}
		if ok {
			want, err := strconv.ParseInt(string(b[:max(end, 0)]), 10, 64)
			if !valid || err != nil || e != end || v != want {
				t.Errorf("plainUint(%q) = %d end %d; general: %d %v valid %v end %d", c, v, e, want, err, valid, end)
			}
		}
	}
}
