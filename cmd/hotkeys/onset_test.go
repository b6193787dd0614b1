package main

import (
	"slices"
	"strings"
	"testing"
)

// TestDemoPrintsOnsets: the demo prints each onset, in order, with its
// second, in the first second of its minute (every hot key of the demo is
// hot from its minute's first second). TestDemoShowsEveryAntiPattern
// checks the throttled minute's key saturated.
func TestDemoPrintsOnsets(t *testing.T) {
	code, out, errs, _ := demo(t, false)
	if code != exitOK {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "▲ onset ") {
			got = append(got, l)
		}
	}
	// The demo is seeded: every run prints the same.
	want := []string{
		"▲ onset 2026-11-22 10:02:00 UTC  Shop  DATE#2026-11-22  982 WCU in that second  time_bucket",
		"▲ onset 2026-11-22 10:05:00 UTC  Shop  EVENTS#SHARD_0  921 WCU in that second  single_key",
		"▲ onset 2026-11-22 10:05:00 UTC  Shop  EVENTS#SHARD_1  889 WCU in that second  single_key",
		"▲ onset 2026-11-22 10:06:00 UTC  Shop  CART#checkout  1000 WCU in that second  single_key",
		"▲ onset 2026-11-22 10:07:00 UTC  Shop · index GSI1  OPS_LOG  988 WCU in that second  constant_key",
	}
	if !slices.Equal(got, want) {
		t.Errorf("onsets\n%s\nwant\n%s\noutput:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}

	// The throttled minute as a table: the key critical and saturated, its
	// shard count a lower bound, and its stream shard saturated too.
	for _, line := range []string{
		"  critical (saturated)  CART#checkout  single_key  60,000 [exact]  ███████████░░░░░░░░░   55.7%  1,000       ≤ 1.0×    ≥ 2",
		"! shardId-00000001763769600000-a1b2c3d4 saturated for 60 s: its partition's successful writes were pinned at the limit, so its writes were most likely throttled, whichever keys share it.",
	} {
		if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool { return strings.TrimRight(l, " ") == line }) {
			t.Errorf("the table output has no line\n%s", line)
		}
	}
}
