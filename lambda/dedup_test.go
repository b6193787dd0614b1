package main

import (
	"testing"
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
