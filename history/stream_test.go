package history

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/report"
)

// held returns how many steps m holds, and how many keys across them: what
// its memory grows with.
func (m *Merger) held() (steps, keys int) {
	for _, st := range m.steps {
		keys += len(st.keys)
	}
	return len(m.steps), keys
}

// TestFlushHoldsOneStep reads an hour of four shards' windows in order of
// window start, as store.Read hands them, and flushes up to each
// window's start: the merger never holds more than the one step the window
// falls in (nor more keys than the busiest step has), whatever the range,
// and the flushed steps are exactly what merging everything at the end
// gives.
func TestFlushHoldsOneStep(t *testing.T) {
	st := newStream(t, 5, 4, 60)
	for _, step := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute} {
		m, _ := NewMerger("Orders", "", step, 5)
		all, _ := NewMerger("Orders", "", step, 5)
		var got []report.Report
		maxSteps, maxKeys := 0, 0
		for _, s := range st.summaries {
			for _, f := range m.Flush(s.Start) {
				got = append(got, f.Report(5))
			}
			if err := m.Add(s); err != nil {
				t.Fatal(err)
			}
			if err := all.Add(s); err != nil {
				t.Fatal(err)
			}
			steps, keys := m.held()
			maxSteps, maxKeys = max(maxSteps, steps), max(maxKeys, keys)
		}
		got = append(got, m.Reports()...)
		_, allKeys := all.held()
		want := all.Reports()
		if maxSteps != 1 {
			t.Errorf("step %s: held up to %d steps, want 1", step, maxSteps)
		}
		if n := int(time.Hour / step); len(want) != n || maxKeys > allKeys/n*2 {
			t.Errorf("step %s: held up to %d keys at once, against %d in all %d steps", step, maxKeys, allKeys, len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("step %s: flushed as it went (-at the end +flushed):\n%s", step, diff)
		}
		if len(m.steps) != 0 {
			t.Errorf("step %s: %d steps live after Reports", step, len(m.steps))
		}
		// A window of a step already out is refused, and changes nothing.
		if err := m.Add(st.summaries[0]); !errors.Is(err, ErrFlushed) || len(m.steps) != 0 {
			t.Errorf("step %s: a window of a flushed step: %v, %d live; want ErrFlushed, none", step, err, len(m.steps))
		}
	}
}

// TestFlushAnyOrderWithinAStep: summaries may come in any order within the
// steps not yet flushed; Flush returns only the steps that have ended.
func TestFlushAnyOrderWithinAStep(t *testing.T) {
	st := newStream(t, 6, 2, 4)
	m, _ := NewMerger("Orders", "", 2*time.Minute, 5)
	for i := len(st.summaries) - 1; i >= 0; i-- {
		if err := m.Add(st.summaries[i]); err != nil {
			t.Fatal(err)
		}
	}
	if out := m.Flush(t0.Add(3 * time.Minute)); len(out) != 1 || !out[0].Start.Equal(t0) || len(m.steps) != 1 {
		t.Fatalf("flush at 3 min: %d steps out, %d live; want the first out, one live", len(out), len(m.steps))
	}
	if out := m.Flush(t0.Add(3 * time.Minute)); len(out) != 0 {
		t.Errorf("a second flush at the same time returned %d steps", len(out))
	}
	if out := m.Flush(time.Unix(math.MaxInt64/2, 0)); len(out) != 1 || out[0].Sources != 4 {
		t.Errorf("final flush: %d steps; want one of 4 sources", len(out))
	}
}

// TestRollupsMergeLikeShards rolls four shards' 1-minute windows up into
// one stored rollup per minute (kept to 3 keys beside the flagged ones,
// through MarshalRollup), and merges the rollups into 5-minute
// steps: every step brackets the truth, its totals and distinct keys are
// those of the shards' windows merged directly, and each key's bounds
// contain the direct merge's (a rollup can only loosen them).
func TestRollupsMergeLikeShards(t *testing.T) {
	st := newStream(t, 11, 3, 10)
	minutes, _ := NewMerger("Orders", "", time.Minute, 5)
	direct, _ := NewMerger("Orders", "", 5*time.Minute, 5)
	fromRollups, _ := NewMerger("Orders", "", 5*time.Minute, 5)
	// A step of one rollup reports what that rollup's step did.
	perMinute, _ := NewMerger("Orders", "", time.Minute, 5)
	var wantMinutes []report.Report
	for _, s := range st.summaries {
		if err := minutes.Add(s); err != nil {
			t.Fatal(err)
		}
		if err := direct.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range minutes.Flush(time.Unix(math.MaxInt64/2, 0)) {
		if r.Sources != 3 {
			t.Fatalf("rollup of %s: %d sources, want 3", r.Start.Format("15:04"), r.Sources)
		}
		r.Compact(3, 3)
		wantMinutes = append(wantMinutes, r.Report(5))
		back := storedRollup(t, r)
		if back.Version() < version4 || len(back.Shards) != 3 || countOthers(back.Keys, back.WCU) > 3 {
			t.Fatalf("stored rollup: version %d, shards %+v", back.Version(), back.Shards)
		}
		if err := fromRollups.Add(back); err != nil {
			t.Fatal(err)
		}
		if err := perMinute.Add(back); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(wantMinutes, perMinute.Reports()); diff != "" {
		t.Errorf("1-minute steps of one stored rollup each (-the rollups +merged again):\n%s", diff)
	}
	want, got := direct.Reports(), fromRollups.Reports()
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("%d steps from rollups, %d direct; want 2", len(got), len(want))
	}
	for i, rep := range got {
		checkStep(t, st, rep, 5*time.Minute)
		w := want[i]
		if rep.WCU != w.WCU || rep.Records != w.Records || rep.DistinctKeys != w.DistinctKeys {
			t.Errorf("step %d: WCU %d, records %d, distinct %d from rollups; %d, %d, %d direct", i, rep.WCU, rep.Records, rep.DistinctKeys, w.WCU, w.Records, w.DistinctKeys)
		}
		direct := map[string]report.KeyReport{}
		for _, k := range w.TopKeys {
			direct[k.Key] = k
		}
		for _, k := range rep.TopKeys {
			if d, ok := direct[k.Key]; ok && (k.WCULower > d.WCULower || k.WCUUpper < d.WCUUpper) {
				t.Errorf("step %d: %s [%d, %d] from rollups, tighter than [%d, %d] direct", i, k.Key, k.WCULower, k.WCUUpper, d.WCULower, d.WCUUpper)
			}
		}
		if rep.OtherKeysWCUUpper < w.OtherKeysWCUUpper {
			t.Errorf("step %d: other keys under %d from rollups, %d direct", i, rep.OtherKeysWCUUpper, w.OtherKeysWCUUpper)
		}
	}
}

// TestCompact keeps the flagged keys and the heaviest others, raises the
// ceiling over every physical key it drops, and sums the shards it drops
// into OtherShards, itself merged with an OtherShards already there.
func TestCompact(t *testing.T) {
	key := func(name string, upper uint64, sev report.Severity, parts ...report.ShardedKeyPart) report.KeyReport {
		return report.KeyReport{KeyFigures: report.KeyFigures{Key: name, Type: "S", WCU: upper, WCULower: upper / 2, WCUUpper: upper, Severity: sev}, Shards: parts}
	}
	s := Summary{Table: "T", Start: t0, End: t0.Add(time.Minute), Sources: 9, OtherKeysWCUUpper: 5,
		Keys: []report.KeyReport{key("A", 100, report.None), key("B", 90, report.None), key("L", 80, report.None, report.ShardedKeyPart{Key: "L#0", WCU: 80}),
			key("C", 70, report.None), key("D", 60, report.Warning), key("E", 50, report.None)},
	}
	for i := range 5 {
		s.Shards = append(s.Shards, report.ShardReport{Shard: fmt.Sprintf("s%d", i), Records: uint64(10 - i), WCU: uint64(100 - i), PeakWCUPerSecond: float64(i)})
	}
	s.Shards = append(s.Shards, report.ShardReport{Shard: OtherShards, Records: 1, WCU: 98, PeakWCUPerSecond: 9})
	s.Compact(2, 2)
	if got := keyNames(s.Keys); !cmp.Equal(got, []string{"A", "B", "D"}) || s.OtherKeysWCUUpper != 70 {
		t.Errorf("kept %v under %d; want A, B and the flagged D, the rest under 70 (C; L is logical)", got, s.OtherKeysWCUUpper)
	}
	want := []report.ShardReport{{Shard: OtherShards, Records: 1 + 8 + 7 + 6, WCU: 98 + 98 + 97 + 96, PeakWCUPerSecond: 9},
		{Shard: "s0", Records: 10, WCU: 100, PeakWCUPerSecond: 0}, {Shard: "s1", Records: 9, WCU: 99, PeakWCUPerSecond: 1}}
	if diff := cmp.Diff(want, s.Shards); diff != "" {
		t.Errorf("shards (-want +got):\n%s", diff)
	}
}

// TestMarshalRollupTrims: a rollup over MaxRollupEncodedSize keeps its
// flagged key and as many of the heaviest as fit, and raises its ceiling
// over every key it drops; MarshalRollup refuses a summary with no
// sources, and a shard's window over MaxEncodedSize is not accepted as
// one.
func TestMarshalRollupTrims(t *testing.T) {
	s := Summary{Table: "T", Start: t0, End: t0.Add(time.Minute), Sources: 1000}
	for i := range 400 {
		k := report.KeyReport{KeyFigures: report.KeyFigures{Key: fmt.Sprintf("%04d#%01000d", i, 0), Type: "S", WCULower: uint64(5000 - i), WCUUpper: uint64(5000 - i)}}
		if i == 399 {
			k.Severity, k.Pattern = report.Warning, report.PatternSingleKey
		}
		s.Keys = append(s.Keys, k)
	}
	b, err := s.MarshalRollup()
	if err != nil {
		t.Fatal(err)
	}
	var got Summary
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	n := len(got.Keys)
	if len(b) > MaxRollupEncodedSize || len(b) < MaxRollupEncodedSize-2*1010 || !got.Trimmed || n < 300 || n >= 400 {
		t.Fatalf("%d bytes, %d keys kept, trimmed %v", len(b), n, got.Trimmed)
	}
	if got.Keys[n-1].Key != s.Keys[399].Key || got.OtherKeysWCUUpper != s.Keys[n-1].WCUUpper {
		t.Errorf("last kept %q, ceiling %d; want the flagged key kept, the ceiling the heaviest dropped (%d)", got.Keys[n-1].Key[:4], got.OtherKeysWCUUpper, s.Keys[n-1].WCUUpper)
	}
	s.Sources = 0
	if _, err := s.MarshalRollup(); err == nil {
		t.Error("a summary without sources was marshalled as a rollup")
	}
	forged := s.encode(version4, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 0, false, nil)
	if err := got.UnmarshalBinary(forged); !errors.Is(err, ErrCorrupt) || len(forged) <= MaxEncodedSize {
		t.Errorf("a shard's window of %d bytes: %v, want ErrCorrupt", len(forged), err)
	}
}

// countOthers counts the keys neither flagged nor of 1 % of total WCU.
func countOthers(keys []report.KeyReport, total uint64) int {
	n := 0
	for _, k := range keys {
		if k.Severity == report.None && !Significant(k.WCULower, total) {
			n++
		}
	}
	return n
}

// TestOneSummaryStep: a step of one summary, which takes its keys as they
// are, is exactly the step the same summary gives through the map of keys
// (as when more come), for shards' windows, rollups, and keys with
// verdicts, patterns and logical parts.
func TestOneSummaryStep(t *testing.T) {
	st := newStream(t, 3, 3, 4)
	sums := slices.Clone(st.summaries)
	for _, s := range compatSummaries() {
		sums = append(sums, s)
	}
	logical := *st.summaries[0]
	logical.Keys = append(slices.Clone(logical.Keys), report.KeyReport{KeyFigures: report.KeyFigures{Key: "ORDER", Type: "S", WCU: 9, WCULower: 9, WCUUpper: 9},
		Shards: []report.ShardedKeyPart{{Key: "ORDER#1", WCU: 3}, {Key: "ORDER#0", WCU: 3}, {Key: "ORDER#1", WCU: 3}}})
	sums = append(sums, &logical)
	// Rollups, stored and read back: their distinct keys are taken as they
	// are, which must be what the estimate from their sketch gives.
	minutes, _ := NewMerger("Orders", "", time.Minute, 5)
	for _, s := range st.summaries {
		if err := minutes.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range minutes.Flush(time.Unix(math.MaxInt64/2, 0)) {
		r.Compact(3, 3)
		back := storedRollup(t, r)
		sums = append(sums, back)
	}
	for i, s := range sums {
		for _, step := range []time.Duration{time.Minute, 5 * time.Minute} {
			m, _ := NewMerger(s.Table, s.Index, step, 5)
			if err := m.Add(s); err != nil {
				t.Fatal(err)
			}
			var via *Summary
			for at, acc := range m.steps {
				acc.spill() // the estimate redone from the sketch, too
				via = m.summary(at, acc)
			}
			fast, _ := NewMerger(s.Table, s.Index, step, 5)
			if err := fast.Add(s); err != nil {
				t.Fatal(err)
			}
			got := fast.Flush(time.Unix(math.MaxInt64/2, 0))
			if len(got) != 1 {
				t.Fatalf("%d steps", len(got))
			}
			if diff := cmp.Diff(via, got[0]); diff != "" {
				t.Errorf("summary %d, step %s: (-through the map +as it is):\n%s", i, step, diff)
			}
		}
	}
}

// storedRollup returns r as stored and read back: MarshalRollup, then
// UnmarshalBinary.
func storedRollup(t *testing.T, r *Summary) *Summary {
	t.Helper()
	b, err := r.MarshalRollup()
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &back
}
