package sketch

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// FuzzUnmarshalBinary feeds arbitrary bytes to UnmarshalBinary, as they
// are and with a valid checksum put on them (so that the fuzzer gets past
// the checksum to the parser). A rejected input must leave the receiver as
// it was and usable; an accepted one must re-encode to a summary with the
// same content and behave.
func FuzzUnmarshalBinary(f *testing.F) {
	seeds := [][]byte{}
	for _, s := range fuzzSeedSummaries(f) {
		b, err := s.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b, b[:len(b)/2], b[:len(b)-1])
		for _, i := range []int{0, 1, 5, len(b) / 3, len(b) - 5} {
			flipped := bytes.Clone(b)
			flipped[i] ^= 0x40
			seeds = append(seeds, flipped, seal(flipped[:len(flipped)-4]))
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(unmarshalAny)
}

func unmarshalAny(t *testing.T, data []byte) {
	inputs := [][]byte{data}
	if len(data) >= 5 {
		inputs = append(inputs, seal(bytes.Clone(data[:len(data)-4])))
	}
	for _, in := range inputs {
		s := small(t)
		before := roundTrip(t, s)
		if err := s.UnmarshalBinary(in); err != nil {
			if !isErr(err, ErrCorrupt) && !isErr(err, ErrVersion) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			if err := sameContent(s, before); err != nil {
				t.Fatalf("rejected input changed the receiver: %v", err)
			}
			s.Add([]byte("after"), 1, 0, 0)
			roundTrip(t, s)
			continue
		}
		d := roundTrip(t, s)
		for _, e := range s.Top(s.Config().Counters) {
			if e.Lower > e.Upper || e.Peak > e.Upper {
				t.Fatalf("decoded entry %+v: bounds out of order", e)
			}
		}
		s.Distinct()
		s.Add([]byte("after"), 3, 1, 1)
		if err := s.Merge(d); err != nil && !isErr(err, ErrOverflow) {
			t.Fatal(err)
		}
		roundTrip(t, s)
	}
}

// fuzzSeedSummaries are the golden summaries, every shape the encoding
// takes, in a fixed order.
func fuzzSeedSummaries(f *testing.F) []*Summary {
	shapes := goldenSummaries(f)
	var out []*Summary
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		out = append(out, shapes[name])
	}
	return out
}

// FuzzSummaryOracle reads a stream of records out of the fuzzer's bytes,
// splits it between two small summaries (3 counters, a 4×2 count-min, so
// that keys collide and evict all the time), sends one through an
// encoding, merges, and checks every guarantee against the exact answer.
func FuzzSummaryOracle(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 2, 0, 2, 3, 1, 0, 200, 2})
	f.Add(bytes.Repeat([]byte{1, 9, 4, 2, 9, 5, 3, 9, 6, 4, 9, 7, 5, 1, 8}, 20))
	f.Add([]byte{7, 255, 255, 7, 255, 254, 7, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const nkeys = 12
		cfg := Config{Counters: 3, Width: 4, Depth: 2}
		parts := [2]*Summary{}
		for i := range parts {
			parts[i], _ = NewSummary(cfg)
		}
		var weight, peak [nkeys]uint64
		var items [nkeys]map[uint64]bool
		perTick := map[[2]int64]uint64{}
		var total uint64
		key := func(k int) []byte { return fmt.Appendf(nil, "k%d", k) }
		for i := 0; i+2 < len(data); i += 3 {
			k, w, ctl := int(data[i])%nkeys, uint64(data[i+1]), data[i+2]
			tick, item := int64(ctl&7), uint64(ctl>>4&3)
			parts[ctl>>3&1].Add(key(k), w, tick, item)
			total += w
			weight[k] += w
			perTick[[2]int64{int64(k), tick}] += w
			peak[k] = max(peak[k], perTick[[2]int64{int64(k), tick}])
			if item != 0 {
				if items[k] == nil {
					items[k] = map[uint64]bool{}
				}
				items[k][item] = true
			}
		}
		if len(data)%2 == 0 {
			parts[1] = roundTrip(t, parts[1])
		}
		if err := parts[0].Merge(parts[1]); err != nil {
			t.Fatal(err)
		}
		s := roundTrip(t, parts[0])
		kc := uint64(cfg.Counters)
		if s.Total() != total {
			t.Fatalf("Total %d, want %d", s.Total(), total)
		}
		tracked := map[string]Entry{}
		for _, e := range s.Top(cfg.Counters) {
			tracked[string(e.Key)] = e
		}
		for k := range nkeys {
			lo, hi := s.Estimate(key(k))
			e, ok := tracked[string(key(k))]
			switch {
			case lo > weight[k] || weight[k] > hi:
				t.Fatalf("key %d: Estimate [%d, %d], true %d", k, lo, hi, weight[k])
			case !ok && weight[k]*kc > total:
				t.Fatalf("key %d of weight %d > W/k = %d/%d is missing", k, weight[k], total, kc)
			case !ok && hi*kc > total:
				t.Fatalf("untracked key %d: upper %d > W/k = %d/%d", k, hi, total, kc)
			case !ok:
			case e.Lower > weight[k] || weight[k] > e.Upper || (e.Upper-e.Lower)*kc > total:
				t.Fatalf("key %d: [%d, %d], true %d, W/k = %d/%d", k, e.Lower, e.Upper, weight[k], total, kc)
			case e.Peak > peak[k]:
				t.Fatalf("key %d: Peak %d, true %d", k, e.Peak, peak[k])
			case (e.Item != 0 && !items[k][e.Item]) || (e.ManyItems && len(items[k]) < 2):
				t.Fatalf("key %d: item %d, many %v; items seen %v", k, e.Item, e.ManyItems, items[k])
			}
		}
	})
}
