package keypattern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// benchKey is one record of a benchmark stream: a typed key and its hash,
// which the caller has computed for its own summary already.
type benchKey struct {
	key  []byte
	hash uint64
	wcu  uint64
}

// benchMix is a stream of 1<<16 records: "mix", a realistic mix of
// patterns; "pipeline", the mix of record's benchmark batch; or one end of
// the cache's range: "new_uuids", every key new (a table of users), or
// "enum", every key seen before.
func benchMix(name string) []benchKey {
	r := rand.New(rand.NewPCG(30, 30))
	const n = 1 << 16
	uuid := func(b []byte) []byte {
		const hexdig = "0123456789abcdef"
		for i := range 36 {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				b = append(b, '-')
			} else {
				b = append(b, hexdig[r.IntN(16)])
			}
		}
		return b
	}
	statuses := []string{"STATUS#ACTIVE", "STATUS#PENDING", "STATUS#CLOSED"}
	next := map[string]func(b []byte, i int) []byte{
		"mix": func(b []byte, _ int) []byte {
			switch x := r.IntN(100); {
			case x < 50:
				return uuid(append(b, "USER#"...))
			case x < 60:
				return append(b, "OPS_LOG"...)
			case x < 70:
				return append(b, statuses[r.IntN(3)]...)
			case x < 80:
				return append(b, "OPS_LOG#2026-06-22"...)
			case x < 90:
				return fmt.Appendf(b, "ORDER#2026-06-22T01:%02d:%02d.%03dZ", r.IntN(60), r.IntN(60), r.IntN(1000))
			default:
				return fmt.Appendf(b, "TENANT#tenant%d", r.IntN(500))
			}
		},
		// The key mix of record's benchmark batch (BenchmarkPipeline).
		"pipeline": func(b []byte, _ int) []byte {
			switch x := r.IntN(100); {
			case x < 20:
				return append(b, "STATUS#ACTIVE"...)
			case x < 30:
				return append(b, "OPS_LOG"...)
			case x < 35:
				return append(b, "DATE#2026-11-22"...)
			case x < 45:
				return fmt.Appendf(b, "COUNTER#SHARD_%d", r.IntN(4))
			default:
				return fmt.Appendf(b, "USER#%05x-é", r.IntN(3000))
			}
		},
		"new_uuids": func(b []byte, _ int) []byte { return uuid(append(b, "USER#"...)) },
		"enum":      func(b []byte, i int) []byte { return append(b, statuses[i%3]...) },
	}[name]
	out := make([]benchKey, n)
	for i := range out {
		k := next([]byte("S"), i)
		out[i] = benchKey{key: k, hash: sketch.Hash(k), wcu: 1 + uint64(r.IntN(3))}
	}
	return out
}

// BenchmarkAdd measures Add per record in steady state, the table having
// seen the stream once. The hash is the caller's (sketch.Hash of the key),
// computed beforehand as the caller's summary computes it anyway.
func BenchmarkAdd(b *testing.B) {
	for _, name := range []string{"mix", "pipeline", "new_uuids", "enum"} {
		b.Run(name, func(b *testing.B) { benchAdd(b, name, DefaultConfig()) })
	}
	// A cache of 1,024 keys, fewer than the 3,000 users of the mix.
	cfg := DefaultConfig()
	cfg.Cache = 1024
	b.Run("pipeline_cache1024", func(b *testing.B) { benchAdd(b, "pipeline", cfg) })
}

func benchAdd(b *testing.B, name string, cfg Config) {
	recs := benchMix(name)
	t, _ := New(cfg)
	for i, r := range recs {
		t.Add(r.key, r.hash, r.wcu, int64(1750550400+i>>10))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := &recs[i&(len(recs)-1)]
		t.Add(r.key, r.hash, r.wcu, int64(1750550400+i>>10))
		i++
	}
}

// BenchmarkSummaryAdd is the baseline, in the same run: what the Lambda
// already pays per record for the same keys, sketch.Summary.Add with
// sketch.DefaultConfig (which hashes the key itself).
func BenchmarkSummaryAdd(b *testing.B) {
	for _, name := range []string{"mix", "pipeline", "new_uuids", "enum"} {
		b.Run(name, func(b *testing.B) {
			recs := benchMix(name)
			s, _ := sketch.NewSummary(sketch.DefaultConfig())
			for i, r := range recs {
				s.Add(r.key, r.wcu, int64(1750550400+i>>10), 0)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := &recs[i&(len(recs)-1)]
				s.Add(r.key, r.wcu, int64(1750550400+i>>10), 0)
				i++
			}
		})
	}
}

// BenchmarkHash is what the caller pays for the hash Add takes, if its own
// summary does not hand it over: sketch.Hash of the same keys.
func BenchmarkHash(b *testing.B) {
	for _, name := range []string{"pipeline", "new_uuids"} {
		b.Run(name, func(b *testing.B) {
			recs := benchMix(name)
			var sum uint64
			i := 0
			for b.Loop() {
				sum += sketch.Hash(recs[i&(len(recs)-1)].key)
				i++
			}
			if sum == 1 {
				b.Log(sum)
			}
		})
	}
}
