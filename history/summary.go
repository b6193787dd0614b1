// Package history stores what a closed window of one stream shard showed
// (a Summary of at most MaxEncodedSize bytes) and merges stored summaries
// across shards and into steps of any length, with bounds that still
// bracket the truth.
//
// Keys merge as Agarwal et al., "Mergeable Summaries" (PODS 2012), allow
// for summaries that keep bounds: a summary that lists a key adds its
// [lower, upper]; one that does not adds [0, its ceiling], the bound it
// keeps on every key it left out. Distinct keys merge as HyperLogLogs do
// (Flajolet et al., 2007): by taking the union of their registers.
package history

import (
	"cmp"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Summary is one stream shard's closed window: totals, the heaviest keys
// with bounds and peaks, the findings, the shard's load and the
// distinct-key sketch.
type Summary struct {
	Table string
	// Index is the global secondary index the window is of (the table's
	// writes to it, see detector.NewIndexWindow); "" for the table itself.
	Index string
	Shard string // the stream shard; "" when the records did not say
	Start time.Time
	End   time.Time

	// Totals are the window's counters, as its report's. InternalErrors
	// above 0 says the window is incomplete, and the stored summary says
	// so; TTLWCU is 0 for a table.
	report.Totals
	TerminatedEarly bool

	// DistinctKeys is the window's own estimate; Distinct the HyperLogLog
	// it came from, as sketch.Summary.AppendDistinct encodes it, which
	// merges (sketch.DistinctUnion).
	DistinctKeys uint64
	Distinct     []byte

	// Keys are the heaviest keys and every flagged one (logical sharded
	// keys included, with their parts), heaviest first. No key missing
	// from Keys wrote more than OtherKeysWCUUpper in the window.
	Keys              []report.KeyReport
	OtherKeysWCUUpper uint64

	Shards []report.ShardReport // the load of the shard(s) the window covered

	// Trimmed says keys were dropped to fit MaxEncodedSize, or from the
	// window itself to fit the Lambda's state (report.Report.Trimmed);
	// their bound went into OtherKeysWCUUpper.
	Trimmed bool

	// Sources is 0 for one stream shard's own window; for a merged step
	// (a rollup, see Merger.Flush) it is how many shard windows were
	// merged into it, at least 1.
	Sources uint64
	// DistinctPartial says some window merged into this one came without
	// its distinct-key sketch: Distinct is the union of the others, and
	// DistinctKeys at least the largest single estimate.
	DistinctPartial bool
}

// FromReport makes the summary of a window from its report and the
// encoding of its distinct-key sketch (detector.Window.AppendDistinct). The
// report's keys are taken as they are, so a report made with redaction
// makes a redacted summary.
func FromReport(rep report.Report, shard string, distinct []byte) *Summary {
	s := &Summary{
		Table: rep.Table, Index: rep.Index, Shard: shard, Start: rep.Start.UTC(), End: rep.End.UTC(),
		Totals: rep.Totals, TerminatedEarly: rep.TerminatedEarly, Trimmed: rep.Trimmed,
		DistinctKeys: rep.DistinctKeys, Distinct: distinct,
		OtherKeysWCUUpper: rep.OtherKeysWCUUpper,
		Shards:            slices.Clone(rep.Shards),
	}
	seen := map[keyID]bool{}
	for _, list := range [][]report.KeyReport{rep.HotKeys, rep.TopKeys} {
		for _, k := range list {
			id := keyID{k.Type, k.Key, len(k.Shards) > 0}
			if !seen[id] {
				seen[id] = true
				s.Keys = append(s.Keys, k)
			}
		}
	}
	// A flagged key beyond the top keys is still a key left out of
	// TopKeys: the ceiling already covers it, and listing it only tightens.
	slices.SortStableFunc(s.Keys, func(a, b report.KeyReport) int {
		return cmp.Or(cmp.Compare(b.WCUUpper, a.WCUUpper), cmp.Compare(a.Key, b.Key))
	})
	return s
}

// Source names what a summary is of, for messages: the table, or "TABLE
// index INDEX" for one of its global secondary indexes.
func Source(table, index string) string {
	if index == "" {
		return table
	}
	return table + " index " + index
}

// keyID tells keys apart: the string "1" and the number 1 are two keys, and
// a logical sharded key is not a physical one.
type keyID struct {
	typ, key string
	logical  bool
}

// Report returns the report of s in the JSON shape of replay, listing its
// top heaviest physical keys: for a merged step (Merger.Flush), the keys
// table-wide, with bounds; the stream shards merged in Shards.
//
// In a merged step, a physical key's bounds add the bounds of the
// summaries that listed it and [0, OtherKeysWCUUpper] of those that did
// not; its estimate (WCU, and the share and average rate made from it)
// adds only the estimates of those that listed it (see Estimate). Its
// verdict is the worst any shard-window gave it, with that window's
// diagnosis; its peak the highest. TopKeys are the top heaviest by
// estimate; OtherKeysWCUUpper bounds every key they leave out.
// DistinctKeys is the union of the summaries' HyperLogLogs, or, when some
// summary came without one, the larger of that and the largest single
// estimate.
func (s *Summary) Report(top int) report.Report {
	rep := report.Report{
		Window: report.Window{Table: s.Table, Index: s.Index, Start: s.Start, End: s.End},
		Totals: s.Totals, TerminatedEarly: s.TerminatedEarly, DistinctKeys: s.DistinctKeys,
		HotKeys: []report.KeyReport{}, TopKeys: []report.KeyReport{}, Shards: append([]report.ShardReport{}, s.Shards...),
	}
	seconds := s.End.Sub(s.Start).Seconds()
	keys, copied := s.withEstimates()
	if !slices.IsSortedFunc(keys, byWCU) { // a merged step's come sorted
		if !copied {
			keys = slices.Clone(keys)
		}
		slices.SortStableFunc(keys, byWCU)
	}
	decorate := func(k report.KeyReport) report.KeyReport {
		if s.WCU > 0 {
			k.Share = float64(k.WCU) / float64(s.WCU)
		}
		k.AvgWCUPerSecond = float64(k.WCU) / seconds
		return k
	}
	// Every key left out of TopKeys: either listed but ranked below (at
	// most its upper bound), or not listed (at most the ceiling).
	rep.OtherKeysWCUUpper = s.OtherKeysWCUUpper
	top, physical := max(0, top), 0
	for _, k := range keys {
		if k.Severity != report.None {
			rep.HotKeys = append(rep.HotKeys, decorate(k))
		}
		if len(k.Shards) > 0 {
			continue
		}
		if physical < top {
			rep.TopKeys = append(rep.TopKeys, decorate(k))
		} else {
			rep.OtherKeysWCUUpper = max(rep.OtherKeysWCUUpper, k.WCUUpper)
		}
		physical++
	}
	// A summary does not hold the limit its windows were judged by: the
	// keys' headroom is against DynamoDB's; a reader configured with
	// another limit sets it again (report.Report.SetHeadroom).
	rep.SetHeadroom(ddb.PartitionWriteUnits)
	return rep
}

// withEstimates returns s.Keys with each key's WCU its Estimate: s.Keys
// itself when they all are (a merged step's), else a copy (copied).
func (s *Summary) withEstimates() (keys []report.KeyReport, copied bool) {
	for i, k := range s.Keys {
		if Estimate(k, s) == k.WCU {
			continue
		}
		keys = slices.Clone(s.Keys)
		for j := i; j < len(keys); j++ {
			keys[j].WCU = Estimate(keys[j], s)
		}
		return keys, true
	}
	return s.Keys, false
}
