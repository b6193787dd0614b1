package history

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/axiomhq/hyperloglog"

	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// ErrStep is returned for a summary whose window is longer than the step
// or does not fit in one: its keys' bounds cannot be split between steps.
var ErrStep = errors.New("history: window does not fit in one step")

// ErrTable is returned for a summary of another table, or of another index
// (or of the table itself, to an index's Merger).
var ErrTable = errors.New("history: summary of another table or index")

// Merger adds summaries of one table, or of one of its global secondary
// indexes, up into steps: tumbling spans of Step, aligned to multiples of
// Step in Unix time, across every stream shard. Summaries may come in any
// order. A Merger is not safe for concurrent use.
type Merger struct {
	table string
	index string // "" for the table itself
	step  int64  // seconds
	top   int
	steps map[int64]*stepAcc
}

type stepAcc struct {
	records, ttl, malformed, late, wcu uint64
	internal                           uint64 // records lost to a bug in hotkeys
	ttlWCU                             uint64 // an index's: its entries removed by TTL deletes
	lowerBound, terminatedEarly        bool
	summaries                          int
	ceilings                           uint64 // sum of the summaries' OtherKeysWCUUpper
	keys                               map[keyID]*keyAcc
	shards                             map[string]*report.ShardReport
	regs                               []byte              // dense registers united, or nil
	sparse                             *hyperloglog.Sketch // sparse sketches united, or nil
	missingHLL                         bool                // some summary came without its sketch
	distinctFloor                      uint64              // the largest single estimate: the union holds at least that
}

type keyAcc struct {
	k        report.KeyReport // bounds summed where listed; verdict the worst
	ceilings uint64           // of the summaries that listed it
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

// Add merges one summary in. A summary of another table or index is
// refused with ErrTable, one whose window does not fit in one step with
// ErrStep; the Merger is then unchanged.
func (m *Merger) Add(s *Summary) error {
	if s.Table != m.table || s.Index != m.index {
		return fmt.Errorf("%w: %s, not %s", ErrTable, Source(s.Table, s.Index), Source(m.table, m.index))
	}
	start, end := s.Start.Unix(), s.End.Unix()
	at := report.WindowStart(s.Start, time.Duration(m.step)*time.Second).Unix()
	if end > at+m.step || end <= start {
		return fmt.Errorf("%w: window %s–%s, step %ds", ErrStep, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), m.step)
	}
	// A dense sketch merges register by register; a sparse one (a window
	// of a few thousand keys) is decoded, before anything changes.
	regs := denseRegisters(s.Distinct)
	var sparse *hyperloglog.Sketch
	if regs == nil && len(s.Distinct) > 0 {
		var err error
		if sparse, err = decodeHLL(s.Distinct); err != nil {
			return err
		}
	}
	st := m.steps[at]
	if st == nil {
		st = &stepAcc{keys: map[keyID]*keyAcc{}, shards: map[string]*report.ShardReport{}}
	}
	if err := st.addDistinct(regs, sparse); err != nil {
		return err
	}
	m.steps[at] = st
	st.addTotals(s)
	for _, k := range s.Keys {
		st.addKey(k, s.OtherKeysWCUUpper)
	}
	return nil
}

// addDistinct unites a summary's distinct-key sketch, dense registers or
// a sparse sketch (or neither, when the summary came without one), with
// the step's.
func (st *stepAcc) addDistinct(regs []byte, sparse *hyperloglog.Sketch) error {
	switch {
	case regs != nil:
		if st.regs == nil {
			st.regs = make([]byte, hllRegisters)
		}
		for i, r := range regs {
			st.regs[i] = max(st.regs[i], r)
		}
	case sparse != nil && st.sparse == nil:
		st.sparse = sparse
	case sparse != nil:
		// Both of one precision (decodeHLL checks): cannot fail.
		if err := st.sparse.Merge(sparse); err != nil {
			return fmt.Errorf("%w: distinct-key sketch: %w", ErrCorrupt, err)
		}
	default:
		st.missingHLL = true
	}
	return nil
}

// addTotals adds a summary's counts, flags and shards' load to the step's.
func (st *stepAcc) addTotals(s *Summary) {
	st.summaries++
	st.records += s.Records
	st.ttl += s.TTLDeletes
	st.malformed += s.Malformed
	st.internal += s.InternalErrors
	st.late += s.Late
	st.wcu += s.WCU
	st.ttlWCU += s.TTLWCU
	st.lowerBound = st.lowerBound || s.WCUIsLowerBound
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

// addKey adds a key one summary listed, with that summary's ceiling on
// the keys it left out.
func (st *stepAcc) addKey(k report.KeyReport, ceiling uint64) {
	id := keyID{k.Type, k.Key, len(k.Shards) > 0}
	acc := st.keys[id]
	if acc == nil {
		acc = &keyAcc{k: report.KeyReport{KeyFigures: report.KeyFigures{Key: k.Key, Type: k.Type}}}
		st.keys[id] = acc
	}
	acc.ceilings += ceiling
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

// Reports returns one report per step that had a summary, oldest first, in
// the JSON shape of replay: the keys table-wide, with bounds; the stream
// shards merged in Shards.
//
// A physical key's bounds add the bounds of the summaries that listed it
// and [0, OtherKeysWCUUpper] of those that did not. Its verdict is the
// worst any shard-window gave it, with that window's diagnosis; its peak
// the highest. TopKeys are the top heaviest by upper bound;
// OtherKeysWCUUpper bounds every key they leave out. DistinctKeys is the
// union of the summaries' HyperLogLogs, or, when some summary came without
// one, the larger of that and the largest single estimate.
func (m *Merger) Reports() []report.Report {
	starts := make([]int64, 0, len(m.steps))
	for at := range m.steps {
		starts = append(starts, at)
	}
	slices.Sort(starts)
	reps := make([]report.Report, 0, len(starts))
	for _, at := range starts {
		reps = append(reps, m.report(at, m.steps[at]))
	}
	return reps
}

func (m *Merger) report(at int64, st *stepAcc) report.Report {
	rep := report.Report{
		Window:  report.Window{Table: m.table, Index: m.index, Start: time.Unix(at, 0).UTC(), End: time.Unix(at+m.step, 0).UTC()},
		Records: st.records, TTLDeletes: st.ttl, TTLWCU: st.ttlWCU, Malformed: st.malformed, InternalErrors: st.internal, Late: st.late,
		WCU: st.wcu, WCUIsLowerBound: st.lowerBound, TerminatedEarly: st.terminatedEarly,
		HotKeys: []report.KeyReport{}, TopKeys: []report.KeyReport{}, Shards: []report.ShardReport{},
	}
	if hll := st.distinct(); hll != nil {
		rep.DistinctKeys = hll.Estimate()
	}
	if (st.regs == nil && st.sparse == nil) || st.missingHLL {
		rep.DistinctKeys = max(rep.DistinctKeys, st.distinctFloor)
	}
	hot, physical := st.keyReports(float64(m.step))
	rep.HotKeys = append(rep.HotKeys, hot...)
	rep.TopKeys = append(rep.TopKeys, physical[:min(m.top, len(physical))]...)
	// Every key left out: either listed somewhere but ranked below (at
	// most the first one left out), or listed nowhere (at most the sum of
	// the ceilings).
	rep.OtherKeysWCUUpper = st.ceilings
	if len(physical) > m.top {
		rep.OtherKeysWCUUpper = max(rep.OtherKeysWCUUpper, physical[m.top].WCUUpper)
	}
	for _, sh := range st.shards {
		rep.Shards = append(rep.Shards, *sh)
	}
	slices.SortFunc(rep.Shards, func(a, b report.ShardReport) int {
		return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(a.Shard, b.Shard))
	})
	return rep
}

// keyReports returns the step's flagged keys and its physical keys (not
// logical sharded ones), each heaviest first, over a step of seconds.
func (st *stepAcc) keyReports(seconds float64) (hot, physical []report.KeyReport) {
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
		k.WCU = k.WCUUpper
		if st.wcu > 0 {
			k.Share = float64(k.WCUUpper) / float64(st.wcu)
		}
		k.AvgWCUPerSecond = float64(k.WCUUpper) / seconds
		if k.Severity != report.None {
			hot = append(hot, k)
		}
		if acc.parts == nil {
			physical = append(physical, k)
		}
	}
	byWCU := func(a, b report.KeyReport) int {
		return cmp.Or(cmp.Compare(b.WCU, a.WCU), cmp.Compare(b.WCULower, a.WCULower), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Type, b.Type))
	}
	slices.SortFunc(hot, byWCU)
	slices.SortFunc(physical, byWCU)
	return hot, physical
}

// distinct unites the step's dense registers and sparse sketches.
func (st *stepAcc) distinct() *hyperloglog.Sketch {
	if st.regs == nil {
		return st.sparse
	}
	raw := make([]byte, hllHeader, hllHeader+hllRegisters)
	raw[0], raw[1] = 2, sketch.HLLPrecision
	binary.BigEndian.PutUint32(raw[4:], hllRegisters)
	dense, err := decodeHLL(append(raw, st.regs...))
	if err != nil {
		panic(err) // registers taken from checked sketches
	}
	if st.sparse != nil {
		if err := dense.Merge(st.sparse); err != nil {
			panic(err) // equal precisions
		}
	}
	return dense
}
