package record_test

import (
	"flag"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// pipeline runs the whole path from raw bytes to findings, as the Lambda
// and replay do: decode, size, window, sketch, judge.
//
// dec is reused, as a warm Lambda container reuses its decoder; the
// detector and its windows are new, as every window is.
func pipeline(tb testing.TB, dec *record.Decoder, payload []byte) []report.Report {
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

// BenchmarkPipeline is the measure of speed README's figures and
// docs/performance.md ("Whole pipeline") quote: the 10,000-record batch
// from raw bytes to findings. Compare with BenchmarkBaselineEventsDynamoDBEvent,
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
var benchIndexes = []ddb.Index{
	{Name: "byLevel", PartitionKey: "level", SortKey: "ttl", Projection: ddb.ProjectInclude, NonKeyAttributes: []string{"msg"}},
	{Name: "byName", PartitionKey: "name", Projection: ddb.ProjectKeysOnly},
	{Name: "byUpdated", PartitionKey: "updated", SortKey: "sk", Projection: ddb.ProjectAll},
}

// byAbsent indexes an attribute no item of the batch has: named in
// -pipeline-index-names, alone, it measures what index analysis costs
// before any index is written (docs/performance.md, "What each index costs").
var byAbsent = ddb.Index{Name: "byAbsent", PartitionKey: "absent", Projection: ddb.ProjectKeysOnly}

// BenchmarkPipelineIndexes is the speed measure for indexes of
// docs/performance.md ("With global secondary indexes"): the
// pipeline on the benchmark batch without indexes and with three GSIs.
// The goal is three GSIs at most 1.3 times the time without.
//
// Each iteration runs both, in turns (which one goes first alternates), so
// that both see the same machine: on a shared machine, load that comes and
// goes between two separate runs would skew their ratio. It reports each
// one's wall and CPU time per batch and their ratios; ns/op is the pair's.
func BenchmarkPipelineIndexes(b *testing.B) {
	payload := record.BenchBatch()
	decs := benchDecoders(b)
	benchPair(b, func(v int) {
		indexed := map[string]bool{}
		for _, r := range pipeline(b, decs[v], payload) {
			indexed[r.Index] = true
		}
		want := 1 // the table's reports, then one set per index written
		for _, ix := range decs[v].Indexes() {
			if ix.Name != byAbsent.Name {
				want++
			}
		}
		if len(indexed) != want || indexed[byAbsent.Name] {
			b.Fatalf("reports for %v", indexed)
		}
	})
}

// benchDecoders returns a decoder without indexes and one with
// benchIndexes (or those -pipeline-index-names names), for benchPair's two
// runs.
func benchDecoders(b testing.TB) [2]*record.Decoder {
	with := benchIndexes
	if *pipelineIndexNames != "" {
		with = nil
		known := append(slices.Clone(benchIndexes), byAbsent)
		for name := range strings.SplitSeq(*pipelineIndexNames, ",") {
			k := slices.IndexFunc(known, func(ix ddb.Index) bool { return ix.Name == name })
			if k < 0 {
				b.Fatalf("-pipeline-index-names: %q is not one of the benchmark's indexes (byLevel, byName, byUpdated, or byAbsent)", name)
			}
			with = append(with, known[k])
		}
	}
	var decs [2]*record.Decoder
	for v, indexes := range [2][]ddb.Index{nil, with} {
		dec, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: indexes})
		if err != nil {
			b.Fatal(err)
		}
		decs[v] = dec
	}
	return decs
}

var (
	pipelineRuns    = flag.Int("pipeline-runs", 0, "run the pipeline on the benchmark batch this many times (TestPipelineRuns)")
	pipelineIndexes = flag.Bool("pipeline-indexes", false, "with -pipeline-runs: with the three benchmark indexes")
	// What one index costs: BenchmarkPipelineIndexes (or TestPipelineRuns
	// with -pipeline-indexes) with one of them, or two.
	pipelineIndexNames = flag.String("pipeline-index-names", "", "only these of the benchmark indexes, comma-separated (byLevel, byName, byUpdated; byAbsent indexes an attribute no item has)")
)

// TestPipelineRuns runs the pipeline on the benchmark batch
// -pipeline-runs times, without indexes or with benchIndexes, when asked.
// It is docs/performance.md's instruction count: cachegrind's count for 4 runs minus
// its count for 1, divided by 3, is one batch's, without the setup:
//
//	go test -c -o record.test ./record
//	GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cachegrind-out-file=cg.1 ./record.test -test.run TestPipelineRuns -pipeline-runs=1 -pipeline-indexes
func TestPipelineRuns(t *testing.T) {
	if *pipelineRuns == 0 {
		t.Skip("only with -args -pipeline-runs=N [-pipeline-indexes]")
	}
	payload := record.BenchBatch()
	dec := benchDecoders(t)[0]
	if *pipelineIndexes {
		dec = benchDecoders(t)[1]
	}
	for range *pipelineRuns {
		if reps := pipeline(t, dec, payload); len(reps) == 0 {
			t.Fatal("no reports")
		}
	}
}

// benchPair runs run(0) (without indexes) and run(1) (with) in every
// iteration, in alternating order, and reports their times per batch and
// the ratios of the second to the first.
func benchPair(b *testing.B, run func(v int)) {
	b.ReportAllocs()
	var wall, cpu [2]time.Duration
	turn := 0
	for b.Loop() {
		for k := range 2 {
			v := (turn + k) % 2
			start, startCPU := time.Now(), record.CPUTime()
			run(v)
			wall[v] += time.Since(start)
			cpu[v] += record.CPUTime() - startCPU
		}
		turn++
	}
	n := float64(b.N)
	b.ReportMetric(wall[0].Seconds()*1e3/n, "none-ms")
	b.ReportMetric(wall[1].Seconds()*1e3/n, "indexed-ms")
	b.ReportMetric(wall[1].Seconds()/wall[0].Seconds(), "ratio")
	if cpu[0] > 0 {
		b.ReportMetric(cpu[0].Seconds()*1e3/n, "none-cpu-ms")
		b.ReportMetric(cpu[1].Seconds()*1e3/n, "indexed-cpu-ms")
		b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "cpu-ratio")
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
// what the decoder's index analysis costs by itself, measured the same way.
func BenchmarkDecodeIndexes(b *testing.B) {
	payload := record.BenchBatch()
	decs := benchDecoders(b)
	var wcu [2]uint64
	visitors := [2]record.Visitor{}
	for v := range visitors {
		visitors[v] = record.Visitor{Record: func(r *record.Record) error {
			wcu[v] += r.WCU
			for k := range r.Indexes {
				wcu[v] += r.Indexes[k].WCU
			}
			return nil
		}}
	}
	benchPair(b, func(v int) {
		if err := decs[v].Decode(payload, visitors[v]); err != nil {
			b.Fatal(err)
		}
	})
	if wcu[0] == 0 || wcu[1] <= wcu[0] {
		b.Fatalf("WCU without indexes %d, with %d", wcu[0], wcu[1])
	}
}
