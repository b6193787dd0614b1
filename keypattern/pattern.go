package keypattern

import (
	"strings"

	"github.com/zeebo/xxh3"
)

// token is one part of a pattern: a literal's text, or a class.
type token struct {
	sep   byte // the separator before it, 0 for the first
	class Class
	lit   string // the literal, for class Literal only
}

// pattern is one pattern and what its keys' records added up to.
type pattern struct {
	typ    byte // the key type, ddb.String, ddb.Number or ddb.Binary
	tokens []token
	hash   uint64 // patternHash(typ, tokens)

	records, wcu uint64
	// The WCU of the latest second seen (lastTick, tickWCU) and the most
	// counted in one second: a lower bound on the pattern's peak, as in
	// sketch's entries.
	lastTick         int64
	tickWCU, peakWCU uint64

	// Evidence of how many values the variable parts can take: the most
	// digits of a <n> part, and the finest unit a time part was aligned
	// to (unitNone if the pattern has no time part).
	maxDigits uint8
	minUnit   uint8
	// The time part (the first): the newest value seen and the WCU of its
	// records; the WCU of records written while their value was current.
	newest     instant
	newestWCU  uint64
	currentWCU uint64

	keys distinct
	top  topKeys
}

// currentSlack widens the current bucket on both sides: record times are
// approximate (DynamoDB Local rounds them to the minute) and clocks skew.
const currentSlack = 60

// add counts one record of the pattern, the first of its key since the
// key's pattern was found: c holds what the scan of the key found (its
// time part's value, its numbers' digits), and remembers its counter.
func (p *pattern) add(key []byte, hash, wcu uint64, second int64, c *cacheEntry) {
	p.records++
	p.wcu = satAdd(p.wcu, wcu)
	p.observe(wcu, second)
	p.keys.add(uint32(hash >> 32))
	c.slot = int8(p.top.add(key, hash, wcu))
	p.maxDigits = max(p.maxDigits, c.digits)
	if c.t.unit != unitNone {
		if p.minUnit == unitNone || c.t.unit < p.minUnit {
			p.minUnit = c.t.unit
		}
		p.time(c.t, wcu, second)
	}
}

// again counts one more record of a key that add counted already: its
// distinct count and digits are known, and its counter remembered in c.
func (p *pattern) again(key []byte, hash, wcu uint64, second int64, c *cacheEntry) {
	p.records++
	p.wcu = satAdd(p.wcu, wcu)
	p.observe(wcu, second)
	if !p.top.again(int(c.slot), hash, wcu) {
		c.slot = int8(p.top.add(key, hash, wcu))
	}
	if c.t.unit != unitNone {
		p.time(c.t, wcu, second)
	}
}

// time counts a record's WCU for its time part's value t: to the newest
// value, and to the current one if the record's time falls in t's bucket.
func (p *pattern) time(t instant, wcu uint64, second int64) {
	switch {
	case p.newest.unit == unitNone || t.after(p.newest):
		p.newest, p.newestWCU = t, wcu
	case t.sec == p.newest.sec && t.nano == p.newest.nano:
		p.newestWCU = satAdd(p.newestWCU, wcu)
	}
	if second != 0 && second >= t.sec-currentSlack && second < t.sec+unitSeconds[t.unit]+currentSlack {
		p.currentWCU = satAdd(p.currentWCU, wcu)
	}
}

// observe follows the WCU per second, as sketch's slot.observe: a record
// older than the latest can only show its own weight as a peak.
func (p *pattern) observe(wcu uint64, tick int64) {
	switch {
	case tick == p.lastTick:
		p.tickWCU = satAdd(p.tickWCU, wcu)
	case tick > p.lastTick || p.records == 1:
		p.lastTick, p.tickWCU = tick, wcu
	default:
		p.peakWCU = max(p.peakWCU, wcu)
	}
	p.peakWCU = max(p.peakWCU, p.tickWCU)
}

// merge adds o, a pattern of the same tokens, into p.
func (p *pattern) merge(o *pattern) {
	first := p.records == 0
	p.records = satAdd(p.records, o.records)
	p.wcu = satAdd(p.wcu, o.wcu)
	switch {
	case first || o.lastTick > p.lastTick:
		p.lastTick, p.tickWCU = o.lastTick, o.tickWCU
	case o.lastTick == p.lastTick:
		p.tickWCU = satAdd(p.tickWCU, o.tickWCU)
	}
	p.peakWCU = max(p.peakWCU, o.peakWCU, p.tickWCU)
	p.maxDigits = max(p.maxDigits, o.maxDigits)
	if o.minUnit != unitNone && (p.minUnit == unitNone || o.minUnit < p.minUnit) {
		p.minUnit = o.minUnit
	}
	switch {
	case o.newest.unit == unitNone:
	case p.newest.unit == unitNone || o.newest.after(p.newest):
		p.newest, p.newestWCU = o.newest, o.newestWCU
	case !p.newest.after(o.newest):
		p.newestWCU = satAdd(p.newestWCU, o.newestWCU)
	}
	p.currentWCU = satAdd(p.currentWCU, o.currentWCU)
	p.keys.merge(&o.keys)
	p.top.merge(&o.top)
}

// clone returns a deep copy of p.
func (p *pattern) clone() *pattern {
	c := *p
	c.tokens = append([]token(nil), p.tokens...)
	c.keys = p.keys.clone()
	c.top = p.top.clone()
	return &c
}

// String renders the pattern: each separator, then the literal or the
// class. A literal's '<' and '\' are escaped with '\', so that a literal
// never reads as a class.
func (p *pattern) String() string {
	var b strings.Builder
	for _, t := range p.tokens {
		if t.sep != 0 {
			b.WriteByte(t.sep)
		}
		if t.class != Literal {
			b.WriteString(t.class.String())
			continue
		}
		for i := range len(t.lit) {
			if c := t.lit[i]; c == '<' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(t.lit[i])
		}
	}
	return b.String()
}

// Hashing: a pattern, and the prefix before each of its literal parts, are
// identified by a 64-bit hash built one part at a time, so that the hot path
// needs neither the pattern's text nor an allocation. Literals are hashed
// with XXH3 (as sketch.Hash), and the parts are mixed in by a fixed
// multiply-xorshift: the hashes are the same in every process, and so are
// the learnt prefixes that an encoding carries.
const hashSeed = 0x6b65797061747465 // "keypatte"

func mix(h, x uint64) uint64 {
	h ^= x
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// startHash begins the hash of a key of type typ.
func startHash(typ byte) uint64 { return mix(hashSeed, uint64(typ)) }

// tokenHash mixes one part into h, litHash being XXH3 of a literal's text.
func tokenHash(h uint64, sep byte, c Class, litHash uint64) uint64 {
	h = mix(h, 1<<16|uint64(sep)<<8|uint64(c))
	if c == Literal {
		h = mix(h, litHash)
	}
	return h
}

// innerPrefix identifies the position after the parts hashed into h, behind
// separator sep: where a literal may be learnt to vary. Never 0.
func innerPrefix(h uint64, sep byte) uint64 { return mix(h, 2<<16|uint64(sep)) | 1 }

// rootPrefix identifies the first part's position for a literal of the
// given shape (letter case), followed by separator next and a part of
// class nextClass (Literal for none or for a literal); never 0.
func rootPrefix(typ, shape, next byte, nextClass Class) uint64 {
	return mix(mix(hashSeed^0xff, uint64(typ)), 3<<24|uint64(shape)<<16|uint64(next)<<8|uint64(nextClass)) | 1
}

// finish ends a pattern's hash after n parts; never 0.
func finish(h uint64, n int) uint64 { return mix(h, 4<<16|uint64(n)) | 1 }

// litHash is the hash of a literal: up to 8 bytes, its bytes as an
// integer, mixed; longer, XXH3 (as sketch.Hash). It is fixed, so that
// learnt prefixes mean the same in every process.
func litHash(s []byte) uint64 {
	if len(s) > 8 {
		return xxh3.Hash(s)
	}
	return shortHash(s)
}

// litHashString is litHash of a string.
func litHashString(s string) uint64 {
	if len(s) > 8 {
		return xxh3.HashString(s)
	}
	return shortHash(s)
}

func shortHash[T string | []byte](s T) uint64 {
	var v uint64
	for i := range len(s) {
		v |= uint64(s[i]) << (8 * i)
	}
	return shortMix(len(s), v)
}

// shortMix hashes a literal of n ≤ 8 bytes, v being its bytes
// little-endian.
func shortMix(n int, v uint64) uint64 { return mix(mix(mix(hashSeed, 5<<16|uint64(n)), v), 6<<16) }
