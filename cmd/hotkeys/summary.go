package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// runSummary gathers, across a run's windows, every key that was flagged:
// the table output ends with it, so that what a long run found is in one
// place.
type runSummary struct {
	keys       map[flaggedID]*flaggedKey
	parts      map[flaggedID]bool // write shards of a logical key flagged in their window: the logical key stands for them
	tables     map[string]bool
	windows    int
	start, end time.Time
}

// flaggedID names a key across windows.
type flaggedID struct{ table, index, typ, key string }

// flaggedKey is what the run knows of one key it flagged.
type flaggedKey struct {
	flaggedID
	pattern    report.Pattern
	worst      report.Severity
	saturated  bool
	peak       float64
	first      time.Time // its first onset, or the start of its first flagged window
	shards     int       // the worst window's recommendation
	lowerBound bool
}

func (s *runSummary) key(id flaggedID) *flaggedKey {
	if s.keys == nil {
		s.keys = map[flaggedID]*flaggedKey{}
	}
	k := s.keys[id]
	if k == nil {
		k = &flaggedKey{flaggedID: id}
		s.keys[id] = k
	}
	return k
}

// addReports takes the flagged keys of closed windows. A write shard of a
// logical key flagged in the same window is left to that key.
func (s *runSummary) addReports(reps []report.Report) {
	for _, r := range reps {
		s.windows++
		if s.start.IsZero() || r.Start.Before(s.start) {
			s.start = r.Start
		}
		s.end = maxTime(s.end, r.End)
		if s.parts == nil {
			s.parts, s.tables = map[flaggedID]bool{}, map[string]bool{}
		}
		s.tables[r.Table] = true
		for _, k := range r.HotKeys {
			for _, part := range k.Shards {
				s.parts[flaggedID{r.Table, r.Index, k.Type, part.Key}] = true
			}
		}
		for _, k := range r.HotKeys {
			if len(k.Shards) == 0 && s.parts[flaggedID{r.Table, r.Index, k.Type, k.Key}] {
				continue
			}
			f := s.key(flaggedID{r.Table, r.Index, k.Type, k.Key})
			f.seen(r.Start)
			if f.worst == "" || k.Severity.Worse(f.worst) != f.worst || k.Saturated && !f.saturated {
				f.pattern, f.shards, f.lowerBound = k.Pattern, k.RecommendedShards, k.RecommendedShardsIsLowerBound
			}
			f.worst = k.Severity.Worse(f.worst)
			f.saturated = f.saturated || k.Saturated
			f.peak = max(f.peak, k.PeakWCUPerSecond)
		}
	}
}

// addOnset takes an onset: the key was seen at its second, at the
// latest.
func (s *runSummary) addOnset(o *report.Onset) {
	f := s.key(flaggedID{o.Table, o.Index, o.Key.Type, o.Key.Key})
	f.seen(o.Second)
	if f.worst == "" {
		f.pattern, f.worst, f.shards = o.Key.Pattern, o.Key.Severity, o.Key.RecommendedShards
	}
	f.peak = max(f.peak, float64(o.SecondWCULower))
}

func (f *flaggedKey) seen(t time.Time) {
	if f.first.IsZero() || t.Before(f.first) {
		f.first = t
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// write writes the summary: every flagged key, worst first, then the
// warnings of the run.
func (s *runSummary) write(b *strings.Builder, opt *tableOptions, warnings []string) {
	if s.windows == 0 && len(warnings) == 0 {
		return
	}
	span := ""
	if s.windows > 0 {
		span = fmt.Sprintf(" · %s, %s – %s UTC", plural(s.windows, "window"), s.start.Format("2006-01-02 15:04:05"), s.end.Format("15:04:05"))
		if !sameDay(s.start, s.end.Add(-time.Second)) {
			span = fmt.Sprintf(" · %s, %s – %s UTC", plural(s.windows, "window"), s.start.Format("2006-01-02 15:04"), s.end.Format("2006-01-02 15:04"))
		}
	}
	rule(b, "── SUMMARY"+span+" ", opt.width)
	var keys []*flaggedKey
	for id, k := range s.keys {
		if k.worst != report.None && !s.parts[id] {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b *flaggedKey) int {
		return cmp.Or(-cmp.Compare(a.worst.Rank(), b.worst.Rank()), a.first.Compare(b.first), cmp.Compare(a.table, b.table),
			cmp.Compare(a.index, b.index), cmp.Compare(a.key, b.key))
	})
	if len(keys) == 0 {
		if s.windows > 0 {
			b.WriteString("no key was flagged\n")
		}
	} else {
		oneDay := sameDay(s.start, s.end.Add(-time.Second))
		// A key is named with its index; the table has a column when the
		// run saw several.
		t := table{cols: []column{{head: "KEY", key: true}, {head: "TABLE", drop: 1}, {head: "PATTERN", drop: 4}, {head: "WORST"}, {head: "PEAK WCU/s", drop: 3},
			{head: "FIRST SEEN", drop: 2}, {head: "FIX"}}}
		if len(s.tables) < 2 {
			t.cols[1].drop = -1
		}
		var cut keyNotes
		for _, k := range keys {
			first := k.first.UTC().Format("2006-01-02 15:04:05")
			if oneDay {
				first = k.first.UTC().Format("15:04:05")
			}
			key := keyCell(k.key)
			if k.index != "" {
				key = keyCell(k.key + " (" + k.index + ")") // an index's name is no secret, and redaction hashes only the key
			}
			t.add(key, text(windowName(k.table, "")), text(string(k.pattern)), text(string(k.worst)),
				text(peakCell(k.peak, k.saturated)), text(first), text(fixText(k)))
		}
		t.write(b, opt.width, &cut)
		cut.writeFull(b)
	}
	for _, w := range warnings {
		wrap(b, "! ", "  ", w, opt.width)
	}
}

func sameDay(a, b time.Time) bool {
	return a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return count(uint64(n)) + " " + what + "s"
}

// fixText is a flagged key's fix in a few words; its window's diagnosis
// says it in full.
func fixText(k *flaggedKey) string {
	n := fmt.Sprint(k.shards)
	if k.lowerBound {
		n = "≥ " + n
	}
	if k.index != "" {
		if k.pattern == report.PatternTimeBucket {
			return "shard the bucket into " + n
		}
		return "shard index key into " + n
	}
	switch k.pattern {
	case report.PatternLowCardinality:
		return "re-key; GSI in " + n + " shards"
	case report.PatternTimeBucket:
		return "shard the bucket into " + n
	case report.PatternSingleItem:
		return "split into " + n + " sub-items"
	case report.PatternShardedUneven:
		return "hash evenly, " + n + " shards"
	case report.PatternShardedTooFew:
		return "use " + n + " shards"
	}
	return "shard into " + n
}
