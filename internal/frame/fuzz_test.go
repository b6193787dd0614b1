package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

// model reads a body the plain way, with encoding/binary on a slice: the
// oracle of FuzzReader.
type model struct {
	b         []byte
	failed    bool
	truncated bool
}

func (m *model) fail(truncated bool) {
	if !m.failed {
		m.failed, m.truncated = true, truncated
	}
	m.b = nil
}

func (m *model) take(n uint64) []byte {
	if m.failed || n > uint64(len(m.b)) {
		m.fail(true)
		return nil
	}
	v := m.b[:n]
	m.b = m.b[n:]
	return v
}

func (m *model) uvarint() uint64 {
	if m.failed {
		return 0
	}
	v, n := binary.Uvarint(m.b)
	if n <= 0 {
		m.fail(n == 0)
		return 0
	}
	m.b = m.b[n:]
	return v
}

func (m *model) varint() int64 {
	if m.failed {
		return 0
	}
	v, n := binary.Varint(m.b)
	if n <= 0 {
		m.fail(n == 0)
		return 0
	}
	m.b = m.b[n:]
	return v
}

// FuzzReader runs a program of reads, the first bytes of the input, on
// the rest, with a Reader and with the model: they must agree on every
// value, on where the first failure is and whether it is a truncation, and
// on the bytes left; after the failure every read returns zero and the
// error stays the first.
func FuzzReader(f *testing.F) {
	var body []byte
	body = binary.AppendUvarint(body, 300)
	body = binary.AppendVarint(body, -3)
	body = AppendString(body, "shardId-1")
	body = binary.BigEndian.AppendUint32(body, 7)
	f.Add(append([]byte{5, 0, 1, 4, 5, 6}, body...))
	f.Add([]byte{3, 0, 0, 0, 0x80})
	f.Add(append([]byte{2, 0x37, 0x48}, bytes.Repeat([]byte{0xff}, 12)...))
	f.Add([]byte{4, 0x27, 0x08, 0x18, 0x02, 3, 1, 2, 3, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		k := min(int(data[0]), len(data)-1)
		prog, in := data[1:1+k], data[1+k:]
		r := plain.NewReader(in)
		m := model{b: in}
		var first error
		for i, op := range prog {
			arg := uint64(op >> 4)
			var got, want any
			switch op & 0xf % 9 {
			case 0:
				got, want = r.Uvarint(), m.uvarint()
			case 1:
				got, want = r.Varint(), m.varint()
			case 2:
				got, want = r.Byte(), byte(0)
				if b := m.take(1); b != nil {
					want = b[0]
				}
			case 3:
				got, want = string(r.Bytes(arg)), string(m.take(arg))
			case 4:
				got = r.Text()
				want = string(m.take(m.uvarint()))
			case 5:
				got, want = r.Uint32(), uint32(0)
				if b := m.take(4); b != nil {
					want = binary.BigEndian.Uint32(b)
				}
			case 6:
				got, want = r.Uint64(), uint64(0)
				if b := m.take(8); b != nil {
					want = binary.BigEndian.Uint64(b)
				}
			case 7:
				size := int(arg%4) + 1
				got = r.Count(size)
				n := m.uvarint()
				if !m.failed && n > uint64(len(m.b)/size) {
					m.fail(false)
				}
				want = 0
				if !m.failed {
					want = int(n)
				}
			case 8:
				// A hot loop: read ahead off Unread, then Discard.
				n := min(int(arg), r.Len())
				if u := r.Unread(); len(u) != len(m.b) || !bytes.Equal(u, m.b) {
					t.Fatalf("op %d: Unread %x, model %x", i, u, m.b)
				}
				r.Discard(n)
				m.take(uint64(n))
				got, want = r.Len(), len(m.b)
			}
			if got != want {
				t.Fatalf("op %d (%#x): got %v, want %v", i, op, got, want)
			}
			switch err := r.Err(); {
			case (err != nil) != m.failed:
				t.Fatalf("op %d (%#x): error %v, model failed %v", i, op, err, m.failed)
			case err != nil && (!errors.Is(err, errCorrupt) || errors.Is(err, ErrTruncated) != m.truncated):
				t.Fatalf("op %d (%#x): error %v: want it to wrap Corrupt, and ErrTruncated %v", i, op, err, m.truncated)
			case first != nil && err != first:
				t.Fatalf("op %d (%#x): the first error %v became %v", i, op, first, err)
			}
			first = r.Err()
			if r.Len() != len(m.b) {
				t.Fatalf("op %d (%#x): %d bytes left, model %d", i, op, r.Len(), len(m.b))
			}
		}
	})
}

// FuzzOpen: Open accepts exactly what has the magic, a known version, room
// for a checksum and the right checksum, and then returns the version and
// the body between them; every refusal wraps the format's Corrupt, or its
// Version for an unknown version (and then not Corrupt).
func FuzzOpen(f *testing.F) {
	f.Add(frameOf("hk", 1, []byte("body")))
	f.Add(frameOf("hk", 3, nil))
	f.Add(frameOf("hk", 4, []byte{1}))
	f.Add([]byte("hk"))
	f.Add([]byte("h"))
	f.Add([]byte(`{"json": true}`))
	table := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, r, err := magic.Open(data)
		good := len(data) >= 7 && string(data[:2]) == "hk" && data[2] >= 1 && data[2] <= 3 &&
			crc32.Checksum(data[:len(data)-4], table) == binary.BigEndian.Uint32(data[len(data)-4:])
		unknown := len(data) >= 3 && string(data[:2]) == "hk" && (data[2] < 1 || data[2] > 3)
		switch {
		case good != (err == nil):
			t.Fatalf("Open(%x) = %v; want accepted %v", data, err, good)
		case unknown && (!errors.Is(err, errVersion) || errors.Is(err, errCorrupt)):
			t.Fatalf("Open(%x) = %v; want the format's Version error alone", data, err)
		case err != nil && !unknown && (!errors.Is(err, errCorrupt) || errors.Is(err, errVersion)):
			t.Fatalf("Open(%x) = %v; want the format's Corrupt error", data, err)
		case err != nil:
			return
		}
		body := r.Bytes(uint64(r.Len()))
		again := AppendChecksum(append(magic.AppendHeader(nil, v), body...), 0)
		if !bytes.Equal(again, data) {
			t.Fatalf("Open(%x) = version %d, body %x, which frame to %x", data, v, body, again)
		}
	})
}
