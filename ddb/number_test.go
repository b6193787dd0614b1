package ddb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// numberCases pins the number rule. Every size here was measured on
// DynamoDB Local 1.11.478 (the padding at which a PutItem tips from 1 to
// 2 WCU, ReturnConsumedCapacity=TOTAL), except the canonical forms and the
// cases marked "rule", which follow from its encodeBigDecimal; all are
// checked against the math/big reference as well.
var numberCases = []struct {
	in        string
	size      int
	canonical string
}{
	// Measured on DynamoDB Local; the guide's rule would say 2,2,2,2,2,2,4.
	{"1.5", 3, "1.5"},
	{"12000", 3, "12000"},
	{"230", 3, "230"},
	{"0.00091", 3, "0.00091"},
	{"-1", 3, "-1"},
	{"-1.5", 4, "-1.5"},
	{"3.14159", 5, "3.14159"},

	// Zero is the exponent byte alone, whatever its spelling.
	{"0", 1, "0"},
	{"-0", 1, "0"},
	{"+0.000", 1, "0"},
	{"0e99", 1, "0"},     // rule
	{"0.0E-500", 1, "0"}, // rule

	// One canonical key for every spelling of a value.
	{"10", 2, "10"},
	{"10.0", 2, "10"}, // rule
	{"1e1", 2, "10"},  // rule
	{"+10", 2, "10"},
	{"0010.000", 2, "10"}, // rule
	{"100E-1", 2, "10"},   // rule
	{".5", 2, "0.5"},
	{"5.", 2, "5"},
	{"1", 2, "1"}, // rule
	{"99", 2, "99"},
	{"100", 2, "100"},     // 01|00: the trailing zero pair goes
	{"101", 3, "101"},     // 01|01
	{"1500", 2, "1500"},   // rule
	{"15000", 3, "15000"}, // rule
	{"-0.5", 3, "-0.5"},   // rule
	{"-99", 3, "-99"},
	{"-100", 3, "-100"},
	{"-1e-130", 3, "-0." + strings.Repeat("0", 129) + "1"},
	{"1.50E-3", 2, "0.0015"},  // (00)|15: leading zero pair goes
	{"1.50E-4", 3, "0.00015"}, // (00)|01|50
	{"6.13E-120", 3, "0." + strings.Repeat("0", 119) + "613"},
	{"123456", 4, "123456"}, // rule
	{"1234567", 5, "1234567"},
	{"0.1234567", 5, "0.1234567"},

	// Limits: 38 significant digits, 1e-130 <= |x| < 1e126.
	{"1e125", 2, "1" + strings.Repeat("0", 125)},
	{"1e-130", 2, "0." + strings.Repeat("0", 129) + "1"},
	{"9.9999999999999999999999999999999999999E+125", 20, "99999999999999999999999999999999999999" + strings.Repeat("0", 88)},
	{"12345678901234567890123456789012345678", 20, "12345678901234567890123456789012345678"},
	// 38 digits, point after an odd count: 20 pairs, so no sign byte.
	{"1234567890123456789012345678901234567.8", 21, "1234567890123456789012345678901234567.8"},
	{"-1234567890123456789012345678901234567.8", 21, "-1234567890123456789012345678901234567.8"},
	{"-12345678901234567890123456789012345678", 21, "-12345678901234567890123456789012345678"},
	{"-1234567890123456789012345678901234567", 21, "-1234567890123456789012345678901234567"},
	{"1000000000000000000000000000000000000000000", 2, "1" + strings.Repeat("0", 42)}, // rule
}

var badNumbers = []struct {
	in  string
	err error
}{
	{"", errNumberSyntax},
	{"-", errNumberSyntax},
	{"+", errNumberSyntax},
	{".", errNumberSyntax},
	{"e5", errNumberSyntax},
	{"1e", errNumberSyntax},
	{"1e+", errNumberSyntax},
	{"1.2.3", errNumberSyntax},
	{"1,5", errNumberSyntax},
	{" 1", errNumberSyntax},
	{"1 ", errNumberSyntax},
	{"0x10", errNumberSyntax},
	{"NaN", errNumberSyntax},
	{"Infinity", errNumberSyntax},
	{"--1", errNumberSyntax},
	{"1e5.5", errNumberSyntax},
	{"123456789012345678901234567890123456789", errNumberDigits}, // 39 digits
	{"1.23456789012345678901234567890123456789", errNumberDigits},
	{"1e126", errNumberRange},
	{"-1e126", errNumberRange},
	{"1e-131", errNumberRange},
	{"0.1e-130", errNumberRange},
	{"1e9999999999", errNumberRange},
}

func TestNumberSize(t *testing.T) {
	for _, c := range numberCases {
		got, err := NumberSize(c.in)
		if err != nil || got != c.size {
			t.Errorf("NumberSize(%q) = %d, %v; want %d", c.in, got, err, c.size)
		}
		ref, err := refNumberSize(c.in)
		if err != nil || ref != c.size {
			t.Errorf("reference size of %q = %d, %v; the table says %d", c.in, ref, err, c.size)
		}
	}
	for _, c := range badNumbers {
		if got, err := NumberSize(c.in); !errors.Is(err, c.err) || !errors.Is(err, ErrNumber) {
			t.Errorf("NumberSize(%q) = %d, %v; want %v", c.in, got, err, c.err)
		}
		if _, err := refNumberSize(c.in); err == nil {
			t.Errorf("the reference accepts %q", c.in)
		}
	}
}

func TestCanonicalNumber(t *testing.T) {
	for _, c := range numberCases {
		got, err := CanonicalNumber([]byte("prefix:"), []byte(c.in))
		if err != nil || string(got) != "prefix:"+c.canonical {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", c.in, got, err, c.canonical)
		}
		ref, err := refCanonical(c.in)
		if err != nil || ref != c.canonical {
			t.Errorf("reference canonical of %q = %q, %v; the table says %q", c.in, ref, err, c.canonical)
		}
	}
	for _, c := range badNumbers {
		if got, err := CanonicalNumber(nil, []byte(c.in)); !errors.Is(err, c.err) || !errors.Is(err, ErrNumber) {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %v", c.in, got, err, c.err)
		}
	}
}

// randomNumber spells a random number in one of the shapes DynamoDB and
// its SDKs produce, and some they do not.
func randomNumber(r *rand.Rand) string {
	var sb strings.Builder
	switch r.IntN(4) {
	case 0:
		sb.WriteByte('-')
	case 1:
		if r.IntN(4) == 0 {
			sb.WriteByte('+')
		}
	}
	digits := func(n int) {
		for range n {
			if r.IntN(3) == 0 {
				sb.WriteByte('0')
			} else {
				sb.WriteByte(byte('0' + r.IntN(10)))
			}
		}
	}
	switch r.IntN(4) {
	case 0: // integer
		digits(1 + r.IntN(40))
	case 1: // decimal
		digits(r.IntN(20))
		sb.WriteByte('.')
		digits(1 + r.IntN(20))
	case 2: // leading-zero fraction
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", r.IntN(8)))
		digits(1 + r.IntN(10))
	default: // E-notation, as DynamoDB Local writes it
		digits(1)
		sb.WriteByte('.')
		digits(r.IntN(37))
		sb.WriteString([]string{"E", "e", "E+", "E-", "e-"}[r.IntN(5)])
		fmt.Fprint(&sb, r.IntN(140))
	}
	return sb.String()
}

func TestNumberAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	valid := 0
	for range 5000 {
		s := randomNumber(r)
		checkNumber(t, s)
		if _, err := NumberSize(s); err == nil {
			valid++
		}
	}
	if valid < 2500 {
		t.Fatalf("only %d of 5000 random numbers were valid: the generator is off", valid)
	}
}

// plainShape is what PlainNumberSize must size itself when the number is
// valid: an optional '-', digits with at most one '.', an optional exponent.
var plainShape = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// checkNumber compares NumberSize and CanonicalNumber with the reference.
func checkNumber(t *testing.T, s string) {
	t.Helper()
	size, err := NumberSize(s)
	ref, refErr := refNumberSize(s)
	if (err == nil) != (refErr == nil) || size != ref || (err != nil && !errors.Is(err, ErrNumber)) {
		t.Fatalf("NumberSize(%q) = %d, %v; reference %d, %v", s, size, err, ref, refErr)
	}
	// The one-pass sizer answers for plain decimals only, and then as the
	// reference does; what follows the number is the caller's to check.
	b := []byte(`"` + s + `"`)
	n, size1 := PlainNumberSize(b, 1)
	if n == len(s)+1 && (refErr != nil || size1 != ref) {
		t.Fatalf("PlainNumberSize(%q, 1) = %d, %d; reference %d, %v", b, n, size1, ref, refErr)
	}
	if n != len(s)+1 && refErr == nil && plainShape.MatchString(s) {
		t.Fatalf("PlainNumberSize(%q) declined a plain decimal", b)
	}
	canon, err := CanonicalNumber(nil, []byte(s))
	refCanon, refErr := refCanonical(s)
	if (err == nil) != (refErr == nil) || string(canon) != refCanon || (err != nil && !errors.Is(err, ErrNumber)) {
		t.Fatalf("CanonicalNumber(%q) = %q, %v; reference %q, %v", s, canon, err, refCanon, refErr)
	}
	if err == nil { // the canonical form is a fixed point of the same size
		again, err := CanonicalNumber(nil, canon)
		if err != nil || string(again) != string(canon) {
			t.Fatalf("CanonicalNumber(%q) = %q, %v; not a fixed point", canon, again, err)
		}
		if n, _ := NumberSize(string(canon)); n != size {
			t.Fatalf("%q is %d bytes but its canonical %q is %d", s, size, canon, n)
		}
	}
}

func FuzzNumberSize(f *testing.F) {
	for _, c := range numberCases {
		f.Add(c.in)
	}
	for _, c := range badNumbers {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNumber(t, s)
	})
}

func TestNumberSizeAllocs(t *testing.T) {
	in := []byte("-1234.5678E-3")
	dst := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		num, err := ParseNumber(in)
		if err != nil {
			t.Fatal(err)
		}
		_ = num.Size()
		dst, _, _ = AppendCanonical(dst[:0], in)
	})
	if allocs != 0 {
		t.Fatalf("parsing a number allocates %.0f times", allocs)
	}
}

// TestDigits8 checks the word-at-a-time digit scan against a byte loop, on
// words of digits mixed with the bytes a number can end at and any byte.
func TestDigits8(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	alphabet := []byte("0000123456789.eE+-\",}/:\x00\x7f\x80\xff")
	for range 200_000 {
		var p [8]byte
		for k := range p {
			if r.IntN(8) == 0 {
				p[k] = byte(r.IntN(256))
			} else {
				p[k] = alphabet[r.IntN(len(alphabet))]
			}
		}
		wantN, wantNZ := 8, uint64(0)
		for k, c := range p {
			if c < '0' || c > '9' {
				wantN = k
				break
			}
			if c != '0' {
				wantNZ |= 0x80 << (8 * k)
			}
		}
		if n, nz := digits8(binary.LittleEndian.Uint64(p[:])); n != wantN || nz != wantNZ {
			t.Fatalf("digits8(%q) = %d, %#x; want %d, %#x", p, n, nz, wantN, wantNZ)
		}
	}
}
