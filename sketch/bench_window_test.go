package sketch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// windowAdd is one Add of a window's stream, its key already spelled out
// (with a type tag byte first, as the detector writes keys).
type windowAdd struct {
	key    []byte
	weight uint64
	tick   int64
	item   uint64
}

// indexStream mimics what one GSI's window of the benchmark batch in
// package record gets: adds per summary, most of them to a few hot keys
// (log levels, user names), the rest to timestamps out of 3,600 (each seen
// once or twice), with WCU 1-2, no item, ticks rising.
func indexStream(r *rand.Rand, n int) []windowAdd {
	hot := []string{"INFO", "WARN", "ERROR", "José", "Zoë", "Ana", "Jean-Luc", "Søren", "李", "O'Brien", `"Ace"`}
	out := make([]windowAdd, n)
	for i := range out {
		var key string
		if r.IntN(10) < 7 {
			// Skewed among the hot keys: the first ones take the most.
			key = hot[min(r.IntN(len(hot)), r.IntN(len(hot)))]
		} else {
			key = fmt.Sprintf("2026-11-22T10:%02d:%02dZ", r.IntN(60), r.IntN(60))
		}
		out[i] = windowAdd{key: append([]byte{'S'}, key...), weight: 1 + uint64(r.IntN(2)), tick: 1795341600 + int64(i/40)}
	}
	return out
}

// tableStream mimics the table's own window of that batch: single-table
// design keys, a few hot ones (a status, a log, a date, four counter
// shards) and 3,000 users, WCU 1-4, with item hashes.
func tableStream(r *rand.Rand, n int) []windowAdd {
	out := make([]windowAdd, n)
	for i := range out {
		var key string
		switch x := r.IntN(100); {
		case x < 10:
			key = "STATUS#ACTIVE"
		case x < 20:
			key = "OPS_LOG"
		case x < 35:
			key = "DATE#2026-11-22"
		case x < 45:
			key = fmt.Sprintf("COUNTER#SHARD_%d", r.IntN(4))
		default:
			key = fmt.Sprintf("USER#%05x-é", r.IntN(3000))
		}
		out[i] = windowAdd{key: append([]byte{'S'}, key...), weight: 1 + uint64(r.IntN(4)), tick: 1795341600 + int64(i/40), item: r.Uint64() | 1}
	}
	return out
}

// BenchmarkAddWindow measures Add as the detector makes it on the
// benchmark batch of package record: "index" is three index-sized
// summaries (detector.DefaultIndexSketch, {64, 256, 4}) taking 4,000 adds each in
// turns, "table" one DefaultConfig summary taking 10,000; each summary is
// Reset when its stream starts over, as a window is new. Reset is cheap
// beside the adds, and counted in.
//
// In the "streamed" variants (against "hot") every Add is preceded by a read of the next
// 640 bytes of a 16 MB buffer, as the decoder streams the batch's 6.3 MB
// payload (630 bytes a record) between two adds: the sketches' memory then
// comes from further down the cache hierarchy, as in the pipeline. The
// streaming costs both old and new code the same; differences between
// builds are the sketch's.
func BenchmarkAddWindow(b *testing.B) {
	indexCfg := Config{Counters: 64, Width: 256, Depth: 4} // detector.DefaultIndexSketch
	r := rand.New(rand.NewPCG(10, 10))
	workloads := []struct {
		name    string
		cfg     Config
		streams [][]windowAdd
	}{
		{"index", indexCfg, [][]windowAdd{indexStream(r, 4000), indexStream(r, 4000), indexStream(r, 4000)}},
		{"table", DefaultConfig(), [][]windowAdd{tableStream(r, 10000)}},
	}
	payload := make([]uint64, (16<<20/640)*80) // whole 640-byte reads
	for i := range payload {
		payload[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, w := range workloads {
		for _, streamed := range []bool{false, true} {
			name := w.name + "/hot"
			if streamed {
				name = w.name + "/streamed"
			}
			b.Run(name, func(b *testing.B) {
				// The adds in the order they are made, summaries in turns,
				// so that the loop costs no division.
				type step struct {
					s *Summary
					a *windowAdd
				}
				var steps []step
				sums := make([]*Summary, len(w.streams))
				for i := range sums {
					sums[i], _ = NewSummary(w.cfg)
				}
				for j := range w.streams[0] {
					for k, s := range sums {
						steps = append(steps, step{s, &w.streams[k][j]})
					}
				}
				var sink uint64
				at, i := 0, 0
				b.ReportAllocs()
				for b.Loop() {
					if i == 0 {
						for _, s := range sums {
							s.Reset()
						}
					}
					if streamed {
						for _, v := range payload[at : at+80] {
							sink += v
						}
						if at += 80; at == len(payload) {
							at = 0
						}
					}
					st := &steps[i]
					st.s.Add(st.a.key, st.a.weight, st.a.tick, st.a.item)
					if i++; i == len(steps) {
						i = 0
					}
				}
				if sink == 1 {
					b.Log(sink)
				}
			})
		}
	}
}
