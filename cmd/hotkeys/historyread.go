package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

// segment is a span of time read from one kind of item: hour rollups,
// window rollups, or the stream shards' windows (level 0).
type segment struct {
	level    store.Level
	from, to time.Time
	settled  bool // window rollups: settled
}

// plan splits [from, to) into segments: an hour from its rollup when the
// step is whole hours and the hour is rolled up, a window from its rollups
// when the step is whole windows and the window is rolled up, the shards'
// windows for the rest (unless only rollups are wanted; with settledOnly,
// window rollups not settled yet count as none). Adjacent spans
// of one kind (and, for window rollups, settled or not alike) are one
// segment.
func plan(cov *store.Coverage, step time.Duration, from, to time.Time, shards, settledOnly bool) []segment {
	var out []segment
	add := func(level store.Level, a, b time.Time, settled bool) {
		if n := len(out); n > 0 && out[n-1].level == level && out[n-1].to.Equal(a) && out[n-1].settled == settled {
			out[n-1].to = b
			return
		}
		out = append(out, segment{level: level, from: a, to: b, settled: settled})
	}
	r := cov.WindowLength
	hours := step%time.Hour == 0
	windows := r > 0 && step%r == 0
	t := from
	for t.Before(to) {
		if hours && t.Unix()%3600 == 0 && !t.Add(time.Hour).After(to) && cov.Hours[t.Unix()] {
			add(store.Hours, t, t.Add(time.Hour), true)
			t = t.Add(time.Hour)
			continue
		}
		if settled, ok := cov.Windows[t.Unix()]; ok && windows && !t.Add(r).After(to) && (settled || !settledOnly) {
			add(store.Windows, t, t.Add(r), settled)
			t = t.Add(r)
			continue
		}
		// Up to the next window rollup's start (or hour's), or the end.
		next := to
		if r > 0 {
			next = minTime(to, report.WindowStart(t, r).Add(r))
		}
		if shards {
			add(0, t, next, true)
		}
		t = next
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// read reads the summaries stored from from to to, rollups where the
// rollup function stored some (unless --source says otherwise), and
// merges them into steps as it goes, one merger per table and per index
// (an index's keys are not the table's, and its share is of the index's
// WCU), writing each step to out as soon as it is complete. It returns
// how many steps it wrote and how many items it skipped (each told on
// stderr), and says on stderr what it read.
func (f *historyFlags) read(ctx context.Context, api store.API, from, to time.Time, out streamWriter, stderr io.Writer) (int, int, error) {
	table, err := store.New(api, f.table, store.Options{WriteShards: f.writeShards})
	if err != nil {
		return 0, 0, usageError{err}
	}
	r := table.Reader(0)
	cov := &store.Coverage{}
	if f.source != "shards" {
		if cov, err = r.Coverage(ctx, from, to); err != nil {
			return 0, 0, f.readError(err)
		}
		if f.writeShards == 0 && cov.WriteShards > table.WriteShards() {
			table, _ = store.New(api, f.table, store.Options{WriteShards: cov.WriteShards}) // within bounds: Coverage checks
			r = table.Reader(0)
		}
	}
	segs := plan(cov, f.step, from, to, f.source != "rollups", f.source == "settled")
	m := &stepMerger{step: f.step, top: f.top, byID: map[mergerID]*history.Merger{}, out: out, stderr: stderr}
	for _, sg := range segs {
		if sg.level == 0 {
			err = r.Shards(ctx, sg.from, sg.to, m.add, m.skip)
		} else {
			err = r.Rollups(ctx, sg.level, sg.from, sg.to, m.add, m.skip)
		}
		if err != nil {
			return m.written, m.skipped, f.readError(err)
		}
	}
	if err := m.flush(time.Unix(1<<62, 0)); err != nil {
		return m.written, m.skipped, err
	}
	if f.source != "shards" {
		fmt.Fprintf(stderr, "hotkeys history: read %s\n", describe(segs, from, to))
	}
	return m.written, m.skipped, nil
}

// readError words a DynamoDB error for the user.
func (f *historyFlags) readError(err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		return ue
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" {
		// DynamoDB refuses the Query of a table that is not keyed as a history table is.
		return fmt.Errorf("history: %w (is %s the stack's HistoryTable output, a table the Lambda writes its history to?)", err, f.table)
	}
	return fmt.Errorf("history: %w", err)
}

// describe says what the segments read: so much from hour rollups, from
// window rollups (how much of it not settled yet), from the shards'
// windows, and what was not read at all.
func describe(segs []segment, from, to time.Time) string {
	var hours, windows, unsettled, shards time.Duration
	for _, sg := range segs {
		d := sg.to.Sub(sg.from)
		switch sg.level {
		case store.Hours:
			hours += d
		case store.Windows:
			windows += d
			if !sg.settled {
				unsettled += d
			}
		default:
			shards += d
		}
	}
	var parts []string
	if hours > 0 {
		parts = append(parts, fmt.Sprintf("%s from hour rollups", span(hours)))
	}
	if windows > 0 {
		p := fmt.Sprintf("%s from window rollups", span(windows))
		if unsettled > 0 {
			p += fmt.Sprintf(" (%s of them not settled yet: a shard's window stored late joins its rollup up to 70 minutes after the window's end)", span(unsettled))
		}
		parts = append(parts, p)
	}
	if shards > 0 {
		parts = append(parts, fmt.Sprintf("%s from the stream shards' windows", span(shards)))
	}
	if missing := to.Sub(from) - hours - windows - shards; missing > 0 {
		parts = append(parts, fmt.Sprintf("nothing for %s without rollups (--source rollups)", span(missing)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// span prints a duration as people count it: 23h, 58m, 1h30m, 45s.
func span(d time.Duration) string {
	d = d.Round(time.Second)
	var b strings.Builder
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.d
		}
	}
	if b.Len() == 0 {
		return "0s"
	}
	return b.String()
}

type mergerID struct{ table, index string }

// stepMerger merges summaries, in order of window start, into steps, and
// writes each step out once no later summary can add to it.
type stepMerger struct {
	step             time.Duration
	top              int
	byID             map[mergerID]*history.Merger
	out              streamWriter
	stderr           io.Writer
	written, skipped int
	// watermark: every summary so far started at or before it.
	watermark time.Time
}

func (m *stepMerger) add(s *history.Summary) error {
	if s.Start.After(m.watermark) {
		if err := m.flush(s.Start); err != nil {
			return err
		}
		m.watermark = s.Start
	}
	id := mergerID{s.Table, s.Index}
	mg := m.byID[id]
	if mg == nil {
		mg, _ = history.NewMerger(s.Table, s.Index, m.step, m.top) // the step was checked
		m.byID[id] = mg
	}
	name := history.Source(s.Table, s.Index)
	err := mg.Add(s)
	if errors.Is(err, history.ErrStep) {
		return usageError{fmt.Errorf("--step %s: the stored windows of %s are %s long: use --step %s or a multiple of it", m.step, name, s.End.Sub(s.Start), s.End.Sub(s.Start))}
	}
	if err != nil {
		m.skipped++
		fmt.Fprintf(m.stderr, "hotkeys history: skipped the summary of %s, shard %s, %s: %v\n", name, s.Shard, s.Start.Format(time.RFC3339), err)
	}
	return nil
}

func (m *stepMerger) skip(key string, err error) {
	m.skipped++
	fmt.Fprintf(m.stderr, "hotkeys history: skipped item %s: %v\n", key, err)
}

// flush writes every step that ends at or before t, in time order, then
// table and index.
func (m *stepMerger) flush(t time.Time) error {
	var reps []report.Report
	for _, mg := range m.byID {
		for _, s := range mg.Flush(t) {
			reps = append(reps, s.Report(m.top))
		}
	}
	if len(reps) == 0 {
		return nil
	}
	slices.SortFunc(reps, func(a, b report.Report) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Index, b.Index))
	})
	m.written += len(reps)
	return m.out.Write(reps)
}
