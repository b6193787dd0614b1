package record

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// The JSON layer of the decoder. Positions are indexes into d.data. A
// function that meets a syntax error records it in d.syntax and returns a
// negative position; every caller passes a negative position straight up.
// Nothing here allocates except the error itself.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special has the high bit set in the first byte of v (in memory order)
// that ends a plain run inside a JSON string: '"', '\\', a control
// character or a non-ASCII byte. It is Mycroft's zero-byte test (Hacker's
// Delight, 6-1) on v^'"' and v^'\\', with its borrow trick for bytes below
// 0x20, all at once. Bits above that byte may be spurious: a
// borrow only comes from a lower byte that is itself special, and a false
// bit only marks a byte that is non-ASCII; so the lowest set bit is exact.
func special(v uint64) uint64 {
	return (((v ^ (lsb * '"')) - lsb) | ((v ^ (lsb * '\\')) - lsb) | (v - lsb*0x20) | v) & msb
}

// plainString returns the end of the string whose quote is at q when the
// string is plain (nothing to decode or check), else -1. Most strings of
// a stream record are; it settles them without scanString's machinery.
func plainString(b []byte, q int) int {
	if q+10 > len(b) {
		return -1
	}
	k := bits.TrailingZeros64(special(binary.LittleEndian.Uint64(b[q+1:]))) >> 3
	if b[q+1+k] == '"' { // k == 8: eight plain bytes, then the quote
		return q + 2 + k
	}
	if k < 8 {
		return -1
	}
	return plainLong(b, q+9)
}

// shortString is plainString for a plain string of at most 7 bytes (most
// attribute names and many values), else -1. It is small enough to inline
// where plainString is not: hot loops try it first.
func shortString(b []byte, q int) int {
	if q+10 > len(b) {
		return -1
	}
	k := bits.TrailingZeros64(special(binary.LittleEndian.Uint64(b[q+1:]))) >> 3
	if k == 8 || b[q+1+k] != '"' {
		return -1
	}
	return q + 2 + k
}

// plainLong scans from i, inside a string whose bytes so far are plain,
// 8 bytes at a time; it returns the end of the string if it is plain to
// its closing quote, else -1. It stays small so that its loop stays in
// registers; scanString handles the rest.
func plainLong(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				return i + 1
			}
			return -1
		}
		i += 8
	}
	return -1
}

func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ' ', '\n', '\r', '\t':
			i++
		default:
			return i
		}
	}
	return i
}

func (d *Decoder) peek(i int) byte {
	if i >= 0 && i < len(d.data) {
		return d.data[i]
	}
	return 0
}

// fail records a syntax error at byte i and returns -1.
func (d *Decoder) fail(i int, msg string) int {
	if d.syntax == nil {
		d.syntax = &SyntaxError{Offset: int64(i), Msg: msg}
	}
	return -1
}

// unexpected reports the byte at i as a syntax error, saying what was wanted.
func (d *Decoder) unexpected(i int, want string) int {
	if i >= len(d.data) {
		return d.fail(i, "unexpected end of input, expected "+want)
	}
	return d.fail(i, fmt.Sprintf("invalid character %q, expected %s", d.data[i], want))
}

// expect skips whitespace, requires byte c and returns the position after
// it and the whitespace that follows.
func (d *Decoder) expect(i int, c byte, want string) int {
	i = skipWS(d.data, i)
	if d.peek(i) != c {
		return d.unexpected(i, want)
	}
	return skipWS(d.data, i+1)
}

// afterValue reads what follows a value that ended at i in a container
// that closer closes: a comma (it returns the next value's start) or
// closer (it returns the position after it, and closed). A syntax error
// returns a negative position.
func (d *Decoder) afterValue(i int, closer byte) (_ int, closed bool) {
	j := skipWS(d.data, i)
	switch d.peek(j) {
	case ',':
		return skipWS(d.data, j+1), false
	case closer:
		return j + 1, true
	}
	return d.unexpected(j, "',' or '"+string(closer)+"'"), false
}

// String flags.
const (
	strEscaped = 1 << iota // holds a backslash escape
	strInvalid             // holds bytes that are not UTF-8; they decode as U+FFFD
)

// scanString validates the JSON string whose opening quote is at q. It
// returns the position after the closing quote, the length in bytes of the
// UTF-8 string it decodes to, and flags. Decoding follows encoding/json:
// an invalid UTF-8 byte or a lone surrogate escape becomes U+FFFD.
func (d *Decoder) scanString(q int) (end, n int, flags uint8) {
	b := d.data
	i := q + 1
	adj := 0 // decoded length minus raw length
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return d.fail(q, "unterminated string"), 0, 0
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, i - q - 1 + adj, flags
		case c == '\\':
			in, out := escape(b, i)
			if in == 0 {
				return d.fail(i, "invalid escape in string"), 0, 0
			}
			adj += out - in
			i += in
			flags |= strEscaped
		case c < 0x20:
			return d.fail(i, "control character in string"), 0, 0
		case c < utf8.RuneSelf:
			i++
		case c >= 0xC2 && c <= 0xDF && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
			i += 2 // a valid 2-byte sequence (é, ü, Ω): most non-ASCII text, without a call
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				adj += 2
				flags |= strInvalid
			}
			i += size
		}
	}
}

// escape measures the escape sequence at b[i] == '\\': how many input bytes
// it spans (0 if it is invalid) and how many UTF-8 bytes it decodes to.
func escape(b []byte, i int) (in, out int) {
	if i+1 >= len(b) {
		return 0, 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, 1
	case 'u':
		r := hex4(b, i+2)
		switch {
		case r < 0:
			return 0, 0
		case r >= 0xD800 && r < 0xDC00: // high surrogate: a pair only if a low one follows
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if r2 := hex4(b, i+8); r2 >= 0xDC00 && r2 < 0xE000 {
					return 12, 4
				}
			}
			return 6, 3
		case r >= 0xDC00 && r < 0xE000:
			return 6, 3
		}
		return 6, utf8.RuneLen(rune(r))
	}
	return 0, 0
}

// hex4 parses four hex digits at b[i:], or returns -1.
func hex4(b []byte, i int) int {
	if i+4 > len(b) {
		return -1
	}
	r := 0
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | int(c)
	}
	return r
}

// appendString appends the decoded UTF-8 bytes of the valid JSON string
// (as checked by scanString) between its quotes q and end-1.
func appendString(dst, b []byte, q, end int) []byte {
	i := q + 1
	last := end - 1
	for i < last {
		c := b[i]
		switch {
		case c == '\\':
			in, _ := escape(b, i)
			switch b[i+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := rune(hex4(b, i+2))
				switch {
				case in == 12:
					r = 0x10000 + (r-0xD800)<<10 + rune(hex4(b, i+8)) - 0xDC00
				case r >= 0xD800 && r < 0xE000:
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
			default:
				dst = append(dst, b[i+1])
			}
			i += in
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:last])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, b[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// stringBytes scans the string at q and returns its decoded bytes: the
// payload itself when it holds nothing to decode, else a copy in d.tmp
// (valid until the next call).
func (d *Decoder) stringBytes(q int) (end int, s []byte) {
	if end = plainString(d.data, q); end >= 0 {
		return end, d.data[q+1 : end-1]
	}
	end, _, flags := d.scanString(q)
	if end < 0 {
		return end, nil
	}
	if flags == 0 {
		return end, d.data[q+1 : end-1]
	}
	d.tmp = appendString(d.tmp[:0], d.data, q, end)
	return end, d.tmp
}

// scanNumber validates a JSON number token at i and returns its end.
func (d *Decoder) scanNumber(i int) int {
	b := d.data
	start := i
	if d.peek(i) == '-' {
		i++
	}
	switch c := d.peek(i); {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return d.fail(start, "invalid number")
	}
	if d.peek(i) == '.' {
		i++
		if !isDigit(d.peek(i)) {
			return d.fail(start, "invalid number")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if c := d.peek(i); c == 'e' || c == 'E' {
		i++
		if c := d.peek(i); c == '+' || c == '-' {
			i++
		}
		if !isDigit(d.peek(i)) {
			return d.fail(start, "invalid number")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal checks that the bytes at i spell word and returns the end.
func (d *Decoder) literal(i int, word string) int {
	if len(d.data)-i < len(word) || string(d.data[i:i+len(word)]) != word {
		return d.fail(i, "invalid literal, expected "+word)
	}
	return i + len(word)
}

// skipScalar validates one string, number, true, false or null at i.
func (d *Decoder) skipScalar(i int) int {
	switch c := d.peek(i); {
	case c == '"':
		if end := plainString(d.data, i); end >= 0 {
			return end
		}
		end, _, _ := d.scanString(i)
		return end
	case c == 't':
		return d.literal(i, "true")
	case c == 'f':
		return d.literal(i, "false")
	case c == 'n':
		return d.literal(i, "null")
	case c == '-' || isDigit(c):
		return d.scanNumber(i)
	}
	return d.unexpected(i, "a JSON value")
}

// skipValue validates any JSON value at i (whitespace already skipped) and
// returns its end. Containers are walked with an explicit stack, so no
// nesting depth can exhaust the goroutine stack.
func (d *Decoder) skipValue(i int) int {
	if c := d.peek(i); c != '{' && c != '[' {
		return d.skipScalar(i)
	}
	var end int
	end, d.stack = d.skipContainer(i, d.stack[:0])
	return end
}

// skipContainer is skipValue for an object or array; st is its stack of
// open containers, returned for reuse.
func (d *Decoder) skipContainer(i int, st []byte) (int, []byte) {
	b := d.data
	for {
		// i is at the start of a value.
		if c := b[i]; c == '{' || c == '[' {
			st = append(st, c)
			i = skipWS(b, i+1)
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if d.peek(i) == closer {
				st = st[:len(st)-1]
				i++
			} else {
				if c == '{' {
					if i = d.objectKey(i); i < 0 {
						return i, st
					}
				}
				if i >= len(b) {
					return d.unexpected(i, "a JSON value"), st
				}
				continue
			}
		} else if i = d.skipScalar(i); i < 0 {
			return i, st
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(st) == 0 {
				return i, st
			}
			i = skipWS(b, i)
			top := st[len(st)-1]
			c := d.peek(i)
			if c == ',' {
				i = skipWS(b, i+1)
				if top == '{' {
					if i = d.objectKey(i); i < 0 {
						return i, st
					}
				}
				if i >= len(b) {
					return d.unexpected(i, "a JSON value"), st
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				st = st[:len(st)-1]
				i++
				continue
			}
			if top == '{' {
				return d.unexpected(i, "',' or '}'"), st
			}
			return d.unexpected(i, "',' or ']'"), st
		}
	}
}

// objectKey validates `"key" :` at i and returns the start of the value.
func (d *Decoder) objectKey(i int) int {
	if d.peek(i) != '"' {
		return d.unexpected(i, "a string key")
	}
	end, _, _ := d.scanString(i)
	if end < 0 {
		return end
	}
	return d.expect(end, ':', "':'")
}
