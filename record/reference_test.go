package record

// An independent, deliberately plain implementation of DynamoDB's size
// rules: encoding/json to read the item, math/big to take numbers apart.
// It shares no code with the package; the tests and fuzzers check the
// fast scanner against it.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
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

// refItemSize sizes an item with encoding/json.
func refItemSize(data []byte) (int, error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return 0, errRef
	}
	var item map[string]json.RawMessage
	if err := json.Unmarshal(data, &item); err != nil {
		return 0, err
	}
	total := 0
	for name, raw := range item {
		n, err := refValueSize(raw, 0)
		if err != nil {
			return 0, err
		}
		total += len(name) + n
	}
	return total, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// strict unmarshals raw into v, refusing null (which encoding/json would
// quietly accept as a zero value).
func strict(raw json.RawMessage, v any) error {
	if isNull(raw) {
		return errRef
	}
	return json.Unmarshal(raw, v)
}

func refValueSize(raw json.RawMessage, depth int) (int, error) {
	var av map[string]json.RawMessage
	if err := strict(raw, &av); err != nil || len(av) != 1 {
		return 0, errRef
	}
	for tag, v := range av {
		switch tag {
		case "S":
			var s string
			err := strict(v, &s)
			return len(s), err
		case "N":
			var s string
			if err := strict(v, &s); err != nil {
				return 0, err
			}
			return refNumberSize(s)
		case "B":
			var s string // not []byte: encoding/json would take an array of numbers too
			if err := strict(v, &s); err != nil {
				return 0, err
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return len(b), err
		case "BOOL", "NULL":
			var b bool
			return 1, strict(v, &b)
		case "SS", "NS", "BS":
			var elems []json.RawMessage
			if err := strict(v, &elems); err != nil {
				return 0, err
			}
			total := 0
			for _, e := range elems {
				n, err := refValueSize(json.RawMessage(fmt.Sprintf(`{%q:%s}`, tag[:1], e)), depth)
				if err != nil {
					return 0, err
				}
				total += n
			}
			return total, nil
		case "L":
			if depth >= 64 {
				return 0, errRef
			}
			var elems []json.RawMessage
			if err := strict(v, &elems); err != nil {
				return 0, err
			}
			total := 3
			for _, e := range elems {
				n, err := refValueSize(e, depth+1)
				if err != nil {
					return 0, err
				}
				total += 1 + n
			}
			return total, nil
		case "M":
			if depth >= 64 {
				return 0, errRef
			}
			var m map[string]json.RawMessage
			if err := strict(v, &m); err != nil {
				return 0, err
			}
			total := 3
			for name, e := range m {
				n, err := refValueSize(e, depth+1)
				if err != nil {
					return 0, err
				}
				total += 1 + len(name) + n
			}
			return total, nil
		}
	}
	return 0, errRef
}

// hasDuplicateKeys reports whether any object in data repeats a key, or
// data is not JSON: encoding/json keeps only the last of duplicates, so
// the reference cannot be compared on such input.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expKey bool
	}
	var st []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return err.Error() != "EOF"
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		if top != nil && top.obj && top.expKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.expKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.obj {
				top.expKey = true
			}
			st = append(st, &frame{obj: true, keys: map[string]bool{}, expKey: true})
			continue
		case json.Delim('['):
			if top != nil && top.obj {
				top.expKey = true
			}
			st = append(st, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
			continue
		}
		if top != nil && top.obj {
			top.expKey = true
		}
	}
}
