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

// Rank orders severities: 0 for none, 1 warning, 2 critical.
func (s Severity) Rank() int {
	switch s {
	case Critical:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// Report is what the detector concludes about one closed window. Its JSON
// form is the stable `--format json` shape documented in README.
type Report struct {
	// Source is "client" for a report of what an instrumented DynamoDB
	// client saw (package clientwatch); absent for a stream's report.
	Source string `json:"source,omitempty"`

	Table string `json:"table"`
	// Index names the global secondary index whose write load this window
	// reports; absent for the table's own windows.
	Index string    `json:"index,omitempty"`
	Start time.Time `json:"start"` // RFC 3339 UTC
	End   time.Time `json:"end"`

	Records    uint64 `json:"records"`     // records analysed (malformed ones excluded)
	TTLDeletes uint64 `json:"ttl_deletes"` // of which TTL deletes (0 WCU)
	// TTLWCU is, for an index, the size in WCU of the entries TTL deletes
	// removed from it: DynamoDB does not bill them, and they are not in WCU.
	TTLWCU    uint64 `json:"ttl_wcu,omitempty"`
	Malformed uint64 `json:"malformed"` // records skipped as malformed
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
	// Trimmed is true when the lightest keys of the window's summary were
	// dropped to keep the Lambda's tumbling-window state under its 1 MB
	// cap: totals stay exact, and OtherKeysWCUUpper still bounds every key
	// not listed, but it is higher than the sketch alone would give.
	Trimmed bool `json:"trimmed,omitempty"`

	// Client side only (Source "client"); absent from a stream's report.
	// Totals are exact: the sum of the ConsumedCapacity DynamoDB returned.
	Requests                 uint64  `json:"requests,omitempty"`                   // calls completed (each with all its attempts)
	RCU                      float64 `json:"rcu,omitempty"`                        // read capacity consumed
	UnattributedRequests     uint64  `json:"unattributed_requests,omitempty"`      // calls that named no key the client could see (see README)
	UnattributedRCU          float64 `json:"unattributed_rcu,omitempty"`           // of RCU, charged to no key
	UnattributedWCU          uint64  `json:"unattributed_wcu,omitempty"`           // of WCU, charged to no key
	ApportionedRCU           float64 `json:"apportioned_rcu,omitempty"`            // of RCU, split over several keys by item size
	ApportionedWCU           uint64  `json:"apportioned_wcu,omitempty"`            // of WCU, split over several keys by item size
	ThrottledAttempts        uint64  `json:"throttled_attempts,omitempty"`         // attempts DynamoDB throttled, retried ones included
	ConditionalCheckFailures uint64  `json:"conditional_check_failures,omitempty"` // writes refused by their condition (still charged)
	Dropped                  uint64  `json:"dropped,omitempty"`                    // calls not recorded: the client's queue was full

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

	// Client side only; absent from a stream's report. RCU figures are
	// bounded like WCU's: the truth is within [RCULower, RCUUpper].
	Requests         uint64  `json:"requests,omitempty"` // calls on the key (an upper bound)
	RCU              float64 `json:"rcu,omitempty"`      // best estimate
	RCULower         float64 `json:"rcu_lower,omitempty"`
	RCUUpper         float64 `json:"rcu_upper,omitempty"`
	ReadShare        float64 `json:"read_share,omitempty"` // RCU / window RCU
	AvgRCUPerSecond  float64 `json:"avg_rcu_per_second,omitempty"`
	PeakRCUPerSecond float64 `json:"peak_rcu_per_second,omitempty"` // highest RCU within one second (a lower bound)
	// Apportioned is true when some of the key's capacity is its share of a
	// multi-key request (batch, transaction, Scan), split by item sizes:
	// the request's total is exact, the split follows DynamoDB's size rules.
	Apportioned              bool                    `json:"apportioned,omitempty"`
	ThrottledAttempts        uint64                  `json:"throttled_attempts,omitempty"`
	ThrottlingReasons        []ThrottlingReasonCount `json:"throttling_reasons,omitempty"`
	ConditionalCheckFailures uint64                  `json:"conditional_check_failures,omitempty"`
	// Latency of the key's calls as the application saw them, retries
	// included; quantiles are bucket upper edges (at most 19 % high).
	LatencySamples uint64  `json:"latency_samples,omitempty"`
	LatencyP50Ms   float64 `json:"latency_p50_ms,omitempty"`
	LatencyP99Ms   float64 `json:"latency_p99_ms,omitempty"`
	LatencyOutlier bool    `json:"latency_outlier,omitempty"`   // p99 over 10× the median key's, ≥ 20 samples each
	MedianKeyP99Ms float64 `json:"median_key_p99_ms,omitempty"` // set with LatencyOutlier
	// HotFor says what flagged the key: "reads", "writes", "throttling",
	// "latency".
	HotFor []string `json:"hot_for,omitempty"`
}

// ThrottlingReasonCount is how many throttled attempts of a key DynamoDB
// gave one reason for (ThrottlingReasons[].reason, e.g.
// TableReadKeyRangeThroughputExceeded; "" when the error carried none).
type ThrottlingReasonCount struct {
	Reason   string `json:"reason"`
	Attempts uint64 `json:"attempts"`
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
