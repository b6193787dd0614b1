package record

import (
	"flag"
	"os"
	"testing"
	"time"
)

// BenchBatch is the 10,000-record NEW_AND_OLD_IMAGES benchmark batch (~6 MB),
// for the pipeline benchmark in package record_test.
func BenchBatch() []byte { return benchBatch() }

// CloneWrites is cloneWrites, for package record_test.
func CloneWrites(ws []IndexWrite) []IndexWrite { return cloneWrites(ws) }

// Touched is touched, for package record_test.
func Touched(ws []IndexWrite) []IndexWrite { return touched(ws) }

// CPUTime is cpuTime, for package record_test.
func CPUTime() time.Duration { return cpuTime() }

// ReportCPU is reportCPU, for package record_test.
func ReportCPU(b *testing.B, bytesPerOp int) func() { return reportCPU(b, bytesPerOp) }

var writeBatch = flag.String("write-batch", "", "write the benchmark batch to this file, for whole-process timing of `hotkeys replay`")

// TestWriteBenchBatch writes the benchmark batch when asked:
//
//	go test ./record -run TestWriteBenchBatch -args -write-batch=/tmp/batch.json
func TestWriteBenchBatch(t *testing.T) {
	if *writeBatch == "" {
		t.Skip("only with -args -write-batch=FILE")
	}
	if err := os.WriteFile(*writeBatch, benchBatch(), 0o644); err != nil {
		t.Fatal(err)
	}
}
