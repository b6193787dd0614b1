package jsonscan

// Members and Elements read one object or array whole, for a caller that
// wants a few of its members and where they lie (clientwatch takes
// ConsumedCapacity out of DynamoDB's responses), without building values.

// Members scans data, which must hold one JSON object (whitespace around
// it allowed), and calls member for each member in order, with the
// member's name decoded (valid during the call only), the position of the
// name's opening quote, and the span data[start:end] of its value. It
// returns the first error member returns, or a *SyntaxError when data is
// not one valid JSON object.
func (s *Scanner) Members(data []byte, member func(name []byte, key, start, end int) error) error {
	s.Reset(data)
	i := s.Expect(0, '{', "'{'")
	if i >= 0 && s.Peek(i) == '}' {
		return s.end(i + 1)
	}
	for i >= 0 {
		if s.Peek(i) != '"' {
			s.Unexpected(i, "a string key")
			break
		}
		end, name := s.StringBytes(i)
		if end < 0 {
			break
		}
		v := s.Expect(end, ':', "':'")
		if v < 0 {
			break
		}
		ve := s.SkipValue(v)
		if ve < 0 {
			break
		}
		if err := member(name, i, v, ve); err != nil {
			return err
		}
		var closed bool
		if i, closed = s.Next(ve, '}'); closed {
			return s.end(i)
		}
	}
	return s.stopped()
}

// Elements scans data, which must hold one JSON array, and calls element
// for each value in order, with its span data[start:end]; errors as for
// Members.
func (s *Scanner) Elements(data []byte, element func(start, end int) error) error {
	s.Reset(data)
	i := s.Expect(0, '[', "'['")
	if i >= 0 && s.Peek(i) == ']' {
		return s.end(i + 1)
	}
	for i >= 0 {
		ve := s.SkipValue(i)
		if ve < 0 {
			break
		}
		if err := element(i, ve); err != nil {
			return err
		}
		var closed bool
		if i, closed = s.Next(ve, ']'); closed {
			return s.end(i)
		}
	}
	return s.stopped()
}

// end checks that only whitespace follows the value that ends at i.
func (s *Scanner) end(i int) error {
	if j := SkipWS(s.data, i); j != len(s.data) {
		s.Unexpected(j, "the end of the input")
		return s.stopped()
	}
	return nil
}

// stopped returns the syntax error that stopped the scan, never a nil
// *SyntaxError in a non-nil error.
func (s *Scanner) stopped() error {
	if s.err == nil {
		return &SyntaxError{Offset: 0, Msg: "scanner stopped without a cause"}
	}
	return s.err
}
