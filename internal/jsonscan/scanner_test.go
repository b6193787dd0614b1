package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"math/rand/v2"
	"testing"
)

var documents = []string{
	`[]`, `{}`, `[[]]`, `{"a":[1,{"b":"]}"}],"c":"\"]"}`, `["\\"]`, `[1, 2.5e-3, -0, true, false, null]`,
	` {"a" : "x\u00e9\ud83d\ude00\n" } `, `"plain"`, `0`, `-12.5E+3`, `null`,
	`[1,]`, `[,]`, `{"a"}`, `{"a":}`, `{,}`, `[01]`, `["\u12"]`, `[tru]`, `{"a":1,}`, `[1 2]`, `{"a":1 "b":2}`,
	"[\"\x01\"]", `{"a":[}`, `[{]}`, `nul`, `-`, `1.`, `.1`, `1e`, `"abc`, `[`, `{"a":1`, ``, ` `, `{"a":1}}`, `[]]`,
	"\"\xff\"", `"\ud800"`, `"\q"`, `{"\u0061":1,"a":2}`,
}

// valueAt is what the scanner makes of data as one JSON value: whether it
// accepts it, with only whitespace around it.
func valueAt(s *Scanner, data []byte) bool {
	s.Reset(data)
	end := s.SkipValue(SkipWS(data, 0))
	ok := end >= 0 && SkipWS(data, end) == len(data)
	if (end < 0) != (s.Err() != nil) {
		panic("a negative position without a syntax error, or the reverse")
	}
	return ok
}

// TestSkipValue: SkipValue accepts exactly the JSON that encoding/json
// accepts.
func TestSkipValue(t *testing.T) {
	var s Scanner
	for _, doc := range documents {
		if got, want := valueAt(&s, []byte(doc)), json.Valid([]byte(doc)); got != want {
			t.Errorf("SkipValue(%q): valid %v (%v); json.Valid says %v", doc, got, s.Err(), want)
		}
	}
}

// FuzzSkipValue holds SkipValue and StringBytes to encoding/json, and
// checks that a scanner that rejected an input reads the next one as a
// fresh scanner does.
func FuzzSkipValue(f *testing.F) {
	for _, doc := range documents {
		f.Add(doc)
	}
	var s Scanner // one scanner for every input: a rejected one must not spoil it
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		if got, want := valueAt(&s, data), json.Valid(data); got != want {
			t.Fatalf("SkipValue(%q): valid %v (%v); json.Valid says %v", doc, got, s.Err(), want)
		}
		var want string
		if q := SkipWS(data, 0); q < len(data) && data[q] == '"' && json.Unmarshal(data, &want) == nil {
			s.Reset(data)
			end, got := s.StringBytes(q)
			if end < 0 || string(got) != want {
				t.Fatalf("StringBytes(%q) = %q (end %d, %v); encoding/json %q", doc, got, end, s.Err(), want)
			}
			if e, n, _ := s.ScanString(q); e != end || n != len(want) {
				t.Fatalf("ScanString(%q) = %d, %d; want %d, %d", doc, e, n, end, len(want))
			}
		}
		const after = `{"a":[1,{"b":"\u00e9"}],"c":null}`
		if !valueAt(&s, []byte(after)) {
			t.Fatalf("after %q, the scanner rejects %s: %v", doc, after, s.Err())
		}
	})
}

// TestPlainRunEnds: the word-at-a-time test finds the first byte that ends
// a plain run, in every word.
func TestPlainRunEnds(t *testing.T) {
	ends := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	interesting := []byte{0, 1, 0x1f, 0x20, 0x21, '"', 0x23, '[', '\\', ']', 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	r := rand.New(rand.NewPCG(1, 1))
	var p [8]byte
	for range 2_000_000 {
		for k := range p {
			p[k] = interesting[r.IntN(len(interesting))]
		}
		want := 8
		for k, c := range p {
			if ends(c) {
				want = k
				break
			}
		}
		if got := bits.TrailingZeros64(plainRunEnds(binary.LittleEndian.Uint64(p[:]))) >> 3; got != want {
			t.Fatalf("plainRunEnds(%q): first at %d, want %d", p, got, want)
		}
	}
}

// TestPlainString: the fast paths agree with ScanString wherever they
// answer, and answer for every plain string long enough to read by words.
func TestPlainString(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	alphabet := []byte("abc \"\\\x01\xc3\xa9\x7f")
	var s Scanner
	for range 100_000 {
		str := make([]byte, r.IntN(24))
		for k := range str {
			str[k] = alphabet[r.IntN(len(alphabet))]
		}
		data := append(append([]byte{'"'}, str...), `"          `...)
		s.Reset(data)
		end, _, flags := s.ScanString(0)
		s.ClearErr()
		plain := end >= 0 && flags == 0 && isPlain(data[1:end-1])
		if got := PlainString(data, 0); (got >= 0) != plain || (plain && got != end) {
			t.Fatalf("PlainString(%q) = %d; ScanString %d, plain %v", data, got, end, plain)
		}
		if got := ShortString(data, 0); (got >= 0) != (plain && end-2 < 8) || (got >= 0 && got != end) {
			t.Fatalf("ShortString(%q) = %d; ScanString %d, plain %v", data, got, end, plain)
		}
	}
}

func isPlain(s []byte) bool {
	for _, c := range s {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

func TestSyntaxError(t *testing.T) {
	var s Scanner
	err := s.Members([]byte(`{"a":1,}`), func([]byte, int, int, int) error { return nil })
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 7 || err.Error() != `jsonscan: invalid JSON at byte 7: invalid character '}', expected a string key` {
		t.Fatalf("Members: %v", err)
	}
}
