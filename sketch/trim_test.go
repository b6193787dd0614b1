package sketch

import (
	"fmt"
	"testing"
)

// checkTrimmed asserts the guarantees a trimmed summary keeps against the
// exact truth: every tracked key's bounds hold the true weight and are at
// most Floor apart, every untracked key weighs at most Floor, Estimate
// brackets every key, and the total is exact. It returns how many keys of
// the universe are untracked but were written, so that a caller can tell a
// vacuous check.
func checkTrimmed(t *testing.T, name string, s *Summary, u *universe, tr *truth) (untracked int) {
	t.Helper()
	if s.Total() != tr.total {
		t.Errorf("%s: Total = %d, want %d", name, s.Total(), tr.total)
	}
	floor := s.Floor()
	reported := map[int32]bool{}
	for _, e := range s.Top(s.Config().Counters) {
		ki, ok := u.index[string(e.Key)]
		if !ok {
			t.Fatalf("%s: Top reports unknown key %q", name, e.Key)
		}
		reported[ki] = true
		w := tr.weight[ki]
		if e.Lower > w || w > e.Upper || e.Upper-e.Lower > floor {
			t.Errorf("%s: key %q: bounds [%d, %d] (floor %d), true weight %d", name, e.Key, e.Lower, e.Upper, floor, w)
		}
	}
	for ki, w := range tr.weight {
		lo, hi := s.Estimate(u.keys[ki])
		if lo > w || w > hi {
			t.Errorf("%s: Estimate(%q) = [%d, %d], true %d", name, u.keys[ki], lo, hi, w)
		}
		if reported[int32(ki)] || w == 0 {
			continue
		}
		untracked++
		if w > floor {
			t.Errorf("%s: untracked key %q weighs %d > Floor %d", name, u.keys[ki], w, floor)
		}
	}
	return untracked
}

// TestTrimStaysHonest trims summaries hard, in the middle of their
// streams, and checks every guarantee against the exact counts: after the
// trim, after more records (dropped keys come back), after an encoding
// round trip, and after merging with another trimmed summary.
func TestTrimStaysHonest(t *testing.T) {
	u := newUniverse(5000, 7)
	cfg := Config{Counters: 64, Width: 256, Depth: 4}
	for _, keep := range []int{0, 1, 10, 40} {
		t.Run(fmt.Sprint("keep ", keep), func(t *testing.T) {
			stream := zipfStream(u, 60000, 1.1, uint64(keep)+3)
			half := len(stream) / 2
			s := build(t, cfg, u, stream[:half])
			if dropped := s.Trim(keep); dropped != cfg.Counters-keep {
				t.Fatalf("Trim(%d) dropped %d of %d", keep, dropped, cfg.Counters)
			}
			if got := len(s.Top(cfg.Counters)); got != keep {
				t.Fatalf("after Trim(%d), %d keys tracked", keep, got)
			}
			if checkTrimmed(t, "trimmed", s, u, newTruth(u, stream[:half])) == 0 {
				t.Fatal("no key left out: the check is vacuous")
			}
			for _, r := range stream[half:] {
				s.Add(u.keys[r.key], r.weight, r.tick, r.item)
			}
			all := newTruth(u, stream)
			checkTrimmed(t, "trimmed, then more records", s, u, all)
			d := roundTrip(t, s)
			if err := sameContent(s, d); err != nil {
				t.Fatalf("round trip of a trimmed summary: %v", err)
			}
			if d.Floor() != s.Floor() || s.Floor() == 0 {
				t.Fatalf("Floor %d after the round trip, %d before", d.Floor(), s.Floor())
			}
			checkTrimmed(t, "decoded", d, u, all)

			// Another summary of other records, trimmed too, merged in.
			other := zipfStream(u, 20000, 0.9, uint64(keep)+99)
			o := build(t, cfg, u, other)
			o.Trim(keep / 2)
			if err := d.Merge(o); err != nil {
				t.Fatal(err)
			}
			checkTrimmed(t, "merged", d, u, newTruth(u, append(append([]rec(nil), stream...), other...)))
		})
	}
}

// TestUntrimmedEncodingUnchanged: a summary never trimmed still encodes as
// version 1, so stored summaries and the testdata stay as they were.
func TestUntrimmedEncodingUnchanged(t *testing.T) {
	u := newUniverse(100, 1)
	s := build(t, DefaultConfig(), u, zipfStream(u, 1000, 1, 1))
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != encodingVersion {
		t.Fatalf("version %d, want %d", b[0], encodingVersion)
	}
	s.Trim(5)
	if b, _ = s.MarshalBinary(); b[0] != encodingVersionTrimmed {
		t.Fatalf("trimmed: version %d, want %d", b[0], encodingVersionTrimmed)
	}
}
