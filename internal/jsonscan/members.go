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
	i, closed := s.document(data, '{', '}')
	for i >= 0 && !closed {
		key := i
		v, name := s.Key(i)
		if v < 0 {
			return s.stopped()
		}
		ve := s.SkipValue(v)
		if ve < 0 {
			return s.stopped()
		}
		if err := member(name, key, v, ve); err != nil {
			return err
		}
		i, closed = s.Next(ve, '}')
	}
	return s.end(i)
}

// Elements scans data, which must hold one JSON array, and calls element
// for each value in order, with its span data[start:end]; errors as for
// Members.
func (s *Scanner) Elements(data []byte, element func(start, end int) error) error {
	i, closed := s.document(data, '[', ']')
	for i >= 0 && !closed {
		ve := s.SkipValue(i)
		if ve < 0 {
			return s.stopped()
		}
		if err := element(i, ve); err != nil {
			return err
		}
		i, closed = s.Next(ve, ']')
	}
	return s.end(i)
}

// document starts scanning data, which must hold one container that open
// opens, and steps into it as Open does.
func (s *Scanner) document(data []byte, open, closer byte) (int, bool) {
	s.Reset(data)
	i := SkipWS(data, 0)
	if s.Peek(i) != open {
		return s.Unexpected(i, "'"+string(open)+"'"), false
	}
	return s.Open(i, closer)
}

// end checks that only whitespace follows the value that ends at i (a
// negative i: the syntax error that stopped the scan).
func (s *Scanner) end(i int) error {
	if i < 0 {
		return s.stopped()
	}
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
