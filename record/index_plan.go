package record

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// The decoder's index configuration, compiled: each index's attributes as
// small ids, and the names that matter ready to be found in one compare.

// indexPlan is a decoder's index configuration, compiled: what each
// record's charge needs of an index, derived once rather than per record.
type indexPlan struct {
	defs    []ddb.Index
	indexes []compiledIndex // per index, in the order of defs
	names   []string        // the attributes that matter (index keys, INCLUDE attributes), by id
	short   [32][]int       // ids of those names, by length, for names under 32 bytes
	words   [9][]nameWord   // names of up to 8 bytes, by length, as little-endian words
	long    map[string]int  // ids of longer names
	seed    maphash.Seed    // of canonical value hashes
}

// compiledIndex is one index, its attributes as plan ids.
type compiledIndex struct {
	pk, sk   int   // its key attributes' ids; sk -1 without a sort key
	all      bool  // projection ALL: the entry is the whole item
	included []int // INCLUDE's attributes' ids, as listed (a change to any is a projected change)
	// entry lists, once each, the ids of the attributes an entry holds
	// besides the table's keys (which KeysSize counts): the index keys and
	// INCLUDE's attributes. Unused with ALL. Those that turn out to be the
	// table's keys are skipped per record (see entrySize).
	entry []int
}

func newIndexPlan(defs []ddb.Index) (*indexPlan, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	p := &indexPlan{defs: slices.Clone(defs), long: map[string]int{}, seed: maphash.MakeSeed()}
	seen := map[string]bool{}
	for _, def := range defs {
		if err := def.Validate(); err != nil {
			return nil, err
		}
		if seen[def.Name] {
			return nil, fmt.Errorf("%w: two indexes named %q", ddb.ErrIndex, def.Name)
		}
		seen[def.Name] = true
		p.indexes = append(p.indexes, p.compile(def))
	}
	return p, nil
}

// compile gives the attributes of index def their ids.
func (p *indexPlan) compile(def ddb.Index) compiledIndex {
	c := compiledIndex{pk: p.id(def.PartitionKey), sk: -1, all: def.Projection == ddb.ProjectAll}
	c.entry = append(c.entry, c.pk)
	if def.SortKey != "" {
		c.sk = p.id(def.SortKey)
		if c.sk != c.pk {
			c.entry = append(c.entry, c.sk)
		}
	}
	if def.Projection == ddb.ProjectInclude {
		for _, a := range def.NonKeyAttributes {
			k := p.id(a)
			c.included = append(c.included, k)
			if !slices.Contains(c.entry, k) {
				c.entry = append(c.entry, k)
			}
		}
	}
	return c
}

// id returns the id of an attribute name, giving it one if it has none.
func (p *indexPlan) id(name string) int {
	if k := p.lookup([]byte(name)); k >= 0 {
		return k
	}
	k := len(p.names)
	p.names = append(p.names, name)
	if len(name) < len(p.words) {
		var w [8]byte
		copy(w[:], name)
		p.words[len(name)] = append(p.words[len(name)], nameWord{binary.LittleEndian.Uint64(w[:]), k})
	}
	if len(name) < len(p.short) {
		p.short[len(name)] = append(p.short[len(name)], k)
	} else {
		p.long[name] = k
	}
	return k
}

// keyID returns the plan id + 1 of the name of key attribute k, or 0 when
// no index needs it, and keeps a name of up to 8 bytes with it in
// d.keyNames, where keys finds it again without a lookup.
func (d *Decoder) keyID(k int, name []byte) int32 {
	id := int32(d.plan.lookup(name) + 1)
	if n := len(name); n <= 8 && cap(name) >= 8 {
		d.keyNames[k&1] = keyName{word: binary.LittleEndian.Uint64(name[:8]) & wordMasks[n], n: n, id: id}
	}
	return id
}

// keyName is a key attribute's name of up to 8 bytes, as a word, its
// length and its keyID, as last seen. The zero value is the empty name,
// which no index needs.
type keyName struct {
	word uint64
	n    int
	id   int32
}

// lookup returns the id of an attribute name, or -1.
func (p *indexPlan) lookup(name []byte) int {
	if n := len(name); n < len(p.words) {
		// Most names are short: one word compare each.
		var w uint64
		if cap(name) >= 8 {
			w = binary.LittleEndian.Uint64(name[:8]) & (1<<(8*n) - 1)
			if n == 8 {
				w = binary.LittleEndian.Uint64(name[:8])
			}
		} else {
			var b [8]byte
			copy(b[:], name)
			w = binary.LittleEndian.Uint64(b[:])
		}
		for _, e := range p.words[n] {
			if e.word == w {
				return e.id
			}
		}
		return -1
	}
	if len(name) < len(p.short) {
		for _, k := range p.short[len(name)] {
			if string(name) == p.names[k] {
				return k
			}
		}
		return -1
	}
	if k, ok := p.long[string(name)]; ok {
		return k
	}
	return -1
}

// shortID is lookup for the plain name of n < 8 bytes whose quote is at
// b[q], when b holds 8 bytes past the quote: small enough to inline in the
// scanner's loop.
func (p *indexPlan) shortID(b []byte, q, n int) int {
	w := binary.LittleEndian.Uint64(b[q+1:]) & wordMasks[n&7]
	for _, e := range p.words[n&7] {
		if e.word == w {
			return e.id
		}
	}
	return -1
}

// wordMasks[n] keeps the first n bytes of a little-endian word: a table
// rather than a shift by a variable, which costs several instructions
// more, and the sizing pass looks up every top-level name (1.0 M
// instructions per benchmark batch with three indexes, cachegrind).
var wordMasks = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ^uint64(0)}

// nameWord is a name of up to 8 bytes as a little-endian word.
type nameWord struct {
	word uint64
	id   int
}
