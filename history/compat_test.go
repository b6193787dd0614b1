package history

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/report"
)

var update = flag.Bool("update", false, "rewrite testdata/*.hks from compatSummaries (only ever with the encoder of an earlier build)")

// compatSummaries are a table's window and an index's, with no internal
// errors, whose encodings were written to testdata by the build before
// version 3 existed: version 1 and version 2.
func compatSummaries() map[string]*Summary {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	keys := []report.KeyReport{
		{
			KeyFigures: report.KeyFigures{Key: "HOT", Type: "S", WCU: 9000, WCULower: 8990, WCUUpper: 9000, PeakWCUPerSecond: 150, Severity: report.Critical, Pattern: report.PatternSingleKey, RecommendedShards: 12, Diagnosis: "one key takes 60 % of the writes"},
		},
		{KeyFigures: report.KeyFigures{Key: "12", Type: "N", WCU: 40, WCULower: 31, WCUUpper: 40, PeakWCUPerSecond: 4}},
		{
			KeyFigures: report.KeyFigures{Key: "ORDER", Type: "S", WCU: 30, WCULower: 30, WCUUpper: 30, Severity: report.Warning, Pattern: report.PatternShardedTooFew},
			Shards:     []report.ShardedKeyPart{{Key: "ORDER#0", WCU: 20}, {Key: "ORDER#1", WCU: 10}},
		},
	}
	return map[string]*Summary{
		"table-v1.hks": {Table: "Orders", Shard: "shardId-00000001", Start: start, End: start.Add(time.Minute),
			Records: 15000, TTLDeletes: 7, Malformed: 2, Late: 1, WCU: 15000, WCUIsLowerBound: true, TerminatedEarly: true,
			DistinctKeys: 2900, Keys: keys, OtherKeysWCUUpper: 9,
			Shards: []report.ShardReport{{Shard: "shardId-00000001", Records: 15000, WCU: 15000, PeakWCUPerSecond: 400}}},
		"index-v2.hks": {Table: "Orders", Index: "GSI1", Shard: "shardId-00000001", Start: start, End: start.Add(time.Minute),
			Records: 1900, TTLDeletes: 3, WCU: 3720, TTLWCU: 9, DistinctKeys: 40, Keys: keys[:2], OtherKeysWCUUpper: 2, Trimmed: true},
	}
}

// TestEncodingCompatible: a table's window and an index's without internal
// errors still encode byte for byte as the build before version 3 wrote
// them (testdata), so builds from before read what this one writes; and
// those bytes still decode to the same summaries.
func TestEncodingCompatible(t *testing.T) {
	for name, s := range compatSummaries() {
		path := filepath.Join("testdata", name)
		got, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encoding changed:\n got %x\nwant %x", name, got, want)
		}
		var dec Summary
		if err := dec.UnmarshalBinary(want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(s, &dec); diff != "" {
			t.Errorf("%s: decoded (-want +got):\n%s", name, diff)
		}
	}
}
