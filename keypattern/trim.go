package keypattern

import (
	"fmt"
	"slices"
)

// Trim makes t's encoding fit in budget bytes, honestly, and returns how
// many patterns it dropped. If the encoding is over budget, it takes these
// steps, each only while the encoding still does not fit:
//
//  1. every pattern keeps its heaviest key alone (the one its ceiling
//     needs); the floor of its top keys rises to the heaviest upper bound
//     dropped, so the bounds stay true;
//  2. the lightest patterns (by WCU, then records, then text) go to other,
//     whose totals stay exact;
//  3. the learnt prefixes are forgotten (they are learnt again).
//
// If not even that fits, t is left as step 3 made it and the error wraps
// ErrBudget. A table of one 40-byte-key pattern and its dense distinct
// count takes about 700 bytes; an empty one, about 30.
func (t *Table) Trim(budget int) (int, error) {
	t.ready()
	size := t.encodedLen()
	if size <= budget {
		return 0, nil
	}
	for _, p := range t.patterns {
		p.top.trim(1)
	}
	if size = t.encodedLen(); size <= budget {
		return 0, nil
	}
	slices.SortStableFunc(t.patterns, heavierFirst)
	before := len(t.patterns)
	n := before
	for n > 0 && size > budget {
		n--
		size -= len(t.patterns[n].appendBinary(nil))
	}
	t.fit(n)
	for n > 0 && t.encodedLen() > budget {
		n-- // the estimate left out the learnt prefixes the dropped patterns implied
		t.fit(n)
	}
	dropped := before - n
	if size = t.encodedLen(); size <= budget {
		return dropped, nil
	}
	t.rules = prefixSet{}
	t.settle()
	if size = t.encodedLen(); size <= budget {
		return dropped, nil
	}
	return dropped, fmt.Errorf("keypattern: %d bytes at least, budget %d: %w", size, budget, ErrBudget)
}

// encodedLen returns the length of t's encoding.
func (t *Table) encodedLen() int {
	b, _ := t.AppendBinary(nil)
	return len(b)
}
