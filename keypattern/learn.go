package keypattern

import "slices"

// Learning which literal parts vary. A literal's position is identified by
// its prefix: for a part after the first, the pattern before it and the
// separator in front of it (TENANT#acme and TENANT#globex share the prefix
// "TENANT" + '#'); for the first part, its letter case, the separator after
// it and the class of the part after that (OPS_LOG alone, USER#… and
// user_<n> are three first positions). A prefix whose literals take
// innerVariable distinct values (rootVariable for a first part) is learnt
// variable, for good: its literals become <*>, and the patterns that now
// read the same fold into one.
const (
	innerVariable = 2
	rootVariable  = 32
	// MaxRules bounds the learnt prefixes a table keeps (8 bytes each):
	// past it, nothing more is learnt, and new patterns stay literal.
	MaxRules = 1024
)

// valueSet is the distinct literals (their litHash) one prefix holds
// among the patterns, up to its threshold.
type valueSet struct {
	root bool
	vals []uint64
}

func (v *valueSet) threshold() int {
	if v.root {
		return rootVariable
	}
	return innerVariable
}

// learn takes a key whose pattern the table does not hold: the pattern is
// added, or, when the table is full and the key would teach it nothing,
// the key counts as other (-1). It returns the index of the key's pattern.
func (t *Table) learn(typ byte, key []byte, parts []part) int32 {
	if len(t.patterns) >= t.cfg.Patterns && !t.teaches(typ, key, parts) {
		return -1
	}
	var toks []token
	h, _ := t.walk(typ, key, parts, &toks)
	p := &pattern{typ: typ, tokens: toks, hash: h, top: newTopKeys(t.cfg.TopKeys)}
	t.patterns = append(t.patterns, p)
	t.settle()
	if len(t.patterns) > t.cfg.Patterns {
		// Nothing folded: the new pattern, which holds nothing yet, goes,
		// and what it taught stays.
		t.patterns = slices.DeleteFunc(t.patterns, func(q *pattern) bool { return q == p })
		t.settle()
		return -1
	}
	h, _ = t.walk(typ, key, parts, nil)
	return t.find(h)
}

// teaches reports whether a key of a new pattern would make a prefix
// variable: one of its literals is a value its prefix has not held, and
// one more reaches the prefix's threshold. It allocates nothing, for a
// full table's stream of new keys.
func (t *Table) teaches(typ byte, key []byte, parts []part) bool {
	h := startHash(typ)
	for i := range parts {
		p := &parts[i]
		c := p.class
		var lh uint64
		if c == Literal {
			pre := t.prefix(i, h, typ, parts)
			if t.rules.has(pre) {
				c = Any
			} else {
				lh = partHash(key, p)
				if v := t.values[pre]; v != nil && !slices.Contains(v.vals, lh) && len(v.vals)+1 >= v.threshold() {
					return true
				}
			}
		}
		h = tokenHash(h, p.sep, c, lh)
	}
	return false
}

// settle brings the patterns to the fixpoint of learning: it derives what
// every prefix holds, learns the prefixes that reached their threshold,
// generalises and folds the patterns, and repeats until nothing more is
// learnt. The fixpoint is a function of the set of patterns and rules, not
// of their order, so tables merged from shards settle where one table of
// all their records would.
func (t *Table) settle() {
	for {
		learnt := t.derive()
		for pre, v := range t.values {
			if len(v.vals) >= v.threshold() && t.rules.add(pre) {
				learnt = true
			}
		}
		if !learnt {
			break
		}
		t.regeneralise()
	}
	t.reindex()
}

// derive collects the literal values of every prefix into t.values, and
// learns the rules that the patterns' <*> parts imply: a prefix made
// variable under one prefix before, which a fold has just brought to
// where other literals stand (or a rule lost to a trim). It reports
// whether it learnt one.
func (t *Table) derive() bool {
	learnt := false
	t.values = make(map[uint64]*valueSet)
	for _, p := range t.patterns {
		h := startHash(p.typ)
		for i, tok := range p.tokens {
			switch {
			case tok.class == Any && i > 0:
				learnt = t.rules.add(innerPrefix(h, tok.sep)) || learnt
			case tok.class == Literal:
				pre := p.prefix(i, h)
				v := t.values[pre]
				if v == nil {
					v = &valueSet{root: i == 0}
					t.values[pre] = v
				}
				if lh := litHashString(tok.lit); len(v.vals) < v.threshold() && !slices.Contains(v.vals, lh) {
					v.vals = append(v.vals, lh)
				}
			}
			h = p.tokenHash(h, i)
		}
	}
	return learnt
}

// regeneralise rewrites every pattern under the rules and folds those that
// became equal, the later into the earlier.
func (t *Table) regeneralise() {
	kept := t.patterns[:0]
	seen := make(map[uint64]*pattern, len(t.patterns))
	for _, p := range t.patterns {
		t.generalise(p)
		if q := seen[p.hash]; q != nil {
			q.merge(p)
			continue
		}
		seen[p.hash] = p
		kept = append(kept, p)
	}
	clear(t.patterns[len(kept):])
	t.patterns = kept
}

// generalise turns p's literals at variable prefixes into <*> and rehashes.
func (t *Table) generalise(p *pattern) {
	h := startHash(p.typ)
	for i := range p.tokens {
		if tok := &p.tokens[i]; tok.class == Literal && t.rules.has(p.prefix(i, h)) {
			*tok = token{sep: tok.sep, class: Any}
		}
		h = p.tokenHash(h, i)
	}
	p.hash = finish(h, len(p.tokens))
}

// prefix is Table.prefix for the literal token i of a pattern, h the hash
// of the tokens before it.
func (p *pattern) prefix(i int, h uint64) uint64 {
	tok := p.tokens[i]
	if i > 0 {
		return innerPrefix(h, tok.sep)
	}
	next, nextClass := byte(0), Literal
	if len(p.tokens) > 1 {
		next, nextClass = p.tokens[1].sep, p.tokens[1].class
		if nextClass == Any {
			nextClass = Literal // as the key's scan saw it
		}
	}
	return rootPrefix(p.typ, shape(mask(tok.lit)), next, nextClass)
}

// tokenHash mixes token i into h.
func (p *pattern) tokenHash(h uint64, i int) uint64 {
	tok := p.tokens[i]
	var lh uint64
	if tok.class == Literal {
		lh = litHashString(tok.lit)
	}
	return tokenHash(h, tok.sep, tok.class, lh)
}

// prefixSet is the set of variable prefixes: open addressing on their
// hashes (never 0), at most half full.
type prefixSet struct {
	slots []uint64
	n     int
}

func (s *prefixSet) has(h uint64) bool {
	if s.n == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			return false
		case h:
			return true
		}
	}
}

// add inserts h and reports whether it was new; nothing is added past
// MaxRules.
func (s *prefixSet) add(h uint64) bool {
	if s.has(h) || s.n >= MaxRules {
		return false
	}
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots, s.n = make([]uint64, max(16, 2*len(old))), 0
		for _, x := range old {
			if x != 0 {
				s.add(x)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	i := h & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = h
	s.n++
	return true
}

// sorted returns the prefixes in ascending order.
func (s *prefixSet) sorted() []uint64 {
	out := make([]uint64, 0, s.n)
	for _, x := range s.slots {
		if x != 0 {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}
