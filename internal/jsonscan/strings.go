package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// JSON strings, read eight bytes at a time while they are plain: no quote,
// backslash, control character or non-ASCII byte. Most strings of a
// DynamoDB payload are plain to their closing quote.

// Flags says what a string holds besides plain text.
type Flags uint8

// String flags.
const (
	Escaped Flags = 1 << iota // a backslash escape
	Invalid                   // bytes that are not UTF-8; they decode as U+FFFD
)

// StringBytes scans the string at q and returns its decoded bytes: the
// data itself when it holds nothing to decode, else a copy in the
// scanner's scratch, valid until the next call.
func (s *Scanner) StringBytes(q int) (end int, str []byte) {
	if end = PlainString(s.data, q); end >= 0 {
		return end, s.data[q+1 : end-1]
	}
	end, _, flags := s.ScanString(q)
	if end < 0 {
		return end, nil
	}
	if flags == 0 {
		return end, s.data[q+1 : end-1]
	}
	s.tmp = AppendString(s.tmp[:0], s.data, q, end)
	return end, s.tmp
}

// PlainString returns the end of the string whose quote is at q when the
// string is plain (nothing to decode or check), else -1. It settles most
// strings without ScanString's machinery.
func PlainString(b []byte, q int) int {
	if q+10 > len(b) {
		return -1
	}
	k := bits.TrailingZeros64(plainRunEnds(binary.LittleEndian.Uint64(b[q+1:]))) >> 3
	if b[q+1+k] == '"' { // k == 8: eight plain bytes, then the quote
		return q + 2 + k
	}
	if k < 8 {
		return -1
	}
	return plainLong(b, q+9)
}

// ShortString is PlainString for a plain string of at most 7 bytes (most
// attribute names and many values), else -1. It is small enough to inline
// where PlainString is not: hot loops try it first.
func ShortString(b []byte, q int) int {
	if q+10 > len(b) {
		return -1
	}
	k := bits.TrailingZeros64(plainRunEnds(binary.LittleEndian.Uint64(b[q+1:]))) >> 3
	if k == 8 || b[q+1+k] != '"' {
		return -1
	}
	return q + 2 + k
}

// plainLong scans from i, inside a string whose bytes so far are plain,
// 8 bytes at a time; it returns the end of the string if it is plain to
// its closing quote, else -1. It stays small so that its loop stays in
// registers; ScanString handles the rest.
func plainLong(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := plainRunEnds(binary.LittleEndian.Uint64(b[i:])); m != 0 {
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

// ScanString validates the JSON string whose opening quote is at q. It
// returns the position after the closing quote, the length in bytes of the
// UTF-8 string it decodes to, and what it holds besides plain text.
func (s *Scanner) ScanString(q int) (end, n int, flags Flags) {
	b := s.data
	i := q + 1
	adj := 0 // decoded length minus raw length
	for {
		for i+8 <= len(b) {
			if m := plainRunEnds(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return s.Fail(q, "unterminated string"), 0, 0
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, i - q - 1 + adj, flags
		case c == '\\':
			in, out := escape(b, i)
			if in == 0 {
				return s.Fail(i, "invalid escape in string"), 0, 0
			}
			adj += out - in
			i += in
			flags |= Escaped
		case c < 0x20:
			return s.Fail(i, "control character in string"), 0, 0
		case c < utf8.RuneSelf:
			i++
		case c >= 0xC2 && c <= 0xDF && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
			i += 2 // a valid 2-byte sequence (é, ü, Ω): most non-ASCII text, without a call
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				adj += 2
				flags |= Invalid
			}
			i += size
		}
	}
}

// AppendString appends the decoded UTF-8 bytes of the valid JSON string (as
// ScanString checked it) between its quotes b[q] and b[end-1].
func AppendString(dst, b []byte, q, end int) []byte {
	i := q + 1
	last := end - 1
	for i < last {
		c := b[i]
		switch {
		case c == '\\':
			dst, i = appendEscape(dst, b, i)
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

// appendEscape appends what the valid escape at b[i] decodes to and
// returns the position after it.
func appendEscape(dst, b []byte, i int) ([]byte, int) {
	in, _ := escape(b, i)
	switch c := b[i+1]; c {
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
		dst = append(dst, c)
	}
	return dst, i + in
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

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRunEnds has the high bit set in the first byte of v (in memory
// order) that ends a plain run inside a JSON string: '"', '\\', a control
// character or a non-ASCII byte. It is Mycroft's zero-byte test (Hacker's
// Delight, 6-1) on v^'"' and v^'\\', with its borrow trick for bytes below
// 0x20, all at once. Bits above that byte may be spurious: a borrow only
// comes from a lower byte that itself ends the run, and a false bit only
// marks a byte that is non-ASCII; so the lowest set bit is exact.
func plainRunEnds(v uint64) uint64 {
	return (((v ^ (lsb * '"')) - lsb) | ((v ^ (lsb * '\\')) - lsb) | (v - lsb*0x20) | v) & msb
}
