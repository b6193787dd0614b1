package detector

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
)

// The shapes below are how the usual anti-patterns spell their keys. They
// are deliberately narrow: a wrong diagnosis is worse than a plain one.
const enumWords = `(?i:true|false|yes|no|active|inactive|pending|open|closed|new|done|failed|enabled|disabled|draft|published|deleted)`

var (
	// DATE#2026-11-22, HOUR#2026-11-22T10, 2026-11, 20261122, 2026112210,
	// MONTH#2026-11, and epoch-second or epoch-millisecond buckets.
	timeBucketRE = regexp.MustCompile(`(^|[#:|_/-])(` +
		`\d{4}-\d{2}(-\d{2}([T ]\d{2}(:\d{2})?)?)?` + `|` +
		`(19|20)\d{2}(0[1-9]|1[0-2])([0-3]\d([0-2]\d)?)?` + `|` +
		`1\d{9}(\d{3})?` + `)($|[#:|_/Z-])`)
	timeWordRE = regexp.MustCompile(`(?i)(^|[#:|_/-])(date|day|hour|minute|month|week|year|bucket|ts|time)[#:|_/-]`)
	// STATUS#ACTIVE, TYPE#ORDER, status:pending, active, true: an enumerated
	// value. A bare upper-case word (OPS_LOG) is a name, not a value.
	lowCardinalityRE = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9_]*[#:|/](?:[A-Z][A-Z_]{1,23}|` + enumWords + `)|` + enumWords + `)$`)
)

// RecommendedShards is the write-shard count that keeps each shard's peak
// at two thirds of the partition limit: ceil(peak / limit × 1.5), at least
// 2.
func RecommendedShards(peak, limit float64) int {
	n := int(math.Ceil(peak / limit * 1.5))
	return max(n, 2)
}

// keyShape is what the diagnosis knows about one physical key.
type keyShape struct {
	text      string // the key as written (S only: N and B keys have no shape)
	isString  bool
	sortKeyed bool // the table has a sort key
	manyItems bool // more than one item was written under the key
}

// classify picks the pattern that best explains a hot physical key. The order
// matters: a date in the key explains the heat better than the single item
// it may also be, and a single item is stronger evidence than a name shape.
func classify(s keyShape) report.Pattern {
	if s.isString && (timeBucketRE.MatchString(s.text) || timeWordRE.MatchString(s.text)) {
		return report.PatternTimeBucket
	}
	if !s.sortKeyed || !s.manyItems {
		return report.PatternSingleItem
	}
	if s.isString && lowCardinalityRE.MatchString(s.text) {
		return report.PatternLowCardinality
	}
	return report.PatternSingleKey
}

// Classify returns the pattern that best explains a hot key k: sortKeyed
// says the table (or index) has a sort key, manyItems that more than one
// item was written under k. The stream side knows both from its records;
// the client engine, which cannot, passes true for both, so that only the
// key's shape, or none, explains it.
func Classify(k ddb.Key, sortKeyed, manyItems bool) report.Pattern {
	return classify(keyShape{text: string(k.Value), isString: k.Type == ddb.String, sortKeyed: sortKeyed, manyItems: manyItems})
}

// shardSuffix splits BASE#SHARD_3, BASE#SHARD#3, BASE_SHARD3, BASE#3 or
// BASE_3 into its base and shard number (1 to 4 digits). marked is true when
// the key says SHARD, so one key alone is enough to call it a shard. It is
// written out rather than a regular expression because it runs on every
// candidate key of every window.
func shardSuffix(key string) (base string, n int, marked bool, ok bool) {
	j := len(key)
	for j > 0 && isDigit(key[j-1]) {
		j--
	}
	if d := len(key) - j; d == 0 || d > 4 || j < 2 {
		return "", 0, false, false
	}
	n, _ = strconv.Atoi(key[j:])
	k := j
	if isShardSep(key[k-1]) {
		k--
	}
	if k >= 7 && strings.EqualFold(key[k-5:k], "shard") && isShardSep(key[k-6]) {
		return key[:k-6], n, true, true
	}
	if isShardSep(key[j-1]) {
		return key[:j-1], n, false, true
	}
	return "", 0, false, false
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isShardSep(c byte) bool { return c == '#' || c == '_' }

// shardFacts is what the diagnosis of a logical sharded key adds.
type shardFacts struct {
	count        int     // write shards
	deviation    float64 // largest shard's distance from the mean, as a fraction of it
	combinedPeak float64 // the shards' peaks added up
}

// Diagnose is the plain-words explanation of a flagged physical key of
// pattern p: what makes it hot, against the per-partition write limit, and
// what to do. It never quotes the key.
func Diagnose(p report.Pattern, k *report.KeyFigures, limit float64) string {
	return diagnose(p, k, limit, shardFacts{})
}

// diagnose writes the plain-words explanation of a flagged key. It never
// quotes the key: keys may be personal data, and the key is in the report
// next to the diagnosis anyway (redacted when configured).
func diagnose(p report.Pattern, k *report.KeyFigures, limit float64, sf shardFacts) string {
	head := fmt.Sprintf("%.0f%% of the window's WCU, peaking at %s WCU/s against the %s WCU/s per-partition limit.",
		k.Share*100, report.Rate(k.PeakWCUPerSecond), report.Rate(limit))
	r := k.RecommendedShards
	switch p {
	case report.PatternTimeBucket:
		return "Time-bucketed key: every write of the current period lands on one partition, " + head +
			fmt.Sprintf(" Add a write-shard suffix to the bucket (…#0 to …#%d, picked by a hash of the item id) and query the %d shards in parallel, or use a finer bucket.", r-1, r)
	case report.PatternSingleItem:
		return "One item rewritten again and again (a counter or status record): " + head +
			fmt.Sprintf(" Split it into %d sub-items summed on read, or aggregate updates in memory or from the stream and write them periodically.", r)
	case report.PatternLowCardinality:
		return "Low-cardinality value used as a partition key: all items with this value share one partition, " + head +
			fmt.Sprintf(" Key the table by a high-cardinality attribute (e.g. the item id) and serve the by-value query from a GSI with a write-sharded key (%d shards).", r)
	case report.PatternShardedUneven:
		return fmt.Sprintf("Write-sharded key with uneven shards: of %d shards, one is %.0f%% off their mean. Together they take %.0f%% of the window's WCU; the hottest shard peaks at %s WCU/s against the %s WCU/s per-partition limit.",
			sf.count, sf.deviation*100, k.Share*100, report.Rate(k.PeakWCUPerSecond), report.Rate(limit)) +
			" Pick the shard by a uniform hash of a high-cardinality attribute (not by time, a counter or a skewed field)" +
			fmt.Sprintf(" and keep at least %d shards.", r)
	case report.PatternShardedTooFew:
		return fmt.Sprintf("Write-sharded key with too few shards: %d evenly loaded shards take %.0f%% of the window's WCU, %s WCU/s together at peak; the hottest peaks at %s WCU/s against the %s WCU/s per-partition limit.",
			sf.count, k.Share*100, report.Rate(sf.combinedPeak), report.Rate(k.PeakWCUPerSecond), report.Rate(limit)) +
			fmt.Sprintf(" Use at least %d shards.", r)
	}
	return "One partition key takes a disproportionate share of the writes: " + head +
		fmt.Sprintf(" Add a high-cardinality component to the key, or write-shard it into %d suffixes (…#0 to …#%d) read in parallel.", r, r-1)
}
