package frame

import (
	"encoding/binary"
	"fmt"
)

// Reader reads the fields of a body. It is sticky: the first failure is
// kept (Err), the input is dropped, and every read after it returns zero,
// so a decoder reads a run of fields and checks once. A Reader is made by
// Format.Open or Format.NewReader.
type Reader struct {
	b   []byte
	err error
	f   *Format
}

// Err returns the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Len returns the number of unread bytes.
func (r *Reader) Len() int { return len(r.b) }

// Unread returns the unread bytes, which stay unread until Discard: for a
// hot loop that decodes a run of varints itself (binary.Uvarint), off a
// slice in registers, where a call per field costs a quarter more.
func (r *Reader) Unread() []byte { return r.b }

// Discard reads n bytes (n ≤ Len) and drops them.
func (r *Reader) Discard(n int) { r.b = r.b[n:] }

// Failf records a failure of the decoder's own (a field out of range, an
// impossible state), unless one is already recorded: an error wrapping
// the format's Corrupt, and whatever format's verbs %w wrap.
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: "+format+": %w", append(append([]any{r.f.Name}, args...), r.f.Corrupt)...)
	}
	r.b = nil
}

func (r *Reader) truncated(want uint64) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: input ends %d bytes into a field of %d: %w: %w", r.f.Name, len(r.b), want, ErrTruncated, r.f.Corrupt)
	}
	r.b = nil
}

// badVarint records why a varint could not be read: n as
// binary.Uvarint returns it, 0 for input that ends within it.
func (r *Reader) badVarint(n int) {
	if n == 0 {
		if r.err == nil {
			r.err = fmt.Errorf("%s: input ends in a varint: %w: %w", r.f.Name, ErrTruncated, r.f.Corrupt)
		}
		r.b = nil
		return
	}
	r.Failf("varint overflows 64 bits")
}

// Uvarint reads an unsigned varint (binary.AppendUvarint).
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.badVarint(n)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Varint reads a signed varint (binary.AppendVarint).
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.badVarint(n)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Bytes reads the next n bytes. They are the input's, not a copy.
func (r *Reader) Bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.truncated(n)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// Text reads a string written by AppendString (or bytes by AppendBytes),
// as a copy.
func (r *Reader) Text() string {
	return string(r.Bytes(r.Uvarint()))
}

// Count reads a number of elements to follow, each at least min bytes long
// (min ≥ 1): more than the unread bytes could hold is corrupt, so that no
// allocation is sized by a number the input has not backed.
func (r *Reader) Count(min int) int {
	n := r.Uvarint()
	if n > uint64(len(r.b)/min) {
		r.Failf("%d elements of at least %d bytes in %d bytes", n, min, len(r.b))
		return 0
	}
	return int(n)
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.b) == 0 {
		r.truncated(1)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Uint32 reads 4 bytes, big-endian.
func (r *Reader) Uint32() uint32 {
	if b := r.Bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// Uint64 reads 8 bytes, big-endian.
func (r *Reader) Uint64() uint64 {
	if b := r.Bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}
