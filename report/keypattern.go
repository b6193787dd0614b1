package report

// KeyPattern is what a window says of one partition-key pattern (issue 30's
// audit of the key design): USER#<uuid>, OPS_LOG, STATUS#<*>, with its
// figures and the verdict on its design, at any traffic level. A pattern
// of one key (OPS_LOG) is a hot partition by definition, whatever today's
// rate: no threshold of rate or share applies here.
type KeyPattern struct {
	// Pattern is the keys' shape: variable parts replaced by their class
	// (<uuid>, <n>, <date>, <datetime>, <hex>, <id>, <email>, <bytes>, or
	// <*> for a literal learnt to vary). A pattern of one key is that key,
	// and so redacted like any key when redaction is on.
	Pattern string `json:"pattern"`
	// Verdict is single_key (constant_key on an index), time_bucket,
	// dominant_key, low_cardinality or healthy; the first that applies.
	Verdict Pattern `json:"verdict"`

	Records uint64  `json:"records"` // exact
	WCU     uint64  `json:"wcu"`     // exact
	Share   float64 `json:"share"`   // of the window's WCU

	// DistinctKeys is the pattern's cardinality: exact when
	// DistinctKeysExact, else a HyperLogLog estimate whose one standard
	// error is DistinctKeysError (a fraction).
	DistinctKeys      uint64  `json:"distinct_keys"`
	DistinctKeysExact bool    `json:"distinct_keys_exact"`
	DistinctKeysError float64 `json:"distinct_keys_error"`

	// TopKeyShare is the proven (lower-bound) share of the pattern's WCU
	// that its heaviest key took.
	TopKeyShare float64 `json:"top_key_share"`
	// CeilingWCUPerSecond is the pattern's write rate at which its
	// heaviest key would reach the partition limit if the mix stays as
	// observed: limit ÷ the heaviest key's share (a lower bound: the
	// pattern is safe below it). The limit itself for one key.
	CeilingWCUPerSecond float64 `json:"ceiling_wcu_per_second"`
	// TimeBucket is true when a time part's newest (or current) value took
	// most of the pattern's writes.
	TimeBucket bool `json:"time_bucket"`
	// TopKeys are the heaviest keys of the pattern, heaviest first.
	TopKeys []PatternKey `json:"top_keys"`
	// Diagnosis says why a hazardous pattern will break and the fix;
	// empty for a healthy one.
	Diagnosis string `json:"diagnosis,omitempty"`
}

// PatternKey is one of a pattern's heaviest keys: its WCU with bounds that
// bracket the truth.
type PatternKey struct {
	Key      string `json:"key"` // as KeyFigures.Key shows it, redacted when configured
	WCU      uint64 `json:"wcu"`
	WCULower uint64 `json:"wcu_lower"`
	WCUUpper uint64 `json:"wcu_upper"`
}

// Hazard reports whether the pattern's verdict says it will break.
func (p *KeyPattern) Hazard() bool { return p.Verdict != PatternHealthy && p.Verdict != "" }
