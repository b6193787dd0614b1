package record_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// pipeline runs the whole path from raw bytes to findings, as the Lambda
// and replay do: decode, size, window, sketch, judge.
//
// dec is reused, as a warm Lambda container reuses its decoder; the
// detector and its windows are new, as every window is.
func pipeline(tb testing.TB, dec *record.Decoder, payload []byte) []detector.Report {
	d, err := detector.New(detector.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	err = dec.Decode(payload, record.Visitor{Record: func(r *record.Record) error {
		if r.Time.IsZero() {
			r.Time = time.Unix(1795341600, 0)
		}
		if err := d.Add(r); err != nil {
			tb.Fatal(err)
		}
		return nil
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return d.FlushAll()
}

// BenchmarkPipeline is README's measure of speed: the 10,000-record batch from raw
// bytes to findings. Compare with BenchmarkBaselineEventsDynamoDBEvent,
// which only decodes and counts.
func BenchmarkPipeline(b *testing.B) {
	payload := record.BenchBatch()
	dec := newDecoder(b)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	defer record.ReportCPU(b, len(payload))()
	for b.Loop() {
		if reps := pipeline(b, dec, payload); len(reps) == 0 || reps[0].Records == 0 {
			b.Fatal("no findings")
		}
	}
}

// benchIndexes are three GSIs over the benchmark batch's entities, one of
// each projection: log lines by level, users by name, counters by time.
var benchIndexes = []record.Index{
	{Name: "byLevel", PartitionKey: "level", SortKey: "ttl", Projection: record.ProjectInclude, NonKeyAttributes: []string{"msg"}},
	{Name: "byName", PartitionKey: "name", Projection: record.ProjectKeysOnly},
	{Name: "byUpdated", PartitionKey: "updated", SortKey: "sk", Projection: record.ProjectAll},
}

// BenchmarkPipelineIndexes is README's speed measure for indexes: the
// pipeline on the benchmark batch without indexes and with three GSIs, in
// one run, so that the ratio is measured on the same machine state. The
// goal is three GSIs at most 1.3 times the time without.
func BenchmarkPipelineIndexes(b *testing.B) {
	payload := record.BenchBatch()
	for _, bc := range []struct {
		name    string
		indexes []record.Index
	}{{"none", nil}, {"three", benchIndexes}} {
		b.Run(bc.name, func(b *testing.B) {
			dec, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: bc.indexes})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			defer record.ReportCPU(b, len(payload))()
			for b.Loop() {
				indexed := map[string]bool{}
				for _, r := range pipeline(b, dec, payload) {
					indexed[r.Index] = true
				}
				if len(indexed) != 1+len(bc.indexes) {
					b.Fatalf("reports for %v", indexed)
				}
			}
		})
	}
}

// TestPipelinePeakHeap bounds the heap one batch needs: the payload plus
// everything allocated while analysing it must stay under 3× the payload,
// cold (first batch of a process, nothing reused). Allocation is an upper
// bound on what can be live at once, so this bounds the peak heap.
func TestPipelinePeakHeap(t *testing.T) {
	payload := record.BenchBatch()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	reps := pipeline(t, newDecoder(t), payload)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if peak := uint64(len(payload)) + allocated; peak > 3*uint64(len(payload)) {
		t.Errorf("payload %d B + %d B allocated = %.2f× the payload, want ≤ 3×", len(payload), allocated, float64(peak)/float64(len(payload)))
	}
	t.Logf("payload %d B, allocated while analysing %d B (%.2f× the payload)", len(payload), allocated, float64(allocated)/float64(len(payload)))
	var n uint64
	for _, r := range reps {
		n += r.Records
	}
	if n != 10000 {
		t.Fatalf("reports %+v", reps)
	}
}

func newDecoder(tb testing.TB) *record.Decoder {
	dec, err := record.NewDecoder(record.Config{PartitionKey: "pk"})
	if err != nil {
		tb.Fatal(err)
	}
	return dec
}

// BenchmarkDecodeIndexes is BenchmarkPipelineIndexes without the detector:
// what the decoder's index analysis costs by itself.
func BenchmarkDecodeIndexes(b *testing.B) {
	payload := record.BenchBatch()
	for _, bc := range []struct {
		name    string
		indexes []record.Index
	}{{"none", nil}, {"three", benchIndexes}} {
		b.Run(bc.name, func(b *testing.B) {
			dec, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: bc.indexes})
			if err != nil {
				b.Fatal(err)
			}
			var wcu uint64
			v := record.Visitor{Record: func(r *record.Record) error {
				wcu += r.WCU
				for k := range r.Indexes {
					wcu += r.Indexes[k].WCU
				}
				return nil
			}}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			defer record.ReportCPU(b, len(payload))()
			for b.Loop() {
				if err := dec.Decode(payload, v); err != nil {
					b.Fatal(err)
				}
			}
			if wcu == 0 {
				b.Fatal("no WCU")
			}
		})
	}
}
