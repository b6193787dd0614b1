package keypattern

import (
	"encoding/binary"
	"slices"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

// The encoding of a Table, version 1. Integers are unsigned varints unless
// said otherwise.
//
//	magic       "KP"
//	version     1 byte: 1
//	patterns, top keys   the Config (its Cache is not encoded)
//	records, wcu, other records, other wcu
//	rules       n, then n prefixes, 8 bytes big-endian each, ascending:
//	            the learnt prefixes no pattern's <*> implies
//	patterns    n, then each:
//	  type      1 byte: 'S', 'N' or 'B'
//	  tokens    n (1..16), then each: separator byte (0 for the first),
//	            class byte, and for a literal its length and bytes
//	  records, wcu, last tick (signed), tick wcu, peak wcu
//	  digits    1 byte; time unit 1 byte (0: no time part), and with one:
//	            newest seconds (signed), nanoseconds, unit byte,
//	            newest wcu, current wcu
//	  keys      0 then n and n fingerprints (4 bytes big-endian,
//	            ascending), or 1 then 512 registers of 5 bits (320 bytes)
//	  top keys  floor, n, then each: key length and bytes, count, overcount
//	checksum    CRC-32C of everything above, 4 bytes big-endian
//
// framed by package frame. An encoding is canonical for a settled table:
// patterns in their table order, sets and rules sorted.
const encodingVersion = 1

var tableFormat = frame.Format{
	Name: "keypattern", Magic: "KP", Oldest: encodingVersion, Newest: encodingVersion,
	Corrupt: ErrCorrupt, Version: ErrVersion,
}

// denseLen is the length of packed registers.
const denseLen = hllM * 5 / 8

// MarshalBinary encodes t; see AppendBinary.
func (t *Table) MarshalBinary() ([]byte, error) { return t.AppendBinary(nil) }

// AppendBinary appends the encoding of t to b. It cannot fail; the error
// is encoding.BinaryAppender's.
func (t *Table) AppendBinary(b []byte) ([]byte, error) {
	t.ready()
	start := len(b)
	b = tableFormat.AppendHeader(b, encodingVersion)
	b = appendUvarints(b, uint64(t.cfg.Patterns), uint64(t.cfg.TopKeys), t.records, t.wcu, t.otherRecords, t.otherWCU)
	rules := t.explicitRules()
	b = binary.AppendUvarint(b, uint64(len(rules)))
	for _, r := range rules {
		b = binary.BigEndian.AppendUint64(b, r)
	}
	b = binary.AppendUvarint(b, uint64(len(t.patterns)))
	for _, p := range t.patterns {
		b = p.appendBinary(b)
	}
	return frame.AppendChecksum(b, start), nil
}

// explicitRules returns the learnt prefixes that no pattern's <*> implies,
// ascending: the others are learnt again from the patterns on decoding.
func (t *Table) explicitRules() []uint64 {
	var implied prefixSet
	for _, p := range t.patterns {
		h := startHash(p.typ)
		for i, tok := range p.tokens {
			if tok.class == Any && i > 0 {
				implied.add(innerPrefix(h, tok.sep))
			}
			h = p.tokenHash(h, i)
		}
	}
	return slices.DeleteFunc(t.rules.sorted(), implied.has)
}

func (p *pattern) appendBinary(b []byte) []byte {
	b = append(b, p.typ)
	b = binary.AppendUvarint(b, uint64(len(p.tokens)))
	for _, tok := range p.tokens {
		b = append(b, tok.sep, byte(tok.class))
		if tok.class == Literal {
			b = frame.AppendString(b, tok.lit)
		}
	}
	b = appendUvarints(b, p.records, p.wcu)
	b = binary.AppendVarint(b, p.lastTick)
	b = appendUvarints(b, p.tickWCU, p.peakWCU)
	b = append(b, p.maxDigits, p.minUnit)
	if p.minUnit != unitNone {
		b = binary.AppendVarint(b, p.newest.sec)
		b = binary.AppendUvarint(b, uint64(p.newest.nano))
		b = append(b, p.newest.unit)
		b = appendUvarints(b, p.newestWCU, p.currentWCU)
	}
	b = p.keys.appendBinary(b)
	b = binary.AppendUvarint(b, p.top.floor)
	b = binary.AppendUvarint(b, uint64(p.top.len()))
	for _, e := range p.top.sorted() {
		b = frame.AppendBytes(b, e.key)
		b = appendUvarints(b, e.count, e.err)
	}
	return b
}

func (d *distinct) appendBinary(b []byte) []byte {
	if d.regs == nil {
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(d.n))
		for _, fp := range d.sorted() {
			b = binary.BigEndian.AppendUint32(b, fp)
		}
		return b
	}
	b = append(b, 1)
	var acc uint64
	bits := 0
	for _, r := range d.regs {
		acc |= uint64(r) << bits
		if bits += 5; bits >= 8 {
			b = append(b, byte(acc))
			acc >>= 8
			bits -= 8
		}
	}
	return b
}

func appendUvarints(b []byte, vs ...uint64) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}
