package ddb

import (
	"errors"
	"fmt"
)

// DynamoDB numbers.
//
// DynamoDB stores a number the way Oracle's NUMBER type does: one byte of
// exponent, then the significant digits in base 100, two decimal digits a
// byte, with the pairs aligned on the decimal point, so that 1.5 is the
// pairs 01|50. Leading and trailing zero pairs are dropped. A negative
// number gets one more byte, a terminator, unless it already has 20 pairs.
// Zero is the single exponent byte. DynamoDB Local computes item size from
// exactly this encoding (LocalDBUtils.encodeBigDecimal); the AWS guide's
// "one byte per two significant digits, plus one" is its approximation.
//
//	1.5     -> 01|50          -> 1+2   = 3
//	12000   -> 01|20|(00)     -> 1+2   = 3
//	0.00091 -> (00|00)|09|10  -> 1+2   = 3
//	-1.5    -> 01|50, sign    -> 1+2+1 = 4
//	3.14159 -> 03|14|15|90    -> 1+4   = 5
//	0       ->                -> 1

// DynamoDB's limits on numbers: 38 significant digits, magnitude from
// 1e-130 up to (but excluding) 1e126.
const (
	MaxNumberDigits = 38
	minNumberExp    = -130 // smallest exponent of the leading digit
	maxNumberExp    = 125  // largest exponent of the leading digit
	maxPairs        = 20   // a 38-digit number spans at most 20 base-100 pairs
)

// ErrNumber is wrapped by every error about a number: text that is not a
// number, or a number DynamoDB cannot store.
var ErrNumber = errors.New("ddb: invalid number")

// The causes ParseNumber returns: static, so that parsing never allocates.
var (
	errNumberSyntax = fmt.Errorf("%w: not a number", ErrNumber)
	errNumberDigits = fmt.Errorf("%w: more than %d significant digits", ErrNumber, MaxNumberDigits)
	errNumberRange  = fmt.Errorf("%w: magnitude outside DynamoDB's range [1e-130, 1e126)", ErrNumber)
)

// Decimal is a number as DynamoDB's size rule and limits see it: its sign,
// how many significant digits it has (leading and trailing zeros dropped;
// none for zero), and where the decimal point falls among them: the value
// is ±0.d₁d₂…dₙ × 10^Point.
type Decimal struct {
	Neg    bool
	Digits int
	Point  int
}

// Size is the number's size in bytes: 1, plus 1 per base-100 digit pair
// aligned on the decimal point, plus 1 for a negative number of fewer than
// 20 pairs; zero is 1.
func (d Decimal) Size() int {
	if d.Digits == 0 {
		return 1
	}
	// Pad one zero on the left when the point splits an odd number of
	// digits from it, then count pairs.
	pairs := (d.Digits + d.Point&1 + 1) / 2
	if d.Neg && pairs < maxPairs {
		return pairs + 2
	}
	return pairs + 1
}

// Fits reports whether DynamoDB can store the number: at most 38
// significant digits, magnitude in [1e-130, 1e126).
func (d Decimal) Fits() bool {
	return d.Digits == 0 || d.Digits <= MaxNumberDigits && d.Point-1 >= minNumberExp && d.Point-1 <= maxNumberExp
}

// numberText is a parsed number and where its significant digits lie in
// its text, for its canonical form. Digits are counted over the mantissa
// with the decimal point removed: digit k is the k-th digit character.
type numberText struct {
	Decimal
	intStart  int // index in the text of the first integer digit
	intDigits int // digits before the decimal point
	fracStart int // index in the text of the first fraction digit
	first     int // digit index of the first significant digit; -1: none yet
	last      int // digit index of the last significant digit
}

// ParseNumber parses the text of an N value as DynamoDB does (as Java's
// BigDecimal reads it): an optional sign, digits with an optional decimal
// point (".5" and "5." are numbers), and an optional exponent; then checks
// DynamoDB's limits. Its errors wrap ErrNumber and never allocate, and do
// not quote the text (NumberSize's do).
func ParseNumber[T string | []byte](s T) (Decimal, error) {
	var n numberText
	err := parse(s, &n)
	return n.Decimal, err
}

// NumberSize returns the size in bytes that DynamoDB charges for the number
// n (the text of an N value): see Decimal.Size. It fails, wrapping
// ErrNumber, for text that is not a number or a number DynamoDB cannot
// store.
func NumberSize(n string) (int, error) {
	d, err := ParseNumber(n)
	if err != nil {
		return 0, fmt.Errorf("%w %q", err, n)
	}
	return d.Size(), nil
}

// AppendCanonical appends to dst the canonical decimal form of the number
// whose text is s (see CanonicalNumber) and returns it with the number.
// Its errors are ParseNumber's: static, without the text.
func AppendCanonical[T string | []byte](dst []byte, s T) ([]byte, Decimal, error) {
	var n numberText
	if err := parse(s, &n); err != nil {
		return dst, Decimal{}, err
	}
	return appendCanonical(dst, s, &n), n.Decimal, nil
}

// CanonicalNumber appends to dst the canonical decimal form of the number
// n: no exponent, no leading or trailing zeros, "-" only for a negative
// non-zero number ("10", "10.0", "1e1" and "+10" all give "10"; "-0" gives
// "0"; "1.50E-3" gives "0.0015"). Two numbers DynamoDB compares as equal
// come out byte-for-byte equal. It fails as NumberSize does.
func CanonicalNumber(dst []byte, n []byte) ([]byte, error) {
	out, _, err := AppendCanonical(dst, n)
	if err != nil {
		return dst, fmt.Errorf("%w %q", err, n)
	}
	return out, nil
}

// parse is ParseNumber keeping where the digits are.
func parse[T string | []byte](s T, n *numberText) error {
	*n = numberText{first: -1}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.Neg = s[i] == '-'
		i++
	}
	n.intStart = i
	i, k := digits(s, i, 0, n)
	n.intDigits = k
	if i < len(s) && s[i] == '.' {
		n.fracStart = i + 1
		i, k = digits(s, i+1, k, n)
	}
	if k == 0 {
		return errNumberSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exp, i = exponent(s, i+1)
		switch {
		case !isDigit(s[i-1]): // an exponent without digits
			return errNumberSyntax
		case exp == maxExponent || exp == -maxExponent:
			return errNumberRange
		}
	}
	if i != len(s) {
		return errNumberSyntax
	}
	if n.first < 0 { // zero
		n.Neg = false
		return nil
	}
	n.Digits = n.last - n.first + 1
	n.Point = n.intDigits - n.first + exp
	switch {
	case n.Digits > MaxNumberDigits:
		return errNumberDigits
	case !n.Fits():
		return errNumberRange
	}
	return nil
}

// digits scans the run of digits at s[i:], digit k onwards, noting in n
// the first and last significant ones; it returns the end of the run and
// the next digit index.
func digits[T string | []byte](s T, i, k int, n *numberText) (int, int) {
	for ; i < len(s) && isDigit(s[i]); i, k = i+1, k+1 {
		if s[i] != '0' {
			if n.first < 0 {
				n.first = k
			}
			n.last = k
		}
	}
	return i, k
}

// exponent reads the exponent at s[i:], just after its 'e': an optional
// sign and digits. It returns the exponent and its end; the caller checks
// that it has digits. BigDecimal keeps the scale in an int; far before
// that, any non-zero number is out of DynamoDB's range, so the exponent
// stops growing at ±maxExponent.
func exponent[T string | []byte](s T, i int) (exp, end int) {
	neg := i < len(s) && s[i] == '-'
	if neg || i < len(s) && s[i] == '+' {
		i++
	}
	for ; i < len(s) && isDigit(s[i]); i++ {
		exp = min(exp*10+int(s[i]-'0'), maxExponent)
	}
	if neg {
		exp = -exp
	}
	return exp, i
}

// maxExponent is where exponent stops counting.
const maxExponent = 1_000_000_000

// appendCanonical appends the canonical form of n, parsed from s.
func appendCanonical[T string | []byte](dst []byte, s T, n *numberText) []byte {
	if n.Digits == 0 {
		return append(dst, '0')
	}
	if n.Neg {
		dst = append(dst, '-')
	}
	if n.Point <= 0 {
		dst = append(dst, '0', '.')
		for range -n.Point {
			dst = append(dst, '0')
		}
	}
	for k := 0; k < n.Digits; k++ {
		if k == n.Point && k > 0 {
			dst = append(dst, '.')
		}
		dst = append(dst, digitAt(s, n, n.first+k))
	}
	for k := n.Digits; k < n.Point; k++ {
		dst = append(dst, '0')
	}
	return dst
}

// digitAt returns digit k of n's mantissa in s.
func digitAt[T string | []byte](s T, n *numberText, k int) byte {
	if k < n.intDigits {
		return s[n.intStart+k]
	}
	return s[n.fracStart+k-n.intDigits]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
