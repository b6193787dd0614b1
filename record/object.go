package record

// ObjectScanner reads the members of a JSON object without allocating, with
// the scanner the record decoder uses: it validates every value and hands
// back where each one lies, for a caller that wants a few members of a large
// body (clientwatch takes ConsumedCapacity out of DynamoDB's responses).
// The zero value is ready to use; reuse one to keep its scratch. It is not
// safe for concurrent use.
type ObjectScanner struct{ d Decoder }

// Members calls member for each member of the JSON object data holds
// (whitespace around it allowed), in order, with the member's name decoded
// (valid during the call only), the position of the name's opening quote,
// and the span data[start:end] of its value. It returns the first error
// member returns, or a *SyntaxError when data is not one valid JSON object.
func (s *ObjectScanner) Members(data []byte, member func(name []byte, key, start, end int) error) error {
	d := s.begin(data)
	i := d.expect(0, '{', "'{'")
	if i >= 0 && d.peek(i) == '}' {
		return s.end(i + 1)
	}
	for i >= 0 {
		if d.peek(i) != '"' {
			d.unexpected(i, "a string key")
			break
		}
		end, name := d.stringBytes(i)
		if end < 0 {
			break
		}
		v := d.expect(end, ':', "':'")
		if v < 0 {
			break
		}
		ve := d.skipValue(v)
		if ve < 0 {
			break
		}
		if err := member(name, i, v, ve); err != nil {
			return err
		}
		var closed bool
		if i, closed = s.d.afterValue(ve, '}'); closed {
			return s.end(i)
		}
	}
	return s.err()
}

// Elements calls element for each value of the JSON array data holds, with
// its span data[start:end]; errors as for Members.
func (s *ObjectScanner) Elements(data []byte, element func(start, end int) error) error {
	d := s.begin(data)
	i := d.expect(0, '[', "'['")
	if i >= 0 && d.peek(i) == ']' {
		return s.end(i + 1)
	}
	for i >= 0 {
		ve := d.skipValue(i)
		if ve < 0 {
			break
		}
		if err := element(i, ve); err != nil {
			return err
		}
		var closed bool
		if i, closed = s.d.afterValue(ve, ']'); closed {
			return s.end(i)
		}
	}
	return s.err()
}

func (s *ObjectScanner) begin(data []byte) *Decoder {
	s.d.data, s.d.syntax = data, nil
	return &s.d
}

// end checks that only whitespace follows the value that ends at i.
func (s *ObjectScanner) end(i int) error {
	d := &s.d
	if j := skipWS(d.data, i); j != len(d.data) {
		d.unexpected(j, "the end of the input")
		return s.err()
	}
	return nil
}

// err returns the syntax error that stopped the scan, never a nil
// *SyntaxError in a non-nil error.
func (s *ObjectScanner) err() error {
	if s.d.syntax == nil {
		return &SyntaxError{Offset: 0, Msg: "scanner stopped without a cause"}
	}
	return s.d.syntax
}
