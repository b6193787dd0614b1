package jsonscan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walk validates the value at i as SkipValue does, but as a decoder reads
// containers where they lie: with Open, Key and Next.
func walk(s *Scanner, i int) int {
	c := s.Peek(i)
	if c != '{' && c != '[' {
		return s.SkipScalar(i)
	}
	closer := c + 2 // '{' + 2 is '}', '[' + 2 is ']'
	i, closed := s.Open(i, closer)
	for !closed {
		if c == '{' {
			if i, _ = s.Key(i); i < 0 {
				return i
			}
		}
		if i = walk(s, i); i < 0 {
			return i
		}
		if i, closed = s.Next(i, closer); i < 0 {
			return i
		}
	}
	return i
}

// checkWalk: walk accepts what SkipValue accepts, ends where it ends, and
// fails with the same error at the same byte.
func checkWalk(t *testing.T, data []byte) {
	t.Helper()
	var skip, walker Scanner
	skip.Reset(data)
	walker.Reset(data)
	i := SkipWS(data, 0)
	want, got := skip.SkipValue(i), walk(&walker, i)
	if got != want || !cmp.Equal(walker.Err(), skip.Err()) {
		t.Fatalf("walk(%q) = %d, %v; SkipValue %d, %v", data, got, walker.Err(), want, skip.Err())
	}
}

// TestOpenNextKey holds the in-place walk to SkipValue on every document,
// compact and spaced out (Next's short path and its general one).
func TestOpenNextKey(t *testing.T) {
	spaced := strings.NewReplacer(",", " , ", ":", " : ", "[", "[ ", "]", " ]", "{", "{ ", "}", " }")
	for _, doc := range documents {
		checkWalk(t, []byte(doc))
		checkWalk(t, []byte(spaced.Replace(doc)))
	}
}

func FuzzOpenNextKey(f *testing.F) {
	for _, doc := range documents {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkWalk(t, []byte(doc)) })
}
