package detector

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Report draws the window's conclusions: every candidate key judged against
// the thresholds, sharded keys judged as one logical key as well as per
// shard, the Top heaviest keys, and the stream shards' load.
func (w *Window) Report(cfg Config) report.Report {
	rep := report.Report{
		Window:          report.Window{Table: w.table, Index: w.index, Start: w.Start(), End: w.End()},
		Totals:          w.totals,
		DistinctKeys:    w.summary.Distinct(),
		TerminatedEarly: w.terminatedEarly,
		Trimmed:         w.trimmed,
		HotKeys:         []report.KeyReport{},
		TopKeys:         []report.KeyReport{},
		Shards:          w.shardReports(cfg),
	}
	if rep.Records > 0 && rep.DistinctKeys == 0 {
		rep.DistinctKeys = 1 // the estimator never says 0 for a non-empty window
	}
	j := judge{cfg: cfg, total: w.totals.WCU, seconds: float64(w.end - w.start), index: w.index, saturated: w.saturatedSeconds()}
	w.judgeKeys(j, &rep)
	return rep
}

// judgeKeys fills rep's HotKeys, TopKeys and OtherKeysWCUUpper from the
// window's tracked keys.
func (w *Window) judgeKeys(j judge, rep *report.Report) {
	entries := w.summary.Top(w.summary.Config().Counters)
	keys := make([]report.KeyReport, len(entries))
	for i, e := range entries {
		keys[i] = j.physical(e)
	}
	logical := j.shardedKeys(entries, keys)

	// Explain only the flagged keys: a pattern and a shard count are a
	// finding's, and on a key that is not one they read as advice to act
	// on (and the shape tests are the costliest step of a report).
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return byWCU(keys[a], keys[b]) })
	top := j.cfg.Top
	for rank, i := range order {
		switch {
		case keys[i].Severity == report.None:
			keys[i].RecommendedShards = 0
		case keys[i].Pattern == "":
			j.explain(&keys[i], entries[i])
		}
		if rank < top {
			rep.TopKeys = append(rep.TopKeys, keys[i])
		}
		if keys[i].Severity != report.None {
			rep.HotKeys = append(rep.HotKeys, keys[i])
		}
	}
	// A key left out of TopKeys is either tracked but ranked below them
	// (its upper bound is at most the first one left out) or untracked (at
	// most the summary's floor).
	rep.OtherKeysWCUUpper = w.summary.Floor()
	if len(order) > top {
		rep.OtherKeysWCUUpper = max(rep.OtherKeysWCUUpper, keys[order[top]].WCUUpper)
	}
	rep.HotKeys = append(rep.HotKeys, logical...)
	slices.SortStableFunc(rep.HotKeys, byWCU)
}

// shardReports returns the stream shards' load, heaviest first.
func (w *Window) shardReports(cfg Config) []report.ShardReport {
	_, need := cfg.saturation()
	out := make([]report.ShardReport, 0, len(w.shards))
	for _, s := range w.shards {
		sat := int(s.saturated)
		if w.watch.sat > 0 && s.tickWCU >= w.watch.sat { // the current second, over at the close
			sat++
		}
		out = append(out, report.ShardReport{Shard: s.id, Records: s.records, WCU: s.wcu, PeakWCUPerSecond: float64(s.peak),
			SaturatedSeconds: sat, Saturated: sat >= need})
	}
	slices.SortFunc(out, func(a, b report.ShardReport) int {
		return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Shard, b.Shard))
	})
	return out
}

// byWCU orders keys by WCU, heaviest first, then by key.
func byWCU(a, b report.KeyReport) int {
	return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Key, b.Key))
}

// judge holds what every key is judged against.
type judge struct {
	index   string // the index judged; "" for a table
	cfg     Config
	total   uint64
	seconds float64
	// saturated holds, by key hash, the seconds each key spent at the
	// saturation level (Window.saturatedSeconds); nil when not counted.
	saturated map[uint64]int
}

func (j judge) share(wcu uint64) float64 {
	if j.total == 0 {
		return 0
	}
	return float64(wcu) / float64(j.total)
}

// severity flags on the upper bound of the share, so that no key whose true
// share reaches the threshold goes unflagged, and on the tracked peak.
func (j judge) severity(share, peak float64) report.Severity {
	switch {
	case peak >= j.cfg.CriticalWCUPerSecond:
		return report.Critical
	case share >= j.cfg.ShareThreshold && peak >= j.cfg.MinWCUPerSecond:
		return report.Warning
	}
	return report.None
}

func (j judge) physical(e sketch.Entry) report.KeyReport {
	k := report.KeyReport{KeyFigures: j.figures(e.Key, e)}
	k.Severity = j.severity(k.Share, k.PeakWCUPerSecond)
	k.RecommendedShards = RecommendedShards(k.PeakWCUPerSecond, j.cfg.PartitionLimit)
	if n := j.saturated[sketch.Hash(e.Key)]; n > 0 {
		_, need := j.cfg.saturation()
		k.SaturatedSeconds = n
		if n >= need {
			j.saturate(&k.KeyFigures)
		}
	}
	return k
}

// saturate marks a key saturated: critical, whatever its figures, and its
// shard count only a lower bound, since the stream shows only the writes
// the partition admitted.
func (j judge) saturate(k *report.KeyFigures) {
	k.Saturated = true
	k.Severity = report.Critical
	k.RecommendedShardsIsLowerBound = true
}

// Severity judges a key's share of a window's WCU and its peak WCU within
// one second against c's thresholds, as every window judges its keys'
// writes: a warning at ShareThreshold and MinWCUPerSecond, critical at
// CriticalWCUPerSecond.
func (c Config) Severity(share, peakWCU float64) report.Severity {
	return judge{cfg: c}.severity(share, peakWCU)
}

// KeyFigures returns a key's write figures as reports show them: key is
// the typed key (its ddb.KeyType byte, then its value), e its entry in
// the window's writes (bounds and peak), totalWCU the window's WCU and
// seconds its length; the key is displayed as c says (DisplayKey).
func (c Config) KeyFigures(key []byte, e sketch.Entry, totalWCU uint64, seconds float64) report.KeyFigures {
	return judge{cfg: c, total: totalWCU, seconds: seconds}.figures(key, e)
}

// figures are a key's write figures from its typed bytes and its entry
// (bounds and peak) in the window's writes.
func (j judge) figures(key []byte, e sketch.Entry) report.KeyFigures {
	typ := ddb.KeyType(key[0])
	return report.KeyFigures{
		Key:              j.display(typ, key[1:]),
		Type:             string(rune(typ)),
		WCU:              e.Upper,
		WCULower:         e.Lower,
		WCUUpper:         e.Upper,
		Share:            j.share(e.Upper),
		AvgWCUPerSecond:  float64(e.Upper) / j.seconds,
		PeakWCUPerSecond: float64(e.Peak),
	}
}

// explain gives a physical key its pattern and, when flagged, its diagnosis.
func (j judge) explain(k *report.KeyReport, e sketch.Entry) {
	if j.index != "" {
		k.Pattern = classifyIndexKey(string(e.Key[1:]), ddb.KeyType(e.Key[0]) == ddb.String)
		if k.Severity != report.None {
			k.Diagnosis = j.saturation(&k.KeyFigures) + diagnoseIndex(j.index, k.Pattern, &k.KeyFigures, j.cfg.PartitionLimit)
		}
		return
	}
	k.Pattern = classify(keyShape{
		text:      string(e.Key[1:]),
		isString:  ddb.KeyType(e.Key[0]) == ddb.String,
		sortKeyed: e.Item != 0,
		manyItems: e.ManyItems,
	})
	if k.Severity != report.None {
		k.Diagnosis = j.saturation(&k.KeyFigures) + diagnose(k.Pattern, &k.KeyFigures, j.cfg.PartitionLimit, shardFacts{})
	}
}

// saturation is what a saturated key's diagnosis opens with; "" for any
// other key.
func (j judge) saturation(k *report.KeyFigures) string {
	if !k.Saturated {
		return ""
	}
	level, _ := j.cfg.saturation()
	return SaturatedText("writes", float64(level), "WCU", k.SaturatedSeconds, "; the shard count below is a lower bound") + " "
}

// SaturatedText is the sentence a key saturated on one side ("reads" or
// "writes") opens its diagnosis with, on the stream side and the client's
// alike: level units per second for seconds of the window, then tail.
func SaturatedText(side string, level float64, unit string, seconds int, tail string) string {
	return fmt.Sprintf("Saturated: successful %s pinned at the partition limit (at least %s %s/s for %d s of the window), so its %s are most likely being throttled and its true demand is at least what was observed%s.",
		side, levelText(level), unit, seconds, side, tail)
}

// levelText writes a saturation level as every figure for people is
// written (report.Rate), keeping the half unit a client's read level may
// have.
func levelText(level float64) string {
	if level != math.Trunc(level) {
		return report.Rate(math.Trunc(level)) + strconv.FormatFloat(level-math.Trunc(level), 'f', -1, 64)[1:]
	}
	return report.Rate(level)
}

// display renders a key for people and JSON: S as is, N as its canonical
// decimal, B as standard base64; or, with redaction, a keyed hash of the
// typed key, so the same key always gets the same stand-in.
func (j judge) display(typ ddb.KeyType, value []byte) string {
	if j.cfg.Redactor != nil {
		return j.cfg.Redactor.Key(byte(typ), value)
	}
	if typ == ddb.Binary {
		return base64.StdEncoding.EncodeToString(value)
	}
	return string(value)
}

// shardGroup is the shards of one logical key found among the candidates.
type shardGroup struct {
	base    string
	marked  bool
	members []int // indexes into entries/keys
	numbers []int
}

// shardedKeys finds write-sharded keys (BASE#SHARD_N and friends) among the
// candidates, judges each group as one logical key, and gives its flagged
// shards the group's diagnosis. It returns the flagged logical keys.
func (j judge) shardedKeys(entries []sketch.Entry, keys []report.KeyReport) []report.KeyReport {
	groups := map[string]*shardGroup{}
	var order []string
	for i, e := range entries {
		if ddb.KeyType(e.Key[0]) != ddb.String {
			continue
		}
		base, n, marked, ok := shardSuffix(string(e.Key[1:]))
		if !ok {
			continue
		}
		g := groups[base]
		if g == nil {
			g = &shardGroup{base: base}
			groups[base] = g
			order = append(order, base)
		}
		g.marked = g.marked || marked
		g.members = append(g.members, i)
		g.numbers = append(g.numbers, n)
	}
	var out []report.KeyReport
	for _, base := range order {
		g := groups[base]
		n, ok := g.shardCount()
		if !ok {
			continue
		}
		if k, flagged := j.logical(g, n, entries, keys); flagged {
			out = append(out, k)
		}
	}
	return out
}

// shardCount infers how many write shards the key has: suffixes are numbered
// 0…N-1 or 1…N. Unmarked suffixes (BASE#7) count as shards only when at
// least two are seen and they are dense, so that USER#123456 ids are not
// mistaken for shards.
func (g *shardGroup) shardCount() (int, bool) {
	lo, hi := slices.Min(g.numbers), slices.Max(g.numbers)
	n := hi + 1
	if lo > 0 {
		n = hi // numbered from 1
	}
	if g.marked {
		return max(n, len(g.numbers)), true
	}
	if len(g.numbers) < 2 || hi >= 1024 || len(g.numbers)*2 < n {
		return 0, false
	}
	return n, true
}

// logical judges the shards of a group as one logical key. It returns the
// key and whether it is flagged; a flagged key's flagged shards are told
// to look at it.
func (j judge) logical(g *shardGroup, shards int, entries []sketch.Entry, keys []report.KeyReport) (report.KeyReport, bool) {
	k, combined, worst := j.combine(g, entries, keys)
	deviation := unevenness(g, shards, keys, k.WCUUpper)
	k.RecommendedShards = RecommendedShards(combined, j.cfg.PartitionLimit)
	switch {
	case deviation > 0.20:
		k.Pattern = report.PatternShardedUneven
		k.RecommendedShards = max(k.RecommendedShards, shards)
	case k.RecommendedShards > shards:
		k.Pattern = report.PatternShardedTooFew
	default:
		return k, false // evenly spread over enough shards: the fix is working
	}
	k.Severity = worst.Worse(j.severity(k.Share, k.PeakWCUPerSecond))
	for _, i := range g.members {
		if keys[i].Saturated { // one shard pinned at the limit is the key's
			k.SaturatedSeconds = max(k.SaturatedSeconds, keys[i].SaturatedSeconds)
			j.saturate(&k.KeyFigures)
		}
	}
	if k.Severity == report.None {
		return k, false
	}
	k.Diagnosis = j.saturation(&k.KeyFigures) + diagnose(k.Pattern, &k.KeyFigures, j.cfg.PartitionLimit, shardFacts{count: shards, deviation: deviation, combinedPeak: combined})
	if j.index != "" {
		k.Diagnosis = "Index " + j.index + ": " + k.Diagnosis + backPressure
	}
	for _, i := range g.members {
		if keys[i].Severity != report.None {
			keys[i].Pattern = k.Pattern
			keys[i].RecommendedShards = k.RecommendedShards
			// k.Key is the display form, hashed under redaction.
			keys[i].Diagnosis = fmt.Sprintf("One of the %d write shards of %s (%s): this shard alone takes %.0f%% of the window's WCU, peaking at %s WCU/s. See %s for the fix.",
				shards, k.Key, strings.ReplaceAll(string(k.Pattern), "_", " "), keys[i].Share*100, report.Rate(keys[i].PeakWCUPerSecond), k.Key)
		}
	}
	return k, true
}

// combine adds up a group's shards into its logical key, unjudged; it
// returns the shards' peaks added up and their worst severity too.
func (j judge) combine(g *shardGroup, entries []sketch.Entry, keys []report.KeyReport) (k report.KeyReport, combined float64, worst report.Severity) {
	var lower, upper uint64
	var hottest float64
	parts := make([]report.ShardedKeyPart, 0, len(g.members))
	for _, i := range g.members {
		lower += entries[i].Lower
		upper += entries[i].Upper
		combined += keys[i].PeakWCUPerSecond
		hottest = max(hottest, keys[i].PeakWCUPerSecond)
		worst = worst.Worse(keys[i].Severity)
		parts = append(parts, report.ShardedKeyPart{Key: keys[i].Key, WCU: keys[i].WCU})
	}
	slices.SortFunc(parts, func(a, b report.ShardedKeyPart) int {
		return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Key, b.Key))
	})
	k = report.KeyReport{
		KeyFigures: report.KeyFigures{
			Key:             j.logicalName(g.base),
			Type:            string(rune(ddb.String)),
			WCU:             upper,
			WCULower:        lower,
			WCUUpper:        upper,
			Share:           j.share(upper),
			AvgWCUPerSecond: float64(upper) / j.seconds,
			// The partition cap applies to each shard: the logical key's
			// peak is its hottest shard's. The shard count needed follows
			// from the shards' peaks added up (an upper bound on the key's
			// peak second).
			PeakWCUPerSecond: hottest,
		},
		Shards: parts,
	}
	return k, combined, worst
}

// unevenness is the largest distance of a shard's WCU from the shards'
// mean, as a fraction of the mean. Shards that never showed up carry 0:
// they make the load uneven too.
func unevenness(g *shardGroup, shards int, keys []report.KeyReport, total uint64) float64 {
	mean := float64(total) / float64(shards)
	deviation := 0.0
	for _, m := range g.members {
		deviation = max(deviation, math.Abs(float64(keys[m].WCU)-mean))
	}
	if len(g.members) < shards {
		deviation = max(deviation, mean)
	}
	if mean > 0 {
		deviation /= mean
	}
	return deviation
}

func (j judge) logicalName(base string) string {
	if j.cfg.Redactor != nil {
		base = j.cfg.Redactor.Key(byte(ddb.String), []byte(base))
	}
	return base + "#<shard>"
}

// DisplayKey renders k as reports do under cfg: S as is, N as its
// canonical decimal, B as base64; with cfg.Redactor, a keyed hash.
func DisplayKey(cfg Config, k ddb.Key) string { return judge{cfg: cfg}.display(k.Type, k.Value) }
