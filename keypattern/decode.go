package keypattern

import (
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// maxEncodedLen is above the largest encoding the limits allow (256
// patterns of 32 keys of 2,049 bytes, about 17 MB, is not a state anyone
// keeps, but decodes), so that decoding refuses a larger input unread.
const maxEncodedLen = 1 << 25

// UnmarshalBinary replaces t with the table encoded in data, its Config
// included but for Cache, which stays t's (or the default).
//
// Input that is truncated, fails its checksum, describes an impossible
// table or comes from another version returns an error wrapping
// ErrCorrupt (and sketch.ErrTruncated when cut short) or ErrVersion, and
// leaves t unchanged and usable. Decoding sizes nothing from a length it has
// not checked against the limits and the input that remains.
func (t *Table) UnmarshalBinary(data []byte) error {
	if len(data) > maxEncodedLen {
		return fmt.Errorf("keypattern: %d bytes, at most %d: %w", len(data), maxEncodedLen, ErrCorrupt)
	}
	_, r, err := tableFormat.Open(data)
	if err != nil {
		return err
	}
	cfg := Config{Patterns: int(limited(&r, MaxPatterns, "patterns")), TopKeys: int(limited(&r, MaxTopKeys, "top keys")), Cache: t.Config().Cache}
	if r.Err() != nil {
		return r.Err()
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrCorrupt)
	}
	// The cache comes last, t's own when it fits: a Lambda decodes its
	// windows' tables at every batch.
	d := Table{cfg: cfg, gen: 1}
	d.records, d.wcu, d.otherRecords, d.otherWCU = r.Uvarint(), r.Uvarint(), r.Uvarint(), r.Uvarint()
	for range r.Count(8) {
		if x := r.Uint64(); x&1 == 0 || !d.rules.add(x) {
			r.Failf("learnt prefix %#x is even, repeated, or one past %d", x, MaxRules)
		}
	}
	for range r.Count(4) {
		if r.Err() != nil {
			break
		}
		p := d.decodePattern(&r)
		if len(d.patterns) == cfg.Patterns {
			r.Failf("more than %d patterns", cfg.Patterns)
		}
		d.patterns = append(d.patterns, p)
	}
	switch {
	case r.Err() != nil:
		return r.Err()
	case r.Len() > 0:
		return fmt.Errorf("keypattern: %d bytes after the patterns: %w", r.Len(), ErrCorrupt)
	}
	if err := d.checkTotals(); err != nil {
		return err
	}
	d.regeneralise()
	d.settle()
	if d.cache = t.cache; len(d.cache) == cfg.Cache {
		clear(d.cache)
	} else {
		d.cache = make([]cacheEntry, cfg.Cache)
	}
	*t = d
	return nil
}

// checkTotals checks that the patterns and other add up to the totals,
// unless a sum saturated.
func (t *Table) checkTotals() error {
	records, wcu := t.otherRecords, t.otherWCU
	for _, p := range t.patterns {
		records, wcu = satAdd(records, p.records), satAdd(wcu, p.wcu)
	}
	if (records != t.records && t.records != ^uint64(0)) || (wcu != t.wcu && t.wcu != ^uint64(0)) {
		return fmt.Errorf("keypattern: patterns and other add up to %d records and %d WCU, the table to %d and %d: %w",
			records, wcu, t.records, t.wcu, ErrCorrupt)
	}
	return nil
}

func (t *Table) decodePattern(r *frame.Reader) *pattern {
	p := &pattern{typ: r.Byte(), top: newTopKeys(t.cfg.TopKeys)}
	n := int(limited(r, maxParts, "parts"))
	if n == 0 {
		r.Failf("a pattern of no parts")
	}
	for i := range n {
		p.tokens = append(p.tokens, decodeToken(r, p.typ, i))
	}
	p.records, p.wcu = r.Uvarint(), r.Uvarint()
	p.lastTick = r.Varint()
	p.tickWCU, p.peakWCU = r.Uvarint(), r.Uvarint()
	p.maxDigits, p.minUnit = r.Byte(), r.Byte()
	if p.minUnit != unitNone {
		p.newest.sec = r.Varint()
		p.newest.nano = int32(limited(r, 999_999_999, "nanoseconds"))
		p.newest.unit = r.Byte()
		p.newestWCU, p.currentWCU = r.Uvarint(), r.Uvarint()
	}
	switch {
	case p.records == 0 || p.wcu > 0 && p.peakWCU == 0 || p.peakWCU > p.wcu || p.tickWCU > p.peakWCU:
		r.Failf("pattern %q: %d records, %d WCU, peak %d, last second %d", p, p.records, p.wcu, p.peakWCU, p.tickWCU)
	case p.minUnit > unitMonth || p.minUnit != unitNone && (p.newest.unit < p.minUnit || p.newest.unit > unitMonth):
		r.Failf("pattern %q: time units %d and %d", p, p.minUnit, p.newest.unit)
	case p.newestWCU > p.wcu || p.currentWCU > p.wcu:
		r.Failf("pattern %q: newest %d and current %d WCU of %d", p, p.newestWCU, p.currentWCU, p.wcu)
	}
	p.keys.decode(r, p.records)
	p.top.decode(r, p.wcu)
	h := startHash(p.typ)
	for i := range p.tokens {
		h = p.tokenHash(h, i)
	}
	p.hash = finish(h, len(p.tokens))
	return p
}

// decodeToken reads token i of a pattern of key type typ: a String key's
// parts have a separator past the first and any class but Bytes; a Number
// or Binary key is one part of its class.
func decodeToken(r *frame.Reader, typ byte, i int) token {
	tok := token{sep: r.Byte(), class: Class(r.Byte())}
	if tok.class == Literal {
		tok.lit = string(r.Bytes(limited(r, sketch.MaxKeyLen, "literal length")))
	}
	var ok bool
	switch typ {
	case byte(ddb.String):
		ok = tok.class < Bytes && (i == 0) == (tok.sep == 0) && (i == 0 || kinds[tok.sep]&(kSep|kCond) != 0)
	case byte(ddb.Number):
		ok = i == 0 && tok.sep == 0 && tok.class == Number
	case byte(ddb.Binary):
		ok = i == 0 && tok.sep == 0 && tok.class == Bytes
	}
	if !ok {
		r.Failf("part %d of a pattern of type %q: separator %q, class %d", i, typ, tok.sep, tok.class)
	}
	return tok
}

func (d *distinct) decode(r *frame.Reader, records uint64) {
	switch r.Byte() {
	case 0:
		n := r.Count(4)
		if n > exactKeys || uint64(n) > records {
			r.Failf("%d distinct keys in a set of %d, in %d records", n, exactKeys, records)
			return
		}
		var prev uint32
		for i := range n {
			fp := r.Uint32()
			if i > 0 && fp <= prev {
				r.Failf("key fingerprints out of order")
				return
			}
			prev = fp
			d.add(fp)
		}
	case 1:
		b := r.Bytes(denseLen)
		if b == nil {
			return
		}
		d.regs = make([]uint8, hllM)
		acc, bits, j := uint64(0), 0, 0
		for i := range d.regs {
			for bits < 5 {
				acc |= uint64(b[j]) << bits
				j, bits = j+1, bits+8
			}
			d.regs[i] = uint8(acc & 31)
			acc, bits = acc>>5, bits-5
			if d.regs[i] > hllQ+1 {
				r.Failf("register %d = %d, at most %d", i, d.regs[i], hllQ+1)
				return
			}
		}
	default:
		r.Failf("distinct keys of an unknown form")
	}
}

// decode reads the top keys of a pattern of WCU wcu, checking what add,
// merge and trim keep: overcount ≤ count ≤ wcu, count ≥ floor, distinct keys.
func (s *topKeys) decode(r *frame.Reader, wcu uint64) {
	s.floor = r.Uvarint()
	n := int(limited(r, uint64(s.k), "top keys"))
	for range n {
		key := r.Bytes(limited(r, sketch.MaxKeyLen, "key length"))
		count, over := r.Uvarint(), r.Uvarint()
		if r.Err() != nil {
			return
		}
		hash := sketch.Hash(key)
		if count == 0 || over > count || count > wcu || count < s.floor || s.find(hash, key) >= 0 {
			r.Failf("top key %q: count %d, overcount %d, floor %d, pattern WCU %d, or repeated", key, count, over, s.floor, wcu)
			return
		}
		s.hash[s.n], s.count[s.n], s.err[s.n], s.keys[s.n] = hash, count, over, append([]byte(nil), key...)
		s.setTag(s.n, hash)
		s.n++
	}
	if s.floor > wcu {
		r.Failf("top keys' floor %d over the pattern's WCU %d", s.floor, wcu)
	}
}

// limited reads a uvarint that must not exceed limit.
func limited(r *frame.Reader, limit uint64, what string) uint64 {
	v := r.Uvarint()
	if v > limit {
		r.Failf("%s = %d, at most %d", what, v, limit)
		return 0
	}
	return v
}
