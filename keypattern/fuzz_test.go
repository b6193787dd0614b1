package keypattern

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// FuzzClassify: any key is classified without a panic, into parts that
// are the key (each part its bytes, after its separator) and whose class
// each holds of its bytes; a table's pattern of it matches it part for
// part, <*> standing only for a literal.
func FuzzClassify(f *testing.F) {
	for _, k := range []string{
		"OPS_LOG", "USER#0b7c4f2e-9d3a-4c1b-8e5f-6a7b8c9d0e1f", "ORDER#2026-06-22T01:00:00.123Z#7",
		"a_b-1_2026-06-22@x.co", "USER#bob.smith+tag@mail.example.co.uk#P", "2026-06-22T01:00:00+02:00",
		"SESSION_9f86d081884c7d65", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "#:|/.@_-", "1#2#3#4#5#6#7#8#9#10#11#12#13#14#15#16#17",
	} {
		f.Add([]byte(k))
	}
	tb, _ := New(Config{Patterns: 16, TopKeys: 2, Cache: 64})
	f.Fuzz(func(t *testing.T, v []byte) {
		key := append([]byte{'S'}, v...)
		var s scanner
		checkParts(t, key, s.scan(key, 1))
		Classify(v) // a key of any type byte
		tb.Add(key, sketch.Hash(key), 1, t0)
		i := tb.lookup(key)
		if i < 0 {
			return // counted as other
		}
		p := tb.patterns[i]
		parts := s.scan(key, 1)
		if len(p.tokens) != len(parts) {
			t.Fatalf("%q: pattern %s has %d parts, the key %d", key, p, len(p.tokens), len(parts))
		}
		for j, tok := range p.tokens {
			pt := parts[j]
			if tok.sep != pt.sep || (tok.class != pt.class && !(tok.class == Any && pt.class == Literal)) ||
				(tok.class == Literal && tok.lit != string(key[pt.start:pt.end])) {
				t.Fatalf("%q: pattern %s (%+v), part %d is %+v %q", key, p, p.tokens, j, pt, key[pt.start:pt.end])
			}
		}
	})
}

// checkParts holds the parts of a String key to what the scan promises.
func checkParts(t *testing.T, key []byte, parts []part) {
	t.Helper()
	if len(parts) == 0 || len(parts) > maxParts || parts[0].start != 1 || parts[0].sep != 0 || int(parts[len(parts)-1].end) != len(key) {
		t.Fatalf("%q: parts %+v do not span the key", key, parts)
	}
	for i, p := range parts {
		if i > 0 && (p.start != parts[i-1].end+1 || key[p.start-1] != p.sep || kinds[p.sep]&(kSep|kCond) == 0) {
			t.Fatalf("%q: part %d %+v does not follow its separator", key, i, p)
		}
		if v := key[p.start:p.end]; !holds(p.class, v) {
			t.Fatalf("%q: part %d %q is not %v", key, i, v, p.class)
		}
	}
}

// holds reports whether v is of class c, by each class's definition.
func holds(c Class, v []byte) bool {
	m := mask(v)
	switch c {
	case Literal:
		return true
	case Number:
		return len(v) > 0 && m == kDigit
	case UUID:
		return len(v) == 36 && uuidAt(v, 0)
	case Date, DateTime:
		n, got, _, ok := parseTime(v)
		return ok && n == len(v) && got == c
	case Hex:
		return len(v) >= 8 && m&^(kAlnum) == 0 && m&kNonHex == 0 && m&kDigit != 0 && m&kLetters != 0 && m&kLetters != kLetters
	case ID:
		return len(v) >= 16 && m&^(kAlnum|kNonHex) == 0
	case Email:
		at := bytes.IndexByte(v, '@')
		return at > 0 && bytes.IndexByte(v[at:], '.') > 0
	}
	return false
}

// FuzzUnmarshalBinary feeds arbitrary bytes to UnmarshalBinary, as they
// are and with a valid checksum put on them. A rejected input leaves the
// table as it was and usable; an accepted one encodes again to itself and
// goes on counting, merging, reporting and trimming.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, tb := range fuzzSeedTables(f) {
		b, _ := tb.MarshalBinary()
		f.Add(b)
		f.Add(b[:len(b)/2])
		for _, i := range []int{3, 5, len(b) / 3, len(b) / 2, len(b) - 5} {
			flipped := bytes.Clone(b)
			flipped[i] ^= 0x41
			f.Add(frame.AppendChecksum(flipped[:len(flipped)-4], 0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs := [][]byte{data}
		if len(data) >= 7 {
			inputs = append(inputs, frame.AppendChecksum(bytes.Clone(data[:len(data)-4]), 0))
		}
		for _, in := range inputs {
			tb := tableOf(t, stream(8, streamKinds()[:3]))
			before := contentOf(tb)
			if err := tb.UnmarshalBinary(in); err != nil {
				if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
					t.Fatalf("error %v wraps no sentinel", err)
				}
				if !reflect.DeepEqual(before, contentOf(tb)) {
					t.Fatal("a rejected input changed the table")
				}
			} else {
				roundTrip(t, tb)
			}
			use(t, tb)
		}
	})
}

// use exercises every operation on tb.
func use(t *testing.T, tb *Table) {
	t.Helper()
	for _, k := range []string{"OPS_LOG", "STATUS#ACTIVE", "STATUS#DONE", "USER#0b7c4f2e-9d3a-4c1b-8e5f-6a7b8c9d0e1f"} {
		tb.Add(typed(k), hashOf(k), 2, t0)
	}
	for _, f := range tb.Patterns(nil) {
		Judge(&f, DefaultThresholds())
		f.Ceiling(1000)
	}
	if err := tb.Merge(tableOf(t, stream(9, streamKinds()[4:6]))); err != nil && !errors.Is(err, ErrConfigMismatch) {
		t.Fatal(err)
	}
	roundTrip(t, tb)
	if _, err := tb.Trim(500); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, tb)
}

// fuzzSeedTables are tables of every shape the encoding takes: empty, of
// each key type, with learnt prefixes, time parts, dense counts, heavy
// keys trimmed, and patterns dropped to other.
func fuzzSeedTables(f *testing.F) []*Table {
	f.Helper()
	var empty Table
	small, _ := New(Config{Patterns: 4, TopKeys: 2, Cache: 16})
	for _, k := range []string{"OPS_LOG", "TENANT#a", "TENANT#b", "LOG#2026-06-22", "X", "Y"} {
		small.Add(typed(k), hashOf(k), 1, t0)
	}
	all := tableOf(f, stream(10, streamKinds()))
	trimmed := tableOf(f, stream(11, streamKinds()))
	if _, err := trimmed.Trim(1500); err != nil {
		f.Fatal(err)
	}
	return []*Table{&empty, small, all, trimmed}
}
