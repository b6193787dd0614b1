package main

import (
	"testing"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

func TestSeqAfter(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"2", "1", true},
		{"1", "2", false},
		{"5", "5", false},
		{"10", "9", true},  // longer is larger
		{"9", "10", false}, //
		{"400000001000000299735", "400000001000000299734", true},
		{"400000001000000299734", "400000001000000299735", false},
		{"1000000000000000000000000000000000000001", "999999999999999999999999999999999999999", true}, // 40 digits: beyond uint64
		{"999999999999999999999999999999999999999", "1000000000000000000000000000000000000001", false},
	} {
		if got := seqAfter([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("seqAfter(%s, %s) = %t", tc.a, tc.b, got)
		}
	}
}

// TestRecentIDs: an id is seen once; the ring forgets the oldest when full,
// and only the oldest.
func TestRecentIDs(t *testing.T) {
	const n = 4
	r := newRecentIDs(n)
	for i := range uint64(n) {
		if r.seen(sketch.Hash([]byte{byte(i)})) {
			t.Fatalf("id %d seen before it was added", i)
		}
	}
	for i := range uint64(n) {
		if !r.seen(sketch.Hash([]byte{byte(i)})) {
			t.Fatalf("id %d forgotten while the ring holds %d", i, n)
		}
	}
	// A fifth id evicts the first; the other three are still known.
	if r.seen(sketch.Hash([]byte{9})) {
		t.Fatal("new id reported as seen")
	}
	if !r.seen(sketch.Hash([]byte{1})) || !r.seen(sketch.Hash([]byte{3})) || !r.seen(sketch.Hash([]byte{9})) {
		t.Error("a recent id was forgotten")
	}
	if r.seen(sketch.Hash([]byte{0})) {
		t.Error("the oldest id is still remembered after the ring wrapped")
	}
	if len(r.set) != n || len(r.ring) != n {
		t.Errorf("ring holds %d ids, set %d; want %d", len(r.ring), len(r.set), n)
	}
}
