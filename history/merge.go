package history

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// ErrStep is returned for a summary whose window is longer than the step
// or does not fit in one: its keys' bounds cannot be split between steps.
var ErrStep = errors.New("history: window does not fit in one step")

// ErrTable is returned for a summary of another table, or of another index
// (or of the table itself, to an index's Merger).
var ErrTable = errors.New("history: summary of another table or index")

// ErrFlushed is returned for a summary of a step Flush already returned:
// its figures are out, and adding to them would go unseen.
var ErrFlushed = errors.New("history: summary of a step already flushed")

// Merger adds summaries of one table, or of one of its global secondary
// indexes, up into steps: tumbling spans of Step, aligned to multiples of
// Step in Unix time, across every stream shard. Summaries may come in any
// order until Flush; Flush returns and forgets the steps that have ended,
// so that a reader that adds summaries in order of window start and
// flushes up to each one's start holds at most the steps that summary
// can still add to, whatever the range. A Merger is not safe for
// concurrent use.
type Merger struct {
	table string
	index string // "" for the table itself
	step  int64  // seconds
	top   int
	steps map[int64]*stepAcc
	// flushed: every step starting before it was returned by Flush.
	flushed    int64
	hasFlushed bool
}

type stepAcc struct {
	totals          report.Totals
	terminatedEarly bool
	sources         uint64 // shard windows merged in
	ceilings        uint64 // sum of the summaries' OtherKeysWCUUpper
	keys            map[keyID]*keyAcc
	shards          map[string]*report.ShardReport
	distinct        sketch.DistinctUnion // the summaries' distinct-key sketches united
	missingHLL      bool                 // some summary came without its sketch, or with part of one
	distinctFloor   uint64               // the largest single estimate: the union holds at least that
	// pending is the step's one summary while it has one, its keys not yet
	// in keys: a step of one summary (1-minute steps read from rollups)
	// takes them as they are, sorted, instead of through the map. When it
	// is a rollup, whose DistinctKeys this package computed from its own
	// sketch, the step's distinct keys are that rollup's too: no estimate
	// to redo (a day of 1-minute steps from rollups is 1,440 of them).
	pending *Summary
}

type keyAcc struct {
	// k: bounds and estimate summed where listed; verdict the worst
	k        report.KeyReport
	ceilings uint64 // of the summaries that listed it
	parts    map[string]uint64
}

// NewMerger returns a Merger for table, or for its global secondary index
// index when index is not "", into steps of step (whole seconds, at least
// one), listing the top heaviest keys of each step.
func NewMerger(table, index string, step time.Duration, top int) (*Merger, error) {
	if step < time.Second || step%time.Second != 0 {
		return nil, fmt.Errorf("history: step %s: want whole seconds, at least 1s", step)
	}
	return &Merger{table: table, index: index, step: int64(step / time.Second), top: max(0, top), steps: map[int64]*stepAcc{}}, nil
}

// Add merges one summary in: a shard's window or a rollup of any number of
// them. A summary of another table or index is refused with ErrTable, one
// whose window does not fit in one step with ErrStep, one of a step
// already flushed with ErrFlushed; the Merger is then unchanged.
func (m *Merger) Add(s *Summary) error {
	if s.Table != m.table || s.Index != m.index {
		return fmt.Errorf("%w: %s, not %s", ErrTable, Source(s.Table, s.Index), Source(m.table, m.index))
	}
	start, end := s.Start.Unix(), s.End.Unix()
	at := report.WindowStart(s.Start, time.Duration(m.step)*time.Second).Unix()
	if end > at+m.step || end <= start {
		return fmt.Errorf("%w: window %s–%s, step %ds", ErrStep, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), m.step)
	}
	if m.hasFlushed && at < m.flushed {
		return fmt.Errorf("%w: %s, window %s", ErrFlushed, Source(s.Table, s.Index), s.Start.Format(time.RFC3339))
	}
	st := m.steps[at]
	first := st == nil
	if first {
		st = &stepAcc{keys: map[keyID]*keyAcc{}, shards: map[string]*report.ShardReport{}}
	}
	// A sketch that does not unite leaves the step as it was (a new one is
	// not kept): nothing has changed yet.
	if len(s.Distinct) == 0 {
		st.missingHLL = true
	} else if err := st.distinct.Add(s.Distinct); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	m.steps[at] = st
	st.missingHLL = st.missingHLL || s.DistinctPartial
	st.addTotals(s)
	if first {
		st.pending = s
		return nil
	}
	st.spill()
	for _, k := range s.Keys {
		st.addKey(k, s)
	}
	return nil
}

// spill adds the keys of the pending summary to the map.
func (st *stepAcc) spill() {
	if p := st.pending; p != nil {
		st.pending = nil
		for _, k := range p.Keys {
			st.addKey(k, p)
		}
	}
}

// Flush returns the merged summary of every step that ends at or before
// t, oldest first, and forgets them: see Summary.Report for what a merged
// summary holds. Afterwards, a summary of a step that starts before the
// last one returned is refused with ErrFlushed.
func (m *Merger) Flush(t time.Time) []*Summary {
	limit := t.Unix() - m.step
	var starts []int64
	for at := range m.steps {
		if at <= limit {
			starts = append(starts, at)
		}
	}
	slices.Sort(starts)
	out := make([]*Summary, 0, len(starts))
	for _, at := range starts {
		out = append(out, m.summary(at, m.steps[at]))
		delete(m.steps, at)
	}
	if len(starts) > 0 && (!m.hasFlushed || starts[len(starts)-1]+m.step > m.flushed) {
		m.flushed, m.hasFlushed = starts[len(starts)-1]+m.step, true
	}
	return out
}

// Reports flushes every step the Merger holds and returns their reports,
// oldest first, in the JSON shape of replay: see Summary.Report.
func (m *Merger) Reports() []report.Report {
	sums := m.Flush(time.Unix(math.MaxInt64/2, 0))
	reps := make([]report.Report, 0, len(sums))
	for _, s := range sums {
		reps = append(reps, s.Report(m.top))
	}
	return reps
}

// addTotals adds a summary's counts, flags and shards' load to the step's.
func (st *stepAcc) addTotals(s *Summary) {
	st.sources += max(1, s.Sources)
	st.totals.Add(s.Totals)
	st.terminatedEarly = st.terminatedEarly || s.TerminatedEarly
	st.ceilings += s.OtherKeysWCUUpper
	st.distinctFloor = max(st.distinctFloor, s.DistinctKeys)
	for _, sh := range s.Shards {
		acc := st.shards[sh.Shard]
		if acc == nil {
			acc = &report.ShardReport{Shard: sh.Shard}
			st.shards[sh.Shard] = acc
		}
		acc.Records += sh.Records
		acc.WCU += sh.WCU
		acc.PeakWCUPerSecond = max(acc.PeakWCUPerSecond, sh.PeakWCUPerSecond)
	}
}

// addKey adds a key summary s listed, with s's ceiling on the keys it
// left out (which goes into the key's upper bound only where another
// summary did not list it) and s's estimate of it (Estimate).
func (st *stepAcc) addKey(k report.KeyReport, s *Summary) {
	id := keyID{k.Type, k.Key, len(k.Shards) > 0}
	acc := st.keys[id]
	if acc == nil {
		acc = &keyAcc{k: report.KeyReport{KeyFigures: report.KeyFigures{Key: k.Key, Type: k.Type}}}
		st.keys[id] = acc
	}
	acc.ceilings += s.OtherKeysWCUUpper
	acc.k.WCU += Estimate(k, s)
	acc.k.WCULower += k.WCULower
	acc.k.WCUUpper += k.WCUUpper
	acc.k.PeakWCUPerSecond = max(acc.k.PeakWCUPerSecond, k.PeakWCUPerSecond)
	acc.k.RecommendedShards = max(acc.k.RecommendedShards, k.RecommendedShards)
	if k.Severity.Rank() > acc.k.Severity.Rank() {
		acc.k.Severity, acc.k.Pattern, acc.k.Diagnosis = k.Severity, k.Pattern, k.Diagnosis
	} else if acc.k.Pattern == "" {
		acc.k.Pattern = k.Pattern
	}
	for _, p := range k.Shards {
		if acc.parts == nil {
			acc.parts = map[string]uint64{}
		}
		acc.parts[p.Key] += p.WCU
	}
}

// summary returns the merged summary of the step starting at at: its
// totals, every key any summary listed with its bounds (keys the step's
// summaries left out are each under OtherKeysWCUUpper, the sum of their
// ceilings), heaviest first, the shards' load, and the united sketch.
func (m *Merger) summary(at int64, st *stepAcc) *Summary {
	s := &Summary{
		Table: m.table, Index: m.index, Start: time.Unix(at, 0).UTC(), End: time.Unix(at+m.step, 0).UTC(),
		Totals: st.totals, TerminatedEarly: st.terminatedEarly,
		OtherKeysWCUUpper: st.ceilings, Sources: st.sources,
	}
	if p := st.pending; p != nil && p.Sources > 0 {
		s.DistinctKeys, s.Distinct, s.DistinctPartial = p.DistinctKeys, slices.Clone(p.Distinct), p.DistinctPartial && len(p.Distinct) > 0
	} else if !st.distinct.Empty() {
		s.DistinctKeys, s.Distinct = st.distinct.Encode()
		s.DistinctPartial = st.missingHLL
		if st.missingHLL {
			s.DistinctKeys = max(s.DistinctKeys, st.distinctFloor)
		}
	} else {
		s.DistinctKeys = st.distinctFloor
	}
	if st.pending != nil {
		s.Keys = onlyKeys(st.pending)
	} else {
		s.Keys = st.keyList()
	}
	s.Shards = make([]report.ShardReport, 0, len(st.shards))
	for _, sh := range st.shards {
		s.Shards = append(s.Shards, *sh)
	}
	slices.SortFunc(s.Shards, byLoad)
	return s
}

// keyList returns the step's keys, heaviest first: a physical key's
// bounds add the bounds of the summaries that listed it and [0,
// OtherKeysWCUUpper] of those that did not; a logical sharded key's add
// its parts.
func (st *stepAcc) keyList() []report.KeyReport {
	keys := make([]report.KeyReport, 0, len(st.keys))
	for _, acc := range st.keys {
		k := acc.k
		if acc.parts == nil {
			// Where a summary did not list it, it wrote at most that
			// summary's ceiling.
			k.WCUUpper += st.ceilings - acc.ceilings
		} else {
			for key, wcu := range acc.parts {
				k.Shards = append(k.Shards, report.ShardedKeyPart{Key: key, WCU: wcu})
			}
			slices.SortFunc(k.Shards, func(a, b report.ShardedKeyPart) int {
				return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Key, b.Key))
			})
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, byWCU)
	return keys
}

// Estimate returns summary s's best estimate of the WCU key k (one of
// s.Keys) wrote: what s says (KeyFigures.WCU, the upper bound when
// unset), within k's bounds, and, for one stream shard's window (Sources
// 0), at most what one partition can write in the window
// (ddb.PartitionWriteUnits a second). A merged step's estimate adds those
// of the summaries that listed the key, so it never exceeds what the
// partitions behind them could carry; a summary that did not list the
// key widens its upper bound (by its ceiling) and leaves the estimate as
// it is. Unless its bounds say otherwise: the lower bound is a proof, and
// wins over the partition's limit.
func Estimate(k report.KeyReport, s *Summary) uint64 {
	e := k.WCUUpper
	if k.WCU > 0 && k.WCU < e {
		e = k.WCU
	}
	if s.Sources == 0 && len(k.Shards) == 0 {
		if secs := s.End.Sub(s.Start) / time.Second; secs > 0 {
			e = min(e, uint64(secs)*ddb.PartitionWriteUnits)
		}
	}
	return max(e, k.WCULower)
}

// onlyKeys returns the keys of a step of one summary, s: what keyList
// gives once s's keys are in the map, without the map. With one summary a
// key's bounds are its own (the ceilings of the summaries that did not
// list it add nothing), its verdict its own (its diagnosis only when it
// is flagged), and a logical key's parts its own, added up by key.
func onlyKeys(s *Summary) []report.KeyReport {
	keys := make([]report.KeyReport, len(s.Keys))
	for i, k := range s.Keys {
		out := report.KeyReport{KeyFigures: report.KeyFigures{Key: k.Key, Type: k.Type, WCU: Estimate(k, s), WCULower: k.WCULower, WCUUpper: k.WCUUpper,
			PeakWCUPerSecond: k.PeakWCUPerSecond, RecommendedShards: k.RecommendedShards, Pattern: k.Pattern}}
		if k.Severity.Rank() > 0 {
			out.Severity, out.Diagnosis = k.Severity, k.Diagnosis
		}
		if len(k.Shards) > 0 {
			parts := map[string]uint64{}
			for _, p := range k.Shards {
				parts[p.Key] += p.WCU
			}
			for key, wcu := range parts {
				out.Shards = append(out.Shards, report.ShardedKeyPart{Key: key, WCU: wcu})
			}
			slices.SortFunc(out.Shards, func(a, b report.ShardedKeyPart) int {
				return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Key, b.Key))
			})
		}
		keys[i] = out
	}
	if !slices.IsSortedFunc(keys, byWCU) {
		slices.SortFunc(keys, byWCU)
	}
	return keys
}

// byWCU orders keys heaviest first: by estimate, then upper bound, then
// lower bound, then key and type, so that the order is the same on every
// run.
func byWCU(a, b report.KeyReport) int {
	return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(b.WCUUpper, a.WCUUpper), cmp.Compare(b.WCULower, a.WCULower),
		cmp.Compare(a.Key, b.Key), cmp.Compare(a.Type, b.Type))
}

// byLoad orders shards busiest first: by WCU, then name, so that the
// order is the same on every run.
func byLoad(a, b report.ShardReport) int {
	return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Shard, b.Shard))
}
