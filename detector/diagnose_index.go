package detector

import (
	"fmt"

	"github.com/hotkeys-dev/hotkeys/report"
)

// classifyIndexKey picks the pattern of a hot global secondary index key.
// An index key is an attribute value, not an item's identity: what matters
// is whether it is a time bucket, an enumerated value (a status), or a
// constant written on every item.
func classifyIndexKey(text string, isString bool) report.Pattern {
	if timeBucketRE.MatchString(text) || (isString && timeWordRE.MatchString(text)) {
		return report.PatternTimeBucket
	}
	if isString && lowCardinalityRE.MatchString(text) {
		return report.PatternLowCardinality
	}
	return report.PatternConstantKey
}

// backPressure is what makes a hot index worse than a hot table: DynamoDB
// throttles the table's writes behind it.
const backPressure = " Back-pressure: when this index partition throttles, DynamoDB throttles the base table's writes that update it," +
	" although the table's own partitions are healthy, and the error names the index, never the key."

// diagnoseIndex explains a flagged key of index: its pattern, the
// back-pressure it puts on the table, and the write-sharding fix. As
// diagnose, it never quotes the key.
func diagnoseIndex(index string, p report.Pattern, k *report.KeyFigures, limit float64) string {
	head := fmt.Sprintf("%.0f%% of the index's WCU, peaking at %s WCU/s against the %s WCU/s per-partition limit.",
		k.Share*100, report.Rate(k.PeakWCUPerSecond), report.Rate(limit))
	r := k.RecommendedShards
	var what, fix string
	switch p {
	case report.PatternTimeBucket:
		what = "time-bucketed index key: every write of the current period lands on one partition of the index, "
		fix = fmt.Sprintf(" Write-shard the bucket in the index key (…#SHARD#0 to …#SHARD#%d, picked by a hash of the item id) and query the %d shards in parallel.", r-1, r)
	case report.PatternLowCardinality:
		what = "low-cardinality attribute indexed directly: every item with this value shares one partition of the index, "
		fix = fmt.Sprintf(" Write-shard the index key (VALUE#SHARD#n, n from 0 to %d picked by a hash of the item id) and query the %d shards in parallel.", r-1, r)
	default:
		what = "constant or near-constant index key (the same value written on every item, as a cross-day key added to daily-bucketed items): it puts the writes on one partition of the index, "
		fix = fmt.Sprintf(" Write-shard the index key (VALUE#SHARD#n, n from 0 to %d picked by a hash of the item id) and query the %d shards in parallel, or index a higher-cardinality attribute.", r-1, r)
	}
	return "Index " + index + ": " + what + head + backPressure + fix
}
