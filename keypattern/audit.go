package keypattern

import (
	"fmt"
	"math"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// DistinctError is the one standard error of a pattern's distinct count
// once it is no longer exact (past 128 keys): 1.04/√512.
const DistinctError = 0.046

// AuditConfig is how Audit words a table's patterns for a report.
type AuditConfig struct {
	Thresholds Thresholds
	// Limit is the partition's write limit, WCU/s (ddb's 1,000).
	Limit float64
	// Index is true for an index's patterns: single_key reads
	// constant_key, and every hazard throttles the table's writes too.
	Index bool
	// Display shows a key as the report shows keys (redacted when
	// configured); nil shows S and N keys as they are.
	Display func(typ ddb.KeyType, value []byte) string
	// Redact, when set, stands in for each run of literal text between a
	// pattern's classes (redaction): ORDERS#SHARD_<n> would otherwise name
	// the base of a write-sharded key, which the reports hide as a key.
	Redact func(literal string) string
}

// Audit returns the table's patterns as a report carries them, heaviest
// first: the figures of Patterns(s), judged by cfg.Thresholds, with the
// ceiling's lower bound against cfg.Limit and, for a hazard, the fix. A
// pattern that is one key is shown as its key by cfg.Display, so that
// redaction hides it as it hides the key (OPS_LOG itself is the key);
// other patterns show their literal parts, which name no one key.
func (t *Table) Audit(s *sketch.Summary, cfg AuditConfig) []report.KeyPattern {
	figs := t.Patterns(s)
	out := make([]report.KeyPattern, len(figs))
	for i := range figs {
		out[i] = cfg.pattern(&figs[i])
	}
	return out
}

func (cfg AuditConfig) display(key []byte) string {
	typ, value := ddb.KeyType(key[0]), key[1:]
	if cfg.Display != nil {
		return cfg.Display(typ, value)
	}
	return string(value)
}

func (cfg AuditConfig) pattern(f *Figures) report.KeyPattern {
	lo, _ := f.TopShare()
	ceiling, _ := f.Ceiling(cfg.Limit)
	if math.IsInf(ceiling, 0) || math.IsNaN(ceiling) {
		ceiling = 0 // no key weighs anything known: JSON has no ∞
	}
	v := report.Pattern(Judge(f, cfg.Thresholds))
	if v == report.PatternSingleKey && cfg.Index {
		v = report.PatternConstantKey
	}
	kp := report.KeyPattern{
		Pattern: f.Pattern, Verdict: v,
		Records: f.Records, WCU: f.WCU, Share: f.Share,
		DistinctKeys: f.Distinct, DistinctKeysExact: f.DistinctExact,
		TopKeyShare: lo, CeilingWCUPerSecond: ceiling,
		TimeBucket: cfg.Thresholds.TimeBucket(f),
		TopKeys:    make([]report.PatternKey, 0, len(f.TopKeys)),
	}
	if !f.DistinctExact {
		kp.DistinctKeysError = DistinctError
	}
	switch {
	case len(f.Vars) == 0 && len(f.TopKeys) > 0:
		kp.Pattern = cfg.display(f.TopKeys[0].Key)
	case cfg.Redact != nil:
		kp.Pattern = RedactLiterals(f.Pattern, cfg.Redact)
	}
	for _, k := range f.TopKeys {
		kp.TopKeys = append(kp.TopKeys, report.PatternKey{
			Key: cfg.display(k.Key), WCU: k.Upper - (k.Upper-k.Lower)/2, WCULower: k.Lower, WCUUpper: k.Upper,
		})
	}
	kp.Diagnosis = cfg.diagnose(&kp, f)
	return kp
}

// diagnose words a hazardous pattern's verdict: why it breaks, at which
// rate, and the fix, in the words the detector uses for hot keys. It
// never quotes a key.
func (cfg AuditConfig) diagnose(kp *report.KeyPattern, f *Figures) string {
	limit := cfg.Limit
	ceiling := fmt.Sprintf("it throttles once the pattern writes %s WCU/s", rate(kp.CeilingWCUPerSecond))
	shard := fmt.Sprintf("write-shard it (…#0 to …#N-1, picked by a hash of the item id; N shards take N × %s WCU/s) and read the shards in parallel.", report.Rate(limit))
	var d string
	switch kp.Verdict {
	case report.PatternSingleKey:
		d = fmt.Sprintf("One key: every write of this pattern goes to one partition, capped at %s WCU/s whatever the table's capacity, at any traffic (now %.0f%% of the WCU read).", report.Rate(limit), kp.Share*100) +
			" Add a high-cardinality part to the key (the item's id), or " + shard
	case report.PatternConstantKey:
		d = fmt.Sprintf("Constant index key: every item this index holds goes to one partition of it, capped at %s WCU/s, at any traffic.", report.Rate(limit)) +
			" Write-shard the index key (…#0 to …#N-1 by a hash of the item id) and query the N shards in parallel, or keep the attribute only on the items that need the query."
	case report.PatternTimeBucket:
		d = fmt.Sprintf("Time bucket: the newest (or current) value takes most of the pattern's writes, so one key at a time takes them; %s.", ceiling) +
			" Add a write-shard suffix to the bucket and query the shards in parallel, or use a finer bucket."
	case report.PatternDominantKey:
		d = fmt.Sprintf("One key takes at least %.0f%% of the pattern's writes; %s.", kp.TopKeyShare*100, ceiling) +
			" Spread that entity's writes: " + shard
	case report.PatternLowCardinality:
		d = fmt.Sprintf("Low cardinality: %d distinct keys, an enumerated value used as a partition key; %s.", kp.DistinctKeys, ceiling) +
			" Key the table by a high-cardinality attribute (the item's id) and serve the by-value query from a GSI with a write-sharded key."
	default:
		return ""
	}
	if cfg.Index && kp.Verdict != report.PatternConstantKey {
		d += " On an index, a throttled partition throttles the table's writes too (back-pressure)."
	} else if cfg.Index {
		d += " When it throttles, the table's writes are throttled too (back-pressure)."
	}
	return d
}

// rate writes a ceiling: whole WCU/s, or "any rate" for one without bound.
func rate(r float64) string {
	if math.IsInf(r, 1) || r > 1e15 {
		return "an unbounded rate"
	}
	return report.Rate(r)
}

// RedactLiterals returns pattern with each run of literal text between its
// classes replaced by redact(run), the run unescaped: TENANT#<*> becomes
// redact("TENANT#") + "<*>". The classes stay, so the shape still shows.
func RedactLiterals(pattern string, redact func(string) string) string {
	var out, run []byte
	flush := func() {
		if len(run) > 0 {
			out = append(out, redact(string(run))...)
			run = run[:0]
		}
	}
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			i++
			run = append(run, pattern[i])
		case c == '<':
			flush()
			end := i + 1
			for end < len(pattern) && pattern[end] != '>' {
				end++
			}
			end = min(end, len(pattern)-1)
			out = append(out, pattern[i:end+1]...)
			i = end
		default:
			run = append(run, c)
		}
	}
	flush()
	return string(out)
}
