package report

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

// Worse returns the worse of s and o: s when they rank alike.
func (s Severity) Worse(o Severity) Severity {
	if o.Rank() > s.Rank() {
		return o
	}
	return s
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
	// PatternConstantKey: an index key that (nearly) every item writes with
	// the same value, such as GSI1PK = "OPS_LOG" added to every log line so
	// that they can be queried across days.
	PatternConstantKey Pattern = "constant_key"
)
