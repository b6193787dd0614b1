package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

var (
	errCorrupt = errors.New("test: corrupt")
	errVersion = errors.New("test: unknown version")
	plain      = Format{Name: "test", Oldest: 1, Newest: 2, Corrupt: errCorrupt, Version: errVersion}
	magic      = Format{Name: "test", Magic: "hk", Oldest: 1, Newest: 3, Corrupt: errCorrupt, Version: errVersion}
)

// frameOf frames body by hand, as the formats did before this package: the
// checksum is computed here with hash/crc32 directly.
func frameOf(head string, version byte, body []byte) []byte {
	b := append([]byte(head), version)
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func TestAppendIsTheFrame(t *testing.T) {
	for _, f := range []*Format{&plain, &magic} {
		body := []byte("some body")
		b := f.AppendHeader([]byte("before"), 2)
		b = append(b, body...)
		b = AppendChecksum(b, len("before"))
		if want := append([]byte("before"), frameOf(f.Magic, 2, body)...); !bytes.Equal(b, want) {
			t.Errorf("magic %q: %x, want %x", f.Magic, b, want)
		}
		v, r, err := f.Open(b[len("before"):])
		if err != nil || v != 2 || !bytes.Equal(r.Bytes(uint64(r.Len())), body) {
			t.Errorf("magic %q: Open = %d, %v; want version 2 and the body", f.Magic, v, err)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	good := frameOf("hk", 3, []byte{1, 2, 3})
	flipped := bytes.Clone(good)
	flipped[4] ^= 1
	tests := []struct {
		name    string
		f       *Format
		data    []byte
		want    []error
		notWant error
	}{
		{"empty", &plain, nil, []error{ErrTruncated, errCorrupt}, errVersion},
		{"version 0", &plain, []byte{0}, []error{errVersion}, errCorrupt},
		{"version 3 before its checksum", &plain, []byte{3, 9, 9, 9, 9, 9}, []error{errVersion}, errCorrupt},
		{"version only", &plain, []byte{1}, []error{ErrTruncated, errCorrupt}, errVersion},
		{"short of a checksum", &plain, []byte{1, 0, 0, 0}, []error{ErrTruncated, errCorrupt}, errVersion},
		{"checksum", &plain, []byte{1, 0, 0, 0, 0}, []error{errCorrupt}, ErrTruncated},
		{"within the magic", &magic, []byte("h"), []error{ErrTruncated, errCorrupt}, errVersion},
		{"magic only", &magic, []byte("hk"), []error{ErrTruncated, errCorrupt}, errVersion},
		{"foreign", &magic, []byte(`{"json": true}`), []error{errCorrupt}, ErrTruncated},
		{"version 4", &magic, frameOf("hk", 4, nil), []error{errVersion}, errCorrupt},
		{"flipped", &magic, flipped, []error{errCorrupt}, ErrTruncated},
		{"truncated", &magic, good[:len(good)-1], []error{errCorrupt}, errVersion},
	}
	for _, tc := range tests {
		_, r, err := tc.f.Open(tc.data)
		for _, w := range tc.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: %v, want it to wrap %v", tc.name, err, w)
			}
		}
		if errors.Is(err, tc.notWant) {
			t.Errorf("%s: %v wraps %v", tc.name, err, tc.notWant)
		}
		if r.Len() != 0 {
			t.Errorf("%s: a Reader of %d bytes beside the error", tc.name, r.Len())
		}
	}
}

// TestReaderFields reads back every kind of field as the writers put them.
func TestReaderFields(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 1<<63+5)
	b = binary.AppendVarint(b, -7)
	b = AppendString(b, "table")
	b = AppendBytes(b, []byte{0, 1, 2})
	b = append(b, 0xfe)
	b = binary.BigEndian.AppendUint32(b, 0xdeadbeef)
	b = binary.BigEndian.AppendUint64(b, 0x0123456789abcdef)
	b = binary.AppendUvarint(b, 2) // a count of two 1-byte elements
	b = append(b, 'x', 'y')
	r := plain.NewReader(b)
	got := []any{r.Uvarint(), r.Varint(), r.Text(), string(r.Bytes(r.Uvarint())), r.Byte(), r.Uint32(), r.Uint64(), r.Count(1), string(r.Bytes(2))}
	want := []any{uint64(1<<63 + 5), int64(-7), "table", "\x00\x01\x02", byte(0xfe), uint32(0xdeadbeef), uint64(0x0123456789abcdef), 2, "xy"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %v, want %v", i, got[i], want[i])
		}
	}
	if r.Err() != nil || r.Len() != 0 {
		t.Errorf("after every field: %v, %d bytes left", r.Err(), r.Len())
	}
}

// TestReaderSticky: the first failure is kept, whatever fails after it,
// and every read after it returns zero.
func TestReaderSticky(t *testing.T) {
	overflow := bytes.Repeat([]byte{0xff}, 11)
	tests := []struct {
		name      string
		in        []byte
		fail      func(*Reader)
		truncated bool
	}{
		{"varint cut", []byte{0x80}, func(r *Reader) { r.Uvarint() }, true},
		{"signed varint cut", []byte{0x80}, func(r *Reader) { r.Varint() }, true},
		{"varint overflow", overflow, func(r *Reader) { r.Uvarint() }, false},
		{"bytes past the end", []byte{1, 2}, func(r *Reader) { r.Bytes(3) }, true},
		{"string past the end", []byte{5, 'a'}, func(r *Reader) { r.Text() }, true},
		{"byte past the end", nil, func(r *Reader) { r.Byte() }, true},
		{"fixed past the end", []byte{1, 2, 3}, func(r *Reader) { r.Uint32() }, true},
		{"count beyond the input", []byte{3, 1, 2}, func(r *Reader) { r.Count(1) }, false},
		{"the decoder's own", []byte{1, 2, 3}, func(r *Reader) { r.Failf("field %d: %w", 7, errVersion) }, false},
	}
	for _, tc := range tests {
		r := plain.NewReader(tc.in)
		tc.fail(&r)
		first := r.Err()
		if first == nil || !errors.Is(first, errCorrupt) || errors.Is(first, ErrTruncated) != tc.truncated {
			t.Errorf("%s: %v: want an error wrapping the format's Corrupt, and ErrTruncated %v", tc.name, first, tc.truncated)
			continue
		}
		if got := []any{r.Uvarint(), r.Varint(), r.Text(), r.Bytes(0), r.Byte(), r.Uint32(), r.Uint64(), r.Count(1), r.Len()}; got[0] != uint64(0) || got[1] != int64(0) ||
			got[2] != "" || len(got[3].([]byte)) != 0 || got[4] != byte(0) || got[5] != uint32(0) || got[6] != uint64(0) || got[7] != 0 || got[8] != 0 {
			t.Errorf("%s: reads after the failure: %v, want zeros", tc.name, got)
		}
		r.Failf("another")
		if r.Err() != first {
			t.Errorf("%s: the first error %v was replaced by %v", tc.name, first, r.Err())
		}
	}
}

// TestUnreadDiscard: a hot loop that reads off Unread and hands back with
// Discard leaves the Reader where the loop stopped.
func TestUnreadDiscard(t *testing.T) {
	r := plain.NewReader([]byte{1, 2, 3, 4})
	r.Byte()
	if u := r.Unread(); !bytes.Equal(u, []byte{2, 3, 4}) || r.Len() != 3 {
		t.Fatalf("Unread %v, Len %d", u, r.Len())
	}
	r.Discard(2)
	if c := r.Byte(); c != 4 || r.Err() != nil || r.Len() != 0 {
		t.Errorf("after Discard(2): %d, %v, %d left", c, r.Err(), r.Len())
	}
}
