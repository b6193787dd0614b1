package sketch

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// TestIndexTagCollision: the index keeps only the low 32 bits of a key's
// hash, so two keys can share a tag (and a home bucket). They must still
// be told apart: each found as itself, with its own count, also after the
// other is evicted and comes back.
func TestIndexTagCollision(t *testing.T) {
	// Two keys whose hashes agree in their low 32 bits: a birthday search.
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		k := fmt.Sprintf("key-%d", i)
		h := Hash([]byte(k))
		if o, ok := seen[uint32(h)]; ok && Hash([]byte(o)) != h {
			a, b = o, k
		}
		seen[uint32(h)] = k
	}
	ha, hb := Hash([]byte(a)), Hash([]byte(b))
	h, _ := NewHeavyHitters(2)
	h.Add([]byte(a), ha, 5, 1, 0)
	if h.find(hb, []byte(b)) >= 0 {
		t.Fatalf("%q found while only %q is tracked", b, a)
	}
	h.Add([]byte(b), hb, 3, 1, 0)
	h.Add([]byte("other"), Hash([]byte("other")), 1, 1, 0) // evicts b (3), takes 4
	h.Add([]byte(b), hb, 7, 1, 0)                          // evicts other (4), takes 11
	for _, want := range []struct {
		key          string
		lower, upper uint64
	}{{a, 5, 5}, {b, 7, 11}} {
		e, ok := h.Lookup([]byte(want.key), Hash([]byte(want.key)))
		if !ok || e.Lower != want.lower || e.Upper != want.upper {
			t.Errorf("Lookup(%q) = %+v, %v; want [%d, %d]", want.key, e, ok, want.lower, want.upper)
		}
	}
	if err := h.invariants(); err != nil {
		t.Error(err)
	}
}

// TestSlotLayout: a slot is 128 bytes, the fields an Add of a tracked key
// touches in its first 64, the key (up to slotKey bytes) in the rest; see
// slot.
func TestSlotLayout(t *testing.T) {
	var sl slot
	if size := unsafe.Sizeof(sl); size != 128 {
		t.Errorf("slot is %d bytes, want 128", size)
	}
	for name, end := range map[string]uintptr{
		"key":        unsafe.Offsetof(sl.key) + unsafe.Sizeof(sl.key),
		"hash":       unsafe.Offsetof(sl.hash) + unsafe.Sizeof(sl.hash),
		"lastTick":   unsafe.Offsetof(sl.lastTick) + unsafe.Sizeof(sl.lastTick),
		"tickWeight": unsafe.Offsetof(sl.tickWeight) + unsafe.Sizeof(sl.tickWeight),
		"peak":       unsafe.Offsetof(sl.peak) + unsafe.Sizeof(sl.peak),
		"pos":        unsafe.Offsetof(sl.pos) + unsafe.Sizeof(sl.pos),
	} {
		if end > 64 {
			t.Errorf("slot.%s ends at byte %d, past the first cache line", name, end)
		}
	}
	if off := unsafe.Offsetof(sl.buf); off < 64 || off+slotKey > 128 {
		t.Errorf("slot.buf at %d, want within bytes 64-127", off)
	}
}

// TestSlotKeys: a key that fits is held in its slot, a longer one in the
// counter's own buffer, which keeps what it grew to; either way the slot's
// buf holds the key and zeros, or zeros, so that equal contents compare
// equal whatever keys the slot held before.
func TestSlotKeys(t *testing.T) {
	h, _ := NewHeavyHitters(1)
	h.setKey(0, []byte("short"))
	if h.extKey != nil {
		t.Fatal("a short key allocated the counters' key buffers")
	}
	long := bytes.Repeat([]byte("L"), 100)
	for _, key := range [][]byte{
		bytes.Repeat([]byte("a"), slotKey), []byte("b"), long, bytes.Repeat([]byte("c"), slotKey+1), []byte(""), long[:70],
	} {
		h.setKey(0, key)
		sl := &h.slots[0]
		if !bytes.Equal(sl.key, key) {
			t.Fatalf("setKey(%q): key %q", key, sl.key)
		}
		var want [slotKey]byte
		inSlot := len(key) <= slotKey
		if inSlot {
			copy(want[:], key)
		}
		if sl.buf != want {
			t.Errorf("setKey(%q): buf %q, want %q", key, sl.buf, want)
		}
		if at := unsafe.SliceData(sl.key) == &sl.buf[0]; len(key) > 0 && at != inSlot {
			t.Errorf("setKey(%q): key in the slot = %v, want %v", key, at, inSlot)
		}
	}
	if cap(h.extKey[0]) < len(long) {
		t.Errorf("the counter's buffer shrank to %d bytes after a %d-byte key", cap(h.extKey[0]), len(long))
	}
}
