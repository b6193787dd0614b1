package keypattern

import "encoding/binary"

// maxParts is the most parts a key is split into: the last part of a key
// with more separators takes the rest of it, separators and all.
const maxParts = 16

// part is one part of a key: key[start:end], after the separator sep (0
// for the first part), of class class.
type part struct {
	start, end int32
	sep        byte
	class      Class
	mask       uint8 // its bytes' kinds OR-ed (for a literal: its letter case)
}

// unclassified marks a piece whose class is still to be found.
const unclassified Class = 0xff

// scanner splits a key into parts with no allocation: its arrays are
// reused from key to key.
type scanner struct {
	parts  [maxParts]part
	pieces [maxParts]part
	// t is the value of the key's first time part, if any.
	t instant
}

// scan splits the value of a String key, key[from:], into its parts, each
// classified, in one pass. At the start of each part:
//
//   - a date or a datetime is read whole, separators and all, if one
//     starts there and ends at a boundary (the key's end or one of
//     # : | / . @ _);
//   - else the part runs to the next separator, # : | / . or @; if that
//     run holds '_' or '-' and is not a UUID, it is split there, each
//     value in it (a number, a hex string, a date…) a part of its own,
//     and the literal pieces between values joined back, so that OPS_LOG
//     stays one literal while SESSION_<hex> and user_<n> split.
//
// An '@' ending a run is looked at once more: if the local part before it
// starts at a part's start and a domain follows it, the parts from the
// local part's start to the domain's end become one e-mail.
//
// The parts returned are the scanner's, valid until its next scan.
func (s *scanner) scan(key []byte, from int) []part {
	s.t = instant{}
	n, pos, sep := 0, from, byte(0)
	for {
		p := part{start: int32(pos), sep: sep}
		end := -1
		if n == maxParts-1 {
			end, p.mask = len(key), mask(key[pos:])
			p.class = classify(key[pos:], p.mask)
		} else if uuidAt(key, pos) && (pos+36 == len(key) || kinds[key[pos+36]]&kSep != 0) {
			end, p.class = pos+36, UUID
		} else if pos+4 < len(key) && key[pos+4] == '-' && kinds[key[pos]] == kDigit {
			end, p.class = s.timeAt(key, pos)
		}
		if end < 0 {
			end, p.mask = run(key, pos)
			p.class = classify(key[pos:end], p.mask)
			if p.mask&kCond != 0 && p.class != UUID {
				n, end = s.split(key, pos, sep, n)
				goto next
			}
		}
		p.end = int32(end)
		s.parts[n] = p
		n++
	next:
		if end == len(key) {
			return s.parts[:n]
		}
		if key[end] == '@' {
			n, end = s.email(key, from, end, n)
			if end == len(key) {
				return s.parts[:n]
			}
		}
		sep, pos = key[end], end+1
	}
}

// run returns the end of the run at key[pos:], before the next separator
// that is not '_' or '-' (or the key's end), and its bytes' kinds OR-ed:
// its first eight bytes one at a time (most literals are shorter), then
// eight at a time.
func run(key []byte, pos int) (int, uint8) {
	var m uint8
	i := pos
	for short := min(pos+8, len(key)); i < short; i++ {
		k := kinds[key[i]]
		if k&kSep != 0 {
			return i, m
		}
		m |= k
	}
	for ; i+8 <= len(key); i += 8 {
		w := binary.LittleEndian.Uint64(key[i:])
		k := kinds[byte(w)] | kinds[byte(w>>8)] | kinds[byte(w>>16)] | kinds[byte(w>>24)] |
			kinds[byte(w>>32)] | kinds[byte(w>>40)] | kinds[byte(w>>48)] | kinds[byte(w>>56)]
		if k&kSep != 0 {
			break
		}
		m |= k
	}
	for ; i < len(key); i++ {
		k := kinds[key[i]]
		if k&kSep != 0 {
			break
		}
		m |= k
	}
	return i, m
}

// timeAt reads a date or datetime at key[pos:] and returns its end and
// class, or -1. The key's first one is kept in s.t.
func (s *scanner) timeAt(key []byte, pos int) (int, Class) {
	l, c, t, ok := parseTime(key[pos:])
	if !ok || !boundary(key, pos+l) {
		return -1, Literal
	}
	if s.t.unit == unitNone {
		s.t = t
	}
	return pos + l, c
}

// boundary reports whether a value read whole may end at key[i]: at the
// end, or before a separator other than '-', which dates and UUIDs hold.
func boundary(key []byte, i int) bool {
	return i == len(key) || kinds[key[i]]&kSep != 0 || key[i] == '_'
}

// split reads the run at key[pos:] whose pieces are joined by '_' or '-',
// up to the next other separator (or further, if a date read whole
// crosses it), appends its parts to s.parts[:n], and returns the new
// length and the run's end.
func (s *scanner) split(key []byte, pos int, sep byte, n int) (int, int) {
	np := 0
	for {
		p := part{start: int32(pos), sep: sep, class: unclassified}
		end := -1
		if np > 0 && n+np < maxParts-1 && pos+4 < len(key) && key[pos+4] == '-' && kinds[key[pos]] == kDigit {
			end, p.class = s.timeAt(key, pos)
		}
		if end < 0 {
			p.class = unclassified
			for end = pos; end < len(key) && kinds[key[end]]&(kSep|kCond) == 0; end++ {
				p.mask |= kinds[key[end]]
			}
			if n+np == maxParts-1 {
				end, p.mask = len(key), mask(key[pos:])
			}
		}
		p.end = int32(end)
		s.pieces[np] = p
		np++
		if end == len(key) || kinds[key[end]]&kCond == 0 {
			return s.join(key, n, np), end
		}
		sep, pos = key[end], end+1
	}
}

// join appends the parts of the run s.pieces[:np] to s.parts[:n]: values
// apart, the literals between them joined back.
func (s *scanner) join(key []byte, n, np int) int {
	first := n
	for _, p := range s.pieces[:np] {
		if p.class == unclassified {
			p.class = classify(key[p.start:p.end], p.mask)
		}
		if p.class == Literal && n > first && s.parts[n-1].class == Literal {
			s.parts[n-1].end = p.end
			s.parts[n-1].mask |= p.mask | kCond
			continue
		}
		s.parts[n] = p
		n++
	}
	return n
}

// email looks at the '@' at key[at], which ends the parts s.parts[:n]: if
// an e-mail address spans it, its parts become one Email part. It returns
// the number of parts and where scanning goes on: after the address, or
// at the '@' as a separator.
//
// The address is a local part of letters, digits and . _ % + - that
// starts at a part's start, the '@', then at least two domain labels of
// letters, digits and '-', the last (the TLD) at least two letters, ending
// at a boundary.
func (s *scanner) email(key []byte, from, at, n int) (int, int) {
	start := at
	for start > from && local[key[start-1]] {
		start--
	}
	if start == at || start > from && kinds[key[start-1]]&kSep == 0 {
		return n, at
	}
	first := n
	for first > 0 && int(s.parts[first-1].start) >= start {
		first--
	}
	if first == n || int(s.parts[first].start) != start {
		return n, at
	}
	end := at + 1
	for labels := 1; ; labels++ {
		label := end
		for end < len(key) && (kinds[key[end]]&kAlnum != 0 || key[end] == '-') {
			end++
		}
		if end == label {
			return n, at
		}
		if end+1 < len(key) && key[end] == '.' && kinds[key[end+1]]&kAlnum != 0 {
			end++
			continue
		}
		if labels < 2 || end-label < 2 || mask(key[label:end])&^(kLetters|kNonHex) != 0 || !boundary(key, end) {
			return n, at
		}
		break
	}
	p := s.parts[first]
	p.end, p.class, p.mask = int32(end), Email, 0
	s.parts[first] = p
	return first + 1, end
}
