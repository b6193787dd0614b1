package detector

import "time"

// Severity ranks a flagged key.
type Severity string

// Severities, from none to worst. A key is a warning when its share of the
// window's WCU and its peak rate are both over their thresholds, and critical
// when its peak rate is near the per-partition limit.
const (
	None     Severity = ""
	Warning  Severity = "warning"
	Critical Severity = "critical"
)

// Report is what the detector concludes about one closed window. Its JSON
// form is the stable `--format json` shape documented in README.
type Report struct {
	Table string    `json:"table"`
	Start time.Time `json:"start"` // RFC 3339 UTC
	End   time.Time `json:"end"`

	Records    uint64 `json:"records"`     // records analysed (malformed ones excluded)
	TTLDeletes uint64 `json:"ttl_deletes"` // of which TTL deletes (0 WCU)
	Malformed  uint64 `json:"malformed"`   // records skipped as malformed
	// InternalErrors counts records lost to a bug in hotkeys (a panic
	// recovered while handling them), never the input's fault.
	InternalErrors uint64 `json:"internal_errors"`
	Late           uint64 `json:"late"` // records that came after their window had closed (not in records or wcu)

	WCU             uint64 `json:"wcu"`                // exact sum of the analysed records' WCU
	WCUIsLowerBound bool   `json:"wcu_is_lower_bound"` // some record lacked the image needed to size it
	DistinctKeys    uint64 `json:"distinct_keys"`      // HyperLogLog estimate (about 0.8 % error)

	// TerminatedEarly is true when Lambda ended the tumbling window early
	// (state over 1 MB or a shard boundary): the window is incomplete.
	TerminatedEarly bool `json:"terminated_early,omitempty"`

	HotKeys []KeyReport `json:"hot_keys"` // flagged keys, by WCU descending
	TopKeys []KeyReport `json:"top_keys"` // the Top heaviest keys, flagged or not, by WCU descending
	// OtherKeysWCUUpper bounds every key missing from TopKeys: none wrote
	// more WCU than this in the window. It lets windows be added up per key
	// (a heatmap, a history) with bounds that still bracket the truth.
	OtherKeysWCUUpper uint64        `json:"other_keys_wcu_upper"`
	Shards            []ShardReport `json:"shards"`
}

// KeyReport describes one partition key (or, for Pattern "sharded", one
// logical key: all the shards of BASE#SHARD_N together).
type KeyReport struct {
	Key  string `json:"key"`  // S as is, N canonical decimal, B standard base64; redacted when configured
	Type string `json:"type"` // "S", "N" or "B"

	WCU      uint64 `json:"wcu"`       // best estimate
	WCULower uint64 `json:"wcu_lower"` // the true WCU is within [WCULower, WCUUpper]
	WCUUpper uint64 `json:"wcu_upper"`

	Share            float64 `json:"share"`               // WCU / window WCU
	AvgWCUPerSecond  float64 `json:"avg_wcu_per_second"`  // WCU / window length
	PeakWCUPerSecond float64 `json:"peak_wcu_per_second"` // highest WCU within one second (a lower bound)

	Severity          Severity `json:"severity"`
	Pattern           Pattern  `json:"pattern"`
	Diagnosis         string   `json:"diagnosis"` // empty unless flagged
	RecommendedShards int      `json:"recommended_shards"`

	// Shards lists the physical keys of a logical sharded key, by WCU
	// descending; empty for other patterns.
	Shards []ShardedKeyPart `json:"shards,omitempty"`
}

// ShardedKeyPart is one write shard (one physical partition key) of a
// sharded logical key.
type ShardedKeyPart struct {
	Key string `json:"key"`
	WCU uint64 `json:"wcu"`
}

// ShardReport is the write load one stream shard (roughly one table
// partition) carried in the window.
type ShardReport struct {
	Shard            string  `json:"shard"`
	Records          uint64  `json:"records"`
	WCU              uint64  `json:"wcu"`
	PeakWCUPerSecond float64 `json:"peak_wcu_per_second"`
}

// Pattern names the shape of a hot key, from which its diagnosis follows.
type Pattern string

// The patterns the detector recognises.
const (
	PatternSingleKey      Pattern = "single_key"      // one key carries a large share (OPS_LOG)
	PatternLowCardinality Pattern = "low_cardinality" // an enumerated value used as a key (STATUS#ACTIVE)
	PatternTimeBucket     Pattern = "time_bucket"     // a date or hour bucket (DATE#2026-11-22)
	PatternSingleItem     Pattern = "single_item"     // one item rewritten again and again (a counter)
	PatternShardedUneven  Pattern = "sharded_uneven"  // write shards with uneven load
	PatternShardedTooFew  Pattern = "sharded_too_few" // write shards, evenly loaded but too few
)
