package detector

import (
	"errors"
	"testing"
)

// TestRecentIDs: an id is seen once; the ring forgets the oldest when full,
// and only the oldest; an empty id is never seen.
func TestRecentIDs(t *testing.T) {
	const n = 4
	r := NewRecentIDs(n)
	id := func(i int) []byte { return []byte{byte(i)} }
	for i := range n {
		if r.Seen(id(i)) {
			t.Fatalf("id %d seen before it was added", i)
		}
	}
	for i := range n {
		if !r.Seen(id(i)) {
			t.Fatalf("id %d forgotten while the ring holds %d", i, n)
		}
	}
	// A fifth id evicts the first; the other three are still known.
	if r.Seen(id(9)) {
		t.Fatal("new id reported as seen")
	}
	if !r.Seen(id(1)) || !r.Seen(id(3)) || !r.Seen(id(9)) {
		t.Error("a recent id was forgotten")
	}
	if r.Seen(id(0)) {
		t.Error("the oldest id is still remembered after the ring wrapped")
	}
	if len(r.set) != n || len(r.ring) != n {
		t.Errorf("ring holds %d ids, set %d; want %d", len(r.ring), len(r.set), n)
	}
	r.Seen(nil)
	if r.Seen(nil) {
		t.Error("an empty id was seen")
	}
}

// TestRecentIDsCarried: what a window's state carries restores the same ids,
// oldest first, so the ring forgets in the same order.
func TestRecentIDsCarried(t *testing.T) {
	r := NewRecentIDs(3)
	for _, id := range []string{"a", "b", "c", "d"} { // "a" is forgotten
		r.Seen([]byte(id))
	}
	back := NewRecentIDs(3)
	if err := back.UnmarshalBinary(r.AppendBinary(nil)); err != nil {
		t.Fatal(err)
	}
	if back.Seen([]byte("e")) || !back.Seen([]byte("c")) || !back.Seen([]byte("d")) {
		t.Error("restored ids differ")
	}
	if back.Seen([]byte("b")) { // "e" pushed out the oldest, "b"
		t.Error("the oldest id outlived the ring")
	}
	if err := back.UnmarshalBinary([]byte{1, 2, 3}); !errors.Is(err, ErrRecentIDs) {
		t.Errorf("7 bytes: %v", err)
	}
}
