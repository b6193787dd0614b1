package history

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// dayShards and dayWindows are the scale docs/performance.md ("History
// merge") measures: 24 h of 60-s windows from 16 stream shards, 23,040
// summaries.
const (
	dayShards  = 16
	dayWindows = 24 * 60
)

// variants are stored summaries as the Lambda writes them: 10 top keys and
// a flagged one with its diagnosis, and a dense HyperLogLog of 20,000 keys
// (the costliest to decode and merge). 64 of them, distinct, stand in for
// the day's 23,040, so that the input does not weigh on the measured
// memory; each use gets its own shard and window.
func variants(b testing.TB) [][]byte {
	var out [][]byte
	for v := range 64 {
		sum, err := sketch.NewSummary(sketch.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		for i := range 20000 {
			sum.Add(fmt.Appendf(nil, "USER#%d-%d", v, i), 1, 0, 0)
		}
		hll, err := sum.AppendDistinct(nil)
		if err != nil {
			b.Fatal(err)
		}
		rep := report.Report{Window: report.Window{Table: "Orders", Start: t0, End: t0.Add(time.Minute)}, Totals: report.Totals{Records: 30000, WCU: 40000}, DistinctKeys: 20000, OtherKeysWCUUpper: 40}
		for k := range 10 {
			rep.TopKeys = append(rep.TopKeys, report.KeyReport{KeyFigures: report.KeyFigures{Key: fmt.Sprintf("KEY#%d", (v*7+k)%200), Type: "S", WCULower: uint64(3000 - 200*k), WCUUpper: uint64(3000 - 200*k + 30), PeakWCUPerSecond: 90}})
		}
		rep.HotKeys = []report.KeyReport{{
			KeyFigures: report.KeyFigures{Key: "DATE#2026-11-22", Type: "S", WCULower: 9000, WCUUpper: 9000, PeakWCUPerSecond: 850, Severity: report.Critical, Pattern: report.PatternTimeBucket, Diagnosis: string(make([]byte, 300))},
		}}
		rep.Shards = []report.ShardReport{{Shard: "s", Records: 30000, WCU: 40000, PeakWCUPerSecond: 900}}
		enc, err := FromReport(rep, "s", hll).MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, enc)
	}
	return out
}

// BenchmarkMergeDay decodes and merges a day of 16 shards' 1-minute
// summaries into steps, as `hotkeys history` does; decode-only is the
// baseline of the same run. heap-MB is the heap in use once every step is
// reported.
func BenchmarkMergeDay(b *testing.B) {
	encs := variants(b)
	feed := func(b *testing.B, add func(*Summary) error) {
		for w := range dayWindows {
			start := t0.Add(time.Duration(w) * time.Minute)
			for sh := range dayShards {
				var s Summary
				if err := s.UnmarshalBinary(encs[(w*dayShards+sh)%len(encs)]); err != nil {
					b.Fatal(err)
				}
				s.Start, s.End = start, start.Add(time.Minute)
				s.Shard = fmt.Sprintf("shardId-%02d", sh)
				s.Shards[0].Shard = s.Shard
				if err := add(&s); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("decode-only", func(b *testing.B) {
		for b.Loop() {
			feed(b, func(*Summary) error { return nil })
		}
	})
	for _, step := range []time.Duration{time.Minute, time.Hour} {
		b.Run("step="+step.String(), func(b *testing.B) {
			var heap uint64
			for b.Loop() {
				m, err := NewMerger("Orders", "", step, 10)
				if err != nil {
					b.Fatal(err)
				}
				feed(b, m.Add)
				reps := m.Reports()
				if want := int(24 * time.Hour / step); len(reps) != want {
					b.Fatalf("%d reports, want %d", len(reps), want)
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = max(heap, ms.HeapInuse)
				runtime.KeepAlive(m)
			}
			b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
			b.ReportMetric(dayShards*dayWindows, "summaries/op")
		})
	}
}

// BenchmarkMarshalBinary encodes one stored summary, as the Lambda does for
// each closed window (10 top keys, a flagged one, a dense HyperLogLog).
func BenchmarkMarshalBinary(b *testing.B) {
	var s Summary
	if err := s.UnmarshalBinary(variants(b)[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshalBinary decodes it, as `hotkeys history` does for each
// item it reads.
func BenchmarkUnmarshalBinary(b *testing.B) {
	enc := variants(b)[0]
	b.ReportAllocs()
	for b.Loop() {
		var s Summary
		if err := s.UnmarshalBinary(enc); err != nil {
			b.Fatal(err)
		}
	}
}
