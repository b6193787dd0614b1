package ddb

// An independent, deliberately plain implementation of DynamoDB's number
// rules: math/big to take numbers apart, and base 100 counted digit by
// digit. It shares no code with the package; the tests and fuzzers check
// the parser and the one-pass sizer against it.

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// BigDecimal's grammar, which DynamoDB applies to N values.
var refNumberRE = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

var errRef = errors.New("reference: invalid")

// refNumber parses s into an exact rational, checking DynamoDB's limits.
func refNumber(s string) (*big.Rat, error) {
	m := refNumberRE.FindStringSubmatch(s)
	if m == nil {
		return nil, errRef
	}
	mant, exp := m[1], 0
	if m[2] != "" {
		e, err := strconv.Atoi(strings.TrimPrefix(m[2][1:], "+"))
		if err != nil || e > 999_999_999 || e < -999_999_999 {
			return nil, errRef
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if abs(exp) > len(mant)+200 {
		// The leading digit's exponent is within len(mant) of exp: far
		// outside [-130, 125], unless the number is zero. (And 10^exp
		// would not fit in memory.)
		if strings.Trim(intPart+frac, "0") == "" {
			return new(big.Rat), nil
		}
		return nil, errRef
	}
	unscaled, ok := new(big.Int).SetString(intPart+frac+"0", 10) // "+0" keeps "" parseable
	if !ok {
		return nil, errRef
	}
	unscaled.Quo(unscaled, big.NewInt(10))
	// value = unscaled × 10^(exp - len(frac))
	x := new(big.Rat).SetInt(unscaled)
	x.Mul(x, pow10(exp-len(frac)))
	if strings.HasPrefix(s, "-") {
		x.Neg(x)
	}
	if x.Sign() == 0 {
		return x, nil
	}
	abs := new(big.Rat).Abs(x)
	// 10^D <= |x| < 10^(D+1): DynamoDB allows D in [-130, 125].
	D := 0
	for abs.Cmp(pow10(D+1)) >= 0 {
		D++
	}
	for abs.Cmp(pow10(D)) < 0 {
		D--
	}
	if D < -130 || D > 125 {
		return nil, errRef
	}
	// Significant digits: |x| × 10^(37-D) must be an integer below 10^38.
	scaled := new(big.Rat).Mul(abs, pow10(37-D))
	if !scaled.IsInt() {
		return nil, errRef
	}
	return x, nil
}

var pow10s sync.Map // int -> *big.Rat; read-only once stored

func pow10(e int) *big.Rat {
	if r, ok := pow10s.Load(e); ok {
		return r.(*big.Rat)
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(e))), nil)
	r := new(big.Rat).SetInt(p)
	if e < 0 {
		r.Inv(r)
	}
	pow10s.Store(e, r)
	return r
}

func abs(e int) int {
	if e < 0 {
		return -e
	}
	return e
}

// refNumberSize encodes |x| in base 100 the way DynamoDB stores it and
// counts the bytes: exponent byte, one byte per base-100 digit, and a
// terminator for negative numbers of fewer than 20 digits.
func refNumberSize(s string) (int, error) {
	x, err := refNumber(s)
	if err != nil {
		return 0, err
	}
	if x.Sign() == 0 {
		return 1, nil
	}
	y := new(big.Rat).Abs(x)
	hundred := big.NewRat(100, 1)
	// Scale y into [1/100, 1): then its base-100 digits are its pairs.
	for y.Cmp(big.NewRat(1, 1)) >= 0 {
		y.Quo(y, hundred)
	}
	for y.Cmp(big.NewRat(1, 100)) < 0 {
		y.Mul(y, hundred)
	}
	pairs := 0
	for y.Sign() != 0 {
		y.Mul(y, hundred)
		digit := new(big.Int).Quo(y.Num(), y.Denom())
		y.Sub(y, new(big.Rat).SetInt(digit))
		pairs++
	}
	size := 1 + pairs
	if x.Sign() < 0 && pairs < 20 {
		size++
	}
	return size, nil
}

// refCanonical writes the exact decimal of s, trimmed.
func refCanonical(s string) (string, error) {
	x, err := refNumber(s)
	if err != nil {
		return "", err
	}
	out := x.FloatString(200)
	out = strings.TrimRight(out, "0")
	out = strings.TrimSuffix(out, ".")
	if out == "" || out == "-" || out == "-0" {
		out = "0"
	}
	return out, nil
}
