package keypattern

import "encoding/binary"

// Class is what one part of a key is: a literal kept as it is, or a value
// replaced by its class in the pattern.
type Class uint8

// The classes, as a pattern shows them. See the package documentation for
// the rule that recognises each.
const (
	Literal  Class = iota // kept as it is: OPS_LOG, TENANT, acme
	Any                   // <*>: a literal part learnt to vary
	Number                // <n>: ASCII digits, or a Number key
	UUID                  // <uuid>: 8-4-4-4-12 hexadecimal digits
	Date                  // <date>: 2026-06-22, or the month 2026-06
	DateTime              // <datetime>: ISO 8601, 2026-06-22T01:00:00.123Z
	Hex                   // <hex>: 8+ hexadecimal digits of one case, with a digit and a letter
	ID                    // <id>: ULID, KSUID and other random alphanumeric identifiers
	Email                 // <email>: local@domain.tld
	Bytes                 // <bytes>: a Binary key
	numClasses
)

var classNames = [numClasses]string{"", "<*>", "<n>", "<uuid>", "<date>", "<datetime>", "<hex>", "<id>", "<email>", "<bytes>"}

// String returns the class as a pattern shows it: "<uuid>", or "" for
// Literal.
func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "<?>"
}

// timed reports whether a part of the class is a time part.
func (c Class) timed() bool { return c == Date || c == DateTime }

// Byte kinds, one table lookup per byte of a key. A run's kinds OR-ed
// together decide most classes without a second look at its bytes.
const (
	kDigit  = 1 << iota // 0-9
	kLower              // a-z
	kUpper              // A-Z
	kNonHex             // g-z, G-Z
	kSep                // # : | / . @ : a part ends here
	kCond               // _ - : a part ends here only where a value starts or ends
	kUnder              // _ (besides kCond)
	kOther              // anything else: spaces, punctuation, UTF-8
)

var kinds = func() (k [256]uint8) {
	for i := range k {
		k[i] = kOther
	}
	for c := '0'; c <= '9'; c++ {
		k[c] = kDigit
	}
	for c := 'a'; c <= 'z'; c++ {
		k[c] = kLower
		k[c-'a'+'A'] = kUpper
		if c > 'f' {
			k[c] |= kNonHex
			k[c-'a'+'A'] |= kNonHex
		}
	}
	for _, c := range "#:|/.@" {
		k[c] = kSep
	}
	k['_'], k['-'] = kCond|kUnder, kCond
	return k
}()

// local marks what an e-mail's local part may hold: letters, digits and
// . _ % + -.
var local = func() (l [256]bool) {
	for i := range l {
		l[i] = kinds[i]&(kDigit|kLower|kUpper|kCond) != 0
	}
	l['.'], l['%'], l['+'] = true, true, true
	return l
}()

const (
	kAlnum   = kDigit | kLower | kUpper
	kLetters = kLower | kUpper
)

// mask ORs the kinds of s's bytes.
func mask[T string | []byte](s T) uint8 {
	var m uint8
	for i := range len(s) {
		m |= kinds[s[i]]
	}
	return m
}

// classify returns the class of s taken whole, given m = mask(s): Number,
// UUID, Hex, ID, or Literal. Dates, datetimes and e-mails are recognised
// by the scanner, which sees past separators. Only an alphanumeric run of
// 16 bytes or more, neither a number nor hex, is looked at a second time.
func classify(s []byte, m uint8) Class {
	n := len(s)
	switch {
	case n == 0:
		return Literal
	case m == kDigit:
		return Number
	case m&^(kAlnum|kNonHex) != 0:
		if n == 36 && m&(kNonHex|kOther|kSep|kUnder) == 0 && uuidAt(s, 0) {
			return UUID
		}
		return Literal
	case n < 8 || m&kDigit == 0 || m&kLetters == 0:
		return Literal
	case m&kNonHex == 0 && m&kLetters != kLetters:
		return Hex // 8+ hexadecimal digits of one case, with a digit and a letter
	case n == 26 && isULID(s):
		return ID
	case n >= 16 && randomLooking(s):
		return ID
	}
	return Literal
}

// randomLooking reports whether an alphanumeric s, with digits and
// letters, reads as a random identifier: at least two digits, two letters
// and four changes between digit, lower and upper case.
func randomLooking(s []byte) bool {
	var digits, transitions int
	prev := kinds[s[0]] & kAlnum
	for _, c := range s {
		k := kinds[c] & kAlnum
		if k == kDigit {
			digits++
		}
		if k != prev {
			transitions++
			prev = k
		}
	}
	return digits >= 2 && len(s)-digits >= 2 && transitions >= 4
}

// uuidAt reports whether key[pos:pos+36] is a UUID, 8-4-4-4-12
// hexadecimal digits, by word loads: the '-' at the four places, and the
// digits (SWAR: every byte in 0-9, or in a-f once 0x20 is set; see
// notHex).
func uuidAt(key []byte, pos int) bool {
	if pos+36 > len(key) {
		return false
	}
	s := key[pos : pos+36 : pos+36]
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	le := binary.LittleEndian
	// The 4-byte loads are paired into words: [9:13] with [14:18], [19:23]
	// with [32:36].
	return notHex(le.Uint64(s))|notHex(le.Uint64(s[24:]))|
		notHex(uint64(le.Uint32(s[9:]))|uint64(le.Uint32(s[14:]))<<32)|
		notHex(uint64(le.Uint32(s[19:]))|uint64(le.Uint32(s[32:]))<<32) == 0
}

// notHex returns 0 if the 8 bytes of w are all hexadecimal digits. For a
// byte x < 0x80, (x | 0x80) - c keeps its high bit iff x ≥ c, and borrows
// nothing from the next byte.
func notHex(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	l := w | 0x2020202020202020
	digit := ((w | highs) - '0'*ones) & highs &^ (((w | highs) - ('9'+1)*ones) & highs)
	letter := ((l | highs) - 'a'*ones) & highs &^ (((l | highs) - ('f'+1)*ones) & highs)
	return w&highs | (digit | letter) ^ highs
}

// isULID reports whether s (26 alphanumeric bytes) reads as a ULID:
// Crockford's base32 (no I, L, O, U) in one case, a first character 0-7
// (the 48-bit time), and at least two digits.
func isULID(s []byte) bool {
	if s[0] < '0' || s[0] > '7' {
		return false
	}
	digits := 0
	var cases uint8
	for _, c := range s {
		switch c | 0x20 {
		case 'i', 'l', 'o', 'u':
			return false
		}
		if kinds[c] == kDigit {
			digits++
		}
		cases |= kinds[c] & kLetters
	}
	return digits >= 2 && cases != kLetters
}

// shape is the letter case of a literal, from its mask: how the first
// part of a key is told apart from others before it is learnt to vary
// (see rootPrefix).
func shape(m uint8) uint8 { return m & kLetters }
