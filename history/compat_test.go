package history

import (
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// compatSummaries are a table's window and an index's, with no internal
// errors, whose encodings were written to testdata by the build before
// version 3 existed: version 1 and version 2. TestEncodingGolden checks
// that this build still writes and reads them byte for byte, so that
// builds from before read what this one writes.
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
			Totals: report.Totals{Records: 15000, TTLDeletes: 7, Malformed: 2, Late: 1, WCU: 15000, WCUIsLowerBound: true}, TerminatedEarly: true,
			DistinctKeys: 2900, Keys: keys, OtherKeysWCUUpper: 9,
			Shards: []report.ShardReport{{Shard: "shardId-00000001", Records: 15000, WCU: 15000, PeakWCUPerSecond: 400}}},
		"index-v2.hks": {Table: "Orders", Index: "GSI1", Shard: "shardId-00000001", Start: start, End: start.Add(time.Minute),
			Totals: report.Totals{Records: 1900, TTLDeletes: 3, WCU: 3720, TTLWCU: 9}, DistinctKeys: 40, Keys: keys[:2], OtherKeysWCUUpper: 2, Trimmed: true},
	}
}
