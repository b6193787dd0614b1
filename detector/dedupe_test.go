package detector

import "testing"

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
	if r.Seen(nil) || r.Seen(nil) {
		t.Error("an empty id was seen")
	}
}
