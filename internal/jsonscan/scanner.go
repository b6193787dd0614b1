// Package jsonscan walks JSON held in a byte slice without building values:
// it validates what it skips and hands back where things lie. It is the
// one JSON scanner of hotkeys: the stream decoder (package record) reads
// Lambda payloads with it, and the SDK middleware (package clientwatch)
// takes ConsumedCapacity out of DynamoDB's responses with it. Neither
// allocates once its scratch has grown; only a syntax error does.
//
// Positions are byte offsets into the data. A method that meets a syntax
// error records it (Err) and returns a negative position; every caller
// passes a negative position straight up. It accepts exactly what
// encoding/json accepts (the grammar of RFC 8259), and decodes strings as
// encoding/json does: an invalid UTF-8 byte or a lone surrogate escape
// becomes U+FFFD.
package jsonscan

import "fmt"

// SyntaxError says where and why the data is not JSON. Nothing after
// Offset can be trusted.
type SyntaxError struct {
	Offset int64  // byte offset of the error in the data
	Msg    string // what is wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsonscan: invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Scanner scans one byte slice at a time, set by Reset (or by Members and
// Elements). The zero value is ready to use; reuse one to keep its
// scratch. It is not safe for concurrent use.
type Scanner struct {
	data  []byte
	err   *SyntaxError // the first syntax error since Reset
	stack []byte       // SkipValue's stack of open containers
	tmp   []byte       // a decoded string, valid until the next StringBytes
}

// Reset starts scanning data, forgetting any syntax error.
func (s *Scanner) Reset(data []byte) { s.data, s.err = data, nil }

// Bytes returns the data being scanned.
func (s *Scanner) Bytes() []byte { return s.data }

// Err returns the first syntax error met since Reset, or nil.
func (s *Scanner) Err() *SyntaxError { return s.err }

// ClearErr forgets the syntax error, for a caller that tried a reading and
// will read the same bytes another way.
func (s *Scanner) ClearErr() { s.err = nil }

// SkipValue validates any JSON value at i (whitespace already skipped) and
// returns its end. Containers are walked with an explicit stack, so no
// nesting depth can exhaust the goroutine stack.
func (s *Scanner) SkipValue(i int) int {
	if c := s.Peek(i); c != '{' && c != '[' {
		return s.SkipScalar(i)
	}
	var end int
	end, s.stack = s.skipContainer(i, s.stack[:0])
	return end
}

// skipContainer is SkipValue for an object or array; st is its stack of
// open containers, returned for reuse.
func (s *Scanner) skipContainer(i int, st []byte) (int, []byte) {
	b := s.data
	for {
		// i is at the start of a value.
		if c := b[i]; c == '{' || c == '[' {
			st = append(st, c)
			i = SkipWS(b, i+1)
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if s.Peek(i) == closer {
				st = st[:len(st)-1]
				i++
			} else {
				if c == '{' {
					if i = s.SkipKey(i); i < 0 {
						return i, st
					}
				}
				if i >= len(b) {
					return s.Unexpected(i, "a JSON value"), st
				}
				continue
			}
		} else if i = s.SkipScalar(i); i < 0 {
			return i, st
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(st) == 0 {
				return i, st
			}
			i = SkipWS(b, i)
			top := st[len(st)-1]
			c := s.Peek(i)
			if c == ',' {
				i = SkipWS(b, i+1)
				if top == '{' {
					if i = s.SkipKey(i); i < 0 {
						return i, st
					}
				}
				if i >= len(b) {
					return s.Unexpected(i, "a JSON value"), st
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				st = st[:len(st)-1]
				i++
				continue
			}
			if top == '{' {
				return s.Unexpected(i, "',' or '}'"), st
			}
			return s.Unexpected(i, "',' or ']'"), st
		}
	}
}

// SkipKey validates `"key" :` at i and returns the start of the value.
func (s *Scanner) SkipKey(i int) int {
	if s.Peek(i) != '"' {
		return s.Unexpected(i, "a string key")
	}
	end, _, _ := s.ScanString(i)
	if end < 0 {
		return end
	}
	return s.Expect(end, ':', "':'")
}

// SkipMembers validates the rest of an object from the ',' at i (or its
// '}') and returns the position after the object.
func (s *Scanner) SkipMembers(i int) int {
	for {
		var closed bool
		if i, closed = s.Next(i, '}'); closed || i < 0 {
			return i
		}
		if i = s.SkipKey(i); i < 0 {
			return i
		}
		if i = s.SkipValue(i); i < 0 {
			return i
		}
	}
}

// SkipScalar validates one string, number, true, false or null at i and
// returns its end.
func (s *Scanner) SkipScalar(i int) int {
	switch c := s.Peek(i); {
	case c == '"':
		if end := PlainString(s.data, i); end >= 0 {
			return end
		}
		end, _, _ := s.ScanString(i)
		return end
	case c == 't':
		return s.Literal(i, "true")
	case c == 'f':
		return s.Literal(i, "false")
	case c == 'n':
		return s.Literal(i, "null")
	case c == '-' || IsDigit(c):
		return s.SkipNumber(i)
	}
	return s.Unexpected(i, "a JSON value")
}

// SkipNumber validates a JSON number token at i and returns its end.
func (s *Scanner) SkipNumber(i int) int {
	b := s.data
	start := i
	if s.Peek(i) == '-' {
		i++
	}
	switch c := s.Peek(i); {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	default:
		return s.Fail(start, "invalid number")
	}
	if s.Peek(i) == '.' {
		i++
		if !IsDigit(s.Peek(i)) {
			return s.Fail(start, "invalid number")
		}
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	}
	if c := s.Peek(i); c == 'e' || c == 'E' {
		i++
		if c := s.Peek(i); c == '+' || c == '-' {
			i++
		}
		if !IsDigit(s.Peek(i)) {
			return s.Fail(start, "invalid number")
		}
		for i < len(b) && IsDigit(b[i]) {
			i++
		}
	}
	return i
}

// Literal checks that the bytes at i spell word (true, false or null) and
// returns the end.
func (s *Scanner) Literal(i int, word string) int {
	if len(s.data)-i < len(word) || string(s.data[i:i+len(word)]) != word {
		return s.Fail(i, "invalid literal, expected "+word)
	}
	return i + len(word)
}

// Expect skips whitespace, requires byte c and returns the position after
// it and the whitespace that follows.
func (s *Scanner) Expect(i int, c byte, want string) int {
	i = SkipWS(s.data, i)
	if s.Peek(i) != c {
		return s.Unexpected(i, want)
	}
	return SkipWS(s.data, i+1)
}

// Open steps into the object or array whose opener is at i (the caller
// has checked it), which closer closes. It returns the start of the first
// member or element, or, when the container is empty, the position after
// closer and closed. With Next it walks a container where it lies:
//
//	i, closed := s.Open(i, ']')
//	for !closed {
//		if i = s.SkipValue(i); i < 0 { // or read the element
//			return i
//		}
//		if i, closed = s.Next(i, ']'); i < 0 {
//			return i
//		}
//	}
//	return i // after the ']'
//
// Open is small enough to inline, and Next settles compact JSON in a few
// instructions: a decoder's hottest loops call them.
func (s *Scanner) Open(i int, closer byte) (_ int, closed bool) {
	i = SkipWS(s.data, i+1)
	if s.Peek(i) == closer {
		return i + 1, true
	}
	return i, false
}

// Next reads what follows a value that ended at i in a container that
// closer closes: a comma (it returns the next value's start) or closer (it
// returns the position after it, and closed). Compact JSON (the ',' or
// closer right at i, no whitespace after it) takes the short path: the
// general one, next, costs a call more, about 2 % of the stream decoder's
// instructions.
func (s *Scanner) Next(i int, closer byte) (_ int, closed bool) {
	if b := s.data; i+1 < len(b) && b[i+1] > ' ' {
		if c := b[i]; c == ',' {
			return i + 1, false
		} else if c == closer {
			return i + 1, true
		}
	}
	return s.next(i, closer)
}

// next is Next where whitespace may come before or after the ','.
func (s *Scanner) next(i int, closer byte) (_ int, closed bool) {
	j := SkipWS(s.data, i)
	switch s.Peek(j) {
	case ',':
		return SkipWS(s.data, j+1), false
	case closer:
		return j + 1, true
	}
	return s.Unexpected(j, "',' or '"+string(closer)+"'"), false
}

// Key reads a member's `"name":` at i and returns the start of its value
// (negative on a syntax error) and the name, decoded as StringBytes
// decodes it (valid until the next StringBytes).
func (s *Scanner) Key(i int) (v int, name []byte) {
	if s.Peek(i) != '"' {
		return s.Unexpected(i, "a string key"), nil
	}
	end, name := s.StringBytes(i)
	if end < 0 {
		return end, nil
	}
	return s.Expect(end, ':', "':'"), name
}

// Unexpected reports the byte at i as a syntax error, saying what was
// wanted, and returns -1.
func (s *Scanner) Unexpected(i int, want string) int {
	if i >= len(s.data) {
		return s.Fail(i, "unexpected end of input, expected "+want)
	}
	return s.Fail(i, fmt.Sprintf("invalid character %q, expected %s", s.data[i], want))
}

// Fail records a syntax error at byte i (unless one is recorded already)
// and returns -1.
func (s *Scanner) Fail(i int, msg string) int {
	if s.err == nil {
		s.err = &SyntaxError{Offset: int64(i), Msg: msg}
	}
	return -1
}

// Peek returns the byte at i, or 0 past either end of the data.
func (s *Scanner) Peek(i int) byte {
	if i >= 0 && i < len(s.data) {
		return s.data[i]
	}
	return 0
}

// SkipWS returns the position of the first byte at or after i that is not
// JSON whitespace.
func SkipWS(b []byte, i int) int {
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

// IsDigit reports whether c is a decimal digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }
