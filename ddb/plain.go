package ddb

import (
	"encoding/binary"
	"math/bits"
)

// PlainNumberSize sizes, in one pass, the number that starts at b[i] when
// it has the shape numbers nearly always have: an optional '-', digits
// with at most one '.', and an optional exponent, within DynamoDB's
// limits. It returns the number's end and its size by Decimal.Size; end
// < 0 for anything else (a '+' sign, an error), and then ParseNumber
// decides. The number ends at the first byte that cannot continue it,
// b[end], which the caller checks (a JSON string's closing quote, say).
//
// It reads digits eight at a time, which is why it is not ParseNumber:
// the stream decoder sizes every number of every image with it.
func PlainNumberSize(b []byte, i int) (end, size int) {
	j := i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	k, first, last, point := 0, -1, 0, -1 // k counts digits; point is the digits before '.'
	for ; j < len(b); j++ {
		if j+8 <= len(b) { // eight bytes at a time while they are digits
			n, nz := digits8(binary.LittleEndian.Uint64(b[j:]))
			if nz != 0 {
				if first < 0 {
					first = k + bits.TrailingZeros64(nz)>>3
				}
				last = k + (63-bits.LeadingZeros64(nz))>>3
			}
			k += n
			if j += n; n == 8 {
				j-- // the loop adds 1
				continue
			}
		}
		c := b[j]
		if c-'0' <= 9 {
			if c != '0' {
				if first < 0 {
					first = k
				}
				last = k
			}
			k++
			continue
		}
		if c != '.' || point >= 0 {
			break
		}
		point = k
	}
	if k == 0 {
		return -1, 0
	}
	exp := 0
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		if exp, j = plainExponent(b, j+1); j < 0 {
			return -1, 0
		}
	}
	if first < 0 {
		return j, 1 // zero
	}
	if point < 0 {
		point = k
	}
	d := Decimal{Neg: neg, Digits: last - first + 1, Point: point - first + exp}
	if !d.Fits() {
		return -1, 0
	}
	return j, d.Size()
}

// plainExponent reads the exponent at b[j:], just after its 'e', and
// returns it and its end; end < 0 when there are no digits or it is far
// out of range (ParseNumber then names the error).
func plainExponent(b []byte, j int) (exp, end int) {
	neg := false
	if j < len(b) && (b[j] == '+' || b[j] == '-') {
		neg = b[j] == '-'
		j++
	}
	start := j
	for ; j < len(b) && b[j]-'0' <= 9; j++ {
		if exp = exp*10 + int(b[j]-'0'); exp > 999_999_999 {
			return 0, -1
		}
	}
	if j == start {
		return 0, -1
	}
	if neg {
		exp = -exp
	}
	return exp, j
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// digits8 looks at 8 bytes of a number, in memory order: n is how many
// lead the word as decimal digits, and nz has the high bit of each of those
// that is not '0'. As in Mycroft's zero-byte test (Hacker's Delight, 6-1),
// a borrow or carry only comes from a byte that is itself not a digit, so
// the bits below the first non-digit are exact.
func digits8(v uint64) (n int, nz uint64) {
	x := v ^ (lsb * '0') // digits become 0-9
	notDigit := ((x + lsb*0x76) | x) & msb
	n = bits.TrailingZeros64(notDigit) >> 3
	nz = ((x&^msb + lsb*0x7f) | x) & msb // x&^msb + 0x7f cannot carry out of a byte
	if n < 8 {
		nz &= 1<<(8*n) - 1
	}
	return n, nz
}
