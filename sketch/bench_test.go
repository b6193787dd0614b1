package sketch

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// benchRecords is a cycle of (key index, weight) pairs: over a million keys
// drawn Zipf (s = 1.1, a realistic heavy tail) or uniformly (most records
// then come from keys outside the table, many taking a counter), and over
// 2,000 keys drawn uniformly (keys outside the table keep coming back: the
// sparse HyperLogLog's worst case, until it turns dense).
var benchRecords = sync.OnceValue(func() map[string][]rec {
	const n, universe = 1 << 20, 1_000_000
	r := rand.New(rand.NewPCG(3, 3))
	z := newZipf(universe, 1.1, r)
	out := map[string][]rec{"zipf": make([]rec, n), "uniform": make([]rec, n), "uniform2k": make([]rec, n)}
	for i := range n {
		w := 1 + uint64(r.IntN(400))
		out["zipf"][i] = rec{key: z.draw(r), weight: w}
		out["uniform"][i] = rec{key: int32(r.IntN(universe)), weight: w}
		out["uniform2k"][i] = rec{key: int32(r.IntN(2000)), weight: w}
	}
	return out
})

// BenchmarkAdd measures one Add of the whole summary in steady state. The
// key is written into one buffer, as a decoder hands it over, so that the
// figure is the sketch's and not the cache misses of a million test keys.
func BenchmarkAdd(b *testing.B) {
	for _, dist := range []string{"zipf", "uniform", "uniform2k"} {
		for _, size := range []int{16, 64} {
			b.Run(fmt.Sprintf("%s/%dB", dist, size), func(b *testing.B) {
				recs := benchRecords()[dist]
				key := []byte("USER#0123456789abcdef0123456789abcdef0123456789abcdef0123456789a")[:size]
				s, _ := NewSummary(DefaultConfig())
				add := func(i int) {
					r := &recs[i&(len(recs)-1)]
					binary.BigEndian.PutUint32(key[size-4:], uint32(r.key))
					s.Add(key, r.weight, int64(i>>10), uint64(r.key&7))
				}
				for i := range len(recs) {
					add(i)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					add(i)
					i++
				}
			})
		}
	}
}

// BenchmarkMerge merges two summaries of a million distinct keys each,
// with different heavy hitters.
func BenchmarkMerge(b *testing.B) {
	src := millionMix()
	enc, _ := million().MarshalBinary()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		var dst Summary
		if err := dst.UnmarshalBinary(enc); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := dst.Merge(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalBinary encodes a summary of a million distinct 64-byte
// keys (the size budget's worst case) and reports its size.
func BenchmarkMarshalBinary(b *testing.B) {
	s := million()
	buf, _ := s.MarshalBinary()
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = s.AppendBinary(buf[:0])
	}
	// After the loop: its start resets user metrics.
	b.ReportMetric(float64(len(buf)), "bytes")
}

func BenchmarkUnmarshalBinary(b *testing.B) {
	buf, _ := million().MarshalBinary()
	b.ReportAllocs()
	for b.Loop() {
		var s Summary
		if err := s.UnmarshalBinary(buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}

// BenchmarkDistinct is the HyperLogLog estimate, once per window.
func BenchmarkDistinct(b *testing.B) {
	s := million()
	for b.Loop() {
		s.Distinct()
	}
}

// BenchmarkTop lists every tracked key with tightened bounds, once per
// window.
func BenchmarkTop(b *testing.B) {
	s := million()
	b.ReportAllocs()
	for b.Loop() {
		s.Top(s.Config().Counters)
	}
}
