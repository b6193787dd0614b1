package report

import "time"

// Window names what a report covers: one table, or one of its global
// secondary indexes, over one window of time.
type Window struct {
	Table string `json:"table"`
	// Index names the global secondary index whose write load this window
	// reports; absent for the table's own windows.
	Index string    `json:"index,omitempty"`
	Start time.Time `json:"start"` // RFC 3339 UTC
	End   time.Time `json:"end"`
}

// WindowStart returns the start of the tumbling window of length window
// (whole seconds; a shorter one aligns to the second) that holds t.
// Windows are aligned to multiples of their length in Unix time, before
// 1970 too, so that every reader of a stream (replay, watch, the Lambda's
// plain batches), the client middleware, history's steps and the
// heatmap's columns put a moment in the same window. It is the one
// alignment of hotkeys. It lives here because a Report's window starts at
// it, and every package that aligns (detector, clientwatch, history,
// heatmap) imports this one, while history and heatmap must not import
// the detector.
func WindowStart(t time.Time, window time.Duration) time.Time {
	sec := max(int64(window/time.Second), 1)
	u := t.Unix()
	u -= ((u % sec) + sec) % sec
	return time.Unix(u, 0).UTC()
}

// Report is what the detector concludes about one closed window of a
// table's stream. Its JSON form is the stable `--format json` shape
// documented in docs/json-report.md.
type Report struct {
	Window

	// Totals are the window's counters: records, WCU and what was
	// counted beside them (their JSON fields come here, in their order).
	Totals
	DistinctKeys uint64 `json:"distinct_keys"` // HyperLogLog estimate (about 0.8 % error)

	// TerminatedEarly is true when Lambda ended the tumbling window early
	// (state over 1 MB or a shard boundary): the window is incomplete.
	TerminatedEarly bool `json:"terminated_early,omitempty"`
	// Trimmed is true when the lightest keys of the window's summary were
	// dropped to keep the Lambda's tumbling-window state under its 1 MB
	// cap: totals stay exact, and OtherKeysWCUUpper still bounds every key
	// not listed, but it is higher than the sketch alone would give.
	Trimmed bool `json:"trimmed,omitempty"`

	HotKeys []KeyReport `json:"hot_keys"` // flagged keys, by WCU descending
	TopKeys []KeyReport `json:"top_keys"` // the Top heaviest keys, flagged or not, by WCU descending
	// OtherKeysWCUUpper bounds every key missing from TopKeys: none wrote
	// more WCU than this in the window. It lets windows be added up per key
	// (a heatmap, a history) with bounds that still bracket the truth.
	OtherKeysWCUUpper uint64        `json:"other_keys_wcu_upper"`
	Shards            []ShardReport `json:"shards"`
}

// KeyFigures is what every report says of one partition key: its writes,
// with bounds, and the verdict on them.
type KeyFigures struct {
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

	// SaturatedSeconds counts the seconds of the window in which the key's
	// WCU was at the saturation level (by default 90 % of the partition
	// limit) or more; Saturated is set when they reach the configured
	// number (by default 3). A saturated key is critical: its successful
	// writes are pinned at the limit, so it is most likely throttled and its
	// true demand is at least what was observed; its RecommendedShards is
	// then a lower bound (RecommendedShardsIsLowerBound). A client's key
	// (ClientKeyReport) counts its reads apart, in ReadSaturatedSeconds,
	// and is Saturated when either side is.
	SaturatedSeconds              int  `json:"saturated_seconds,omitempty"`
	Saturated                     bool `json:"saturated,omitempty"`
	RecommendedShardsIsLowerBound bool `json:"recommended_shards_is_lower_bound,omitempty"`
}

// KeyReport describes one partition key of a stream's window (or, for
// Pattern "sharded", one logical key: all the shards of BASE#SHARD_N
// together).
type KeyReport struct {
	KeyFigures
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
	// SaturatedSeconds and Saturated are a KeyFigures' for the shard's
	// load: every key it carries added up. A shard is saturated even when
	// no key of it is, when keys that share its partition pin it together.
	SaturatedSeconds int  `json:"saturated_seconds,omitempty"`
	Saturated        bool `json:"saturated,omitempty"`
}
