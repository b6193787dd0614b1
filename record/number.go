package record

import "fmt"

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
	maxNumberDigits = 38
	minNumberExp    = -130 // smallest exponent of the leading digit
	maxNumberExp    = 125  // largest exponent of the leading digit
	maxPairs        = 20   // a 38-digit number spans at most 20 base-100 pairs
)

// number is a parsed DynamoDB number. Digits are counted over the mantissa
// with the decimal point removed: digit k is the k-th digit character.
type number struct {
	neg       bool
	zero      bool
	intDigits int // digits before the decimal point
	fracStart int // index of the first fraction digit in the input
	intStart  int // index of the first integer digit in the input
	first     int // digit index of the first significant (non-zero) digit
	last      int // digit index of the last significant digit
	point     int // the value is 0.<significant digits> × 10^point
}

// digits counts the significant digits.
func (n *number) digits() int { return n.last - n.first + 1 }

// size is the number's size in bytes by DynamoDB's rule.
func (n *number) size() int {
	if n.zero {
		return 1
	}
	// Pad one zero on the left when the point splits an odd number of
	// digits from it, then count pairs.
	pairs := (n.digits() + n.point&1 + 1) / 2
	if n.neg && pairs < maxPairs {
		return pairs + 2
	}
	return pairs + 1
}

// parseNumber parses a DynamoDB number, as Java's BigDecimal reads it:
// an optional sign, digits with an optional decimal point (".5" and "5."
// are numbers), and an optional exponent; then checks DynamoDB's limits.
// It returns a static error so that it never allocates.
func parseNumber[T string | []byte](s T) (number, error) {
	var n number
	err := parseNumberInto(s, &n)
	return n, err
}

// parseNumberInto is parseNumber writing into n, which is cheaper in the
// decoder's hot loop than returning the struct.
func parseNumberInto[T string | []byte](s T, n *number) error {
	*n = number{}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	n.intStart = i
	n.first = -1
	k := 0 // digit index, over integer and fraction digits
	for ; i < len(s) && isDigit(s[i]); i, k = i+1, k+1 {
		if s[i] != '0' {
			if n.first < 0 {
				n.first = k
			}
			n.last = k
		}
	}
	n.intDigits = k
	if i < len(s) && s[i] == '.' {
		i++
		n.fracStart = i
		for ; i < len(s) && isDigit(s[i]); i, k = i+1, k+1 {
			if s[i] != '0' {
				if n.first < 0 {
					n.first = k
				}
				n.last = k
			}
		}
	}
	if k == 0 {
		return errNumberSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return errNumberSyntax
		}
		for ; i < len(s) && isDigit(s[i]); i++ {
			// BigDecimal keeps the scale in an int; far before that,
			// any non-zero number is out of DynamoDB's range.
			if exp = exp*10 + int(s[i]-'0'); exp > 999_999_999 {
				return errNumberRange
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) {
		return errNumberSyntax
	}
	if n.first < 0 {
		n.zero = true
		return nil
	}
	n.point = n.intDigits - n.first + exp
	if n.digits() > maxNumberDigits {
		return errNumberDigits
	}
	if e := n.point - 1; e < minNumberExp || e > maxNumberExp {
		return errNumberRange
	}
	return nil
}

// digitAt returns digit k of n's mantissa in s.
func digitAt[T string | []byte](s T, n *number, k int) byte {
	if k < n.intDigits {
		return s[n.intStart+k]
	}
	return s[n.fracStart+k-n.intDigits]
}

// appendCanonical appends n in canonical form: plain decimal, no exponent,
// no leading or trailing zeros, "-" only for a negative non-zero number.
// Two numbers DynamoDB compares as equal come out byte-for-byte equal.
func appendCanonical[T string | []byte](dst []byte, s T, n *number) []byte {
	if n.zero {
		return append(dst, '0')
	}
	if n.neg {
		dst = append(dst, '-')
	}
	p := n.digits()
	if n.point <= 0 {
		dst = append(dst, '0', '.')
		for range -n.point {
			dst = append(dst, '0')
		}
	}
	for k := 0; k < p; k++ {
		if k == n.point && k > 0 {
			dst = append(dst, '.')
		}
		dst = append(dst, digitAt(s, n, n.first+k))
	}
	for k := p; k < n.point; k++ {
		dst = append(dst, '0')
	}
	return dst
}

// NumberSize returns the size in bytes that DynamoDB charges for the
// number n (the text of an N value), by the rule DynamoDB Local implements:
// 1 byte, plus 1 per base-100 digit pair aligned on the decimal point
// (leading and trailing zero pairs dropped), plus 1 for a negative number
// of fewer than 20 pairs. Zero is 1 byte. It fails for text that is not a
// number, or a number DynamoDB cannot store (more than 38 significant
// digits, magnitude outside 1e-130 to 1e126).
func NumberSize(n string) (int, error) {
	num, err := parseNumber(n)
	if err != nil {
		return 0, fmt.Errorf("%w %q", err, n)
	}
	return num.size(), nil
}

// CanonicalNumber appends to dst the canonical decimal form of the number
// n: no exponent, no leading or trailing zeros, "-" only for a negative
// non-zero number ("10", "10.0", "1e1" and "+10" all give "10"; "-0" gives
// "0"; "1.50E-3" gives "0.0015"). It fails as NumberSize does.
func CanonicalNumber(dst []byte, n []byte) ([]byte, error) {
	num, err := parseNumber(n)
	if err != nil {
		return dst, fmt.Errorf("%w %q", err, n)
	}
	return appendCanonical(dst, n, &num), nil
}
