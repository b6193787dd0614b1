package heatmap

import (
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// window is what the Builder keeps of one report.
type window struct {
	start, end time.Time
	wcu        uint64
	ceiling    uint64 // other_keys_wcu_upper
	keys       map[keyID]keyFigures
	shards     map[string]shardFigures
}

type keyID struct{ typ, key string }

type keyFigures struct {
	lower, upper uint64
	peak         float64
	severity     report.Severity
	pattern      report.Pattern
	diagnosis    string
}

type shardFigures struct {
	wcu  uint64
	peak float64
}

// Builder collects the reports of a run and lays them out, one Map per
// table and one per analysed index. Only what the map needs is kept of each report (its keys, bounds,
// verdicts and shards), so a day of 1-minute windows takes a few MB.
type Builder struct {
	opts   Options
	tables map[mapID][]*window
	order  []mapID
}

// mapID names what a Map is of: a table, or one of its indexes.
type mapID struct{ table, index string }

// New returns an empty Builder.
func New(opts Options) *Builder {
	return &Builder{opts: opts.withDefaults(), tables: map[mapID][]*window{}}
}

// Add takes reports of closed windows, in any order. Two reports of the same
// table and span (from different readers of the stream) are added up.
func (b *Builder) Add(reps ...report.Report) {
	for _, r := range reps {
		if !r.End.After(r.Start) {
			continue
		}
		id := mapID{r.Table, r.Index}
		ws, seen := b.tables[id]
		if !seen {
			b.order = append(b.order, id)
		}
		var w *window
		for _, x := range ws {
			if x.start.Equal(r.Start) && x.end.Equal(r.End) {
				w = x
			}
		}
		if w == nil {
			w = &window{start: r.Start, end: r.End, keys: map[keyID]keyFigures{}, shards: map[string]shardFigures{}}
			b.tables[id] = append(ws, w)
		}
		w.add(r)
	}
}

// add adds a report's figures to the window. A second report of the same
// span covers other records: every figure adds up, and a key one report
// did not list wrote at most that report's ceiling there.
func (w *window) add(r report.Report) {
	listed := map[keyID]report.KeyReport{}
	for _, list := range [][]report.KeyReport{r.TopKeys, r.HotKeys} {
		for _, k := range list {
			if len(k.Shards) > 0 {
				continue // a logical sharded key: its shards are rows of their own
			}
			if _, dup := listed[keyID{k.Type, k.Key}]; !dup {
				listed[keyID{k.Type, k.Key}] = k
			}
		}
	}
	for id, f := range w.keys {
		if _, ok := listed[id]; !ok {
			f.upper += r.OtherKeysWCUUpper
			w.keys[id] = f
		}
	}
	for id, k := range listed {
		f, ok := w.keys[id]
		if !ok {
			f.upper = w.ceiling // what earlier reports of the span allow it
		}
		f.lower += k.WCULower
		f.upper += k.WCUUpper
		f.peak = max(f.peak, k.PeakWCUPerSecond)
		if k.Severity.Rank() > f.severity.Rank() {
			f.severity, f.pattern, f.diagnosis = k.Severity, k.Pattern, k.Diagnosis
		} else if f.pattern == "" {
			f.pattern = k.Pattern
		}
		w.keys[id] = f
	}
	w.wcu += r.WCU
	w.ceiling += r.OtherKeysWCUUpper
	for _, s := range r.Shards {
		f := w.shards[s.Shard]
		f.wcu += s.WCU
		f.peak = max(f.peak, s.PeakWCUPerSecond)
		w.shards[s.Shard] = f
	}
}
