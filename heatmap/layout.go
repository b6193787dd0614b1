package heatmap

import (
	"cmp"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Options size the map. Zero fields take the defaults below.
type Options struct {
	// PartitionLimit is the per-partition write cap in WCU/s that the colour
	// scale is drawn against (DynamoDB's is 1,000).
	PartitionLimit float64
	// MaxKeys is how many key rows the map shows: the heaviest of the run.
	// The rest are added up in the row "all other keys".
	MaxKeys int
	// MaxColumns caps the columns: a run with more windows than this has
	// consecutive windows bucketed into one column.
	MaxColumns int
	// MaxShards caps the stream-shard rows: the busiest shards are shown.
	MaxShards int
	// MinShare leaves out of the key rows the keys that certainly wrote
	// less than this fraction of the run's WCU (they stay in "all other
	// keys"), so a long tail listed in quiet windows does not crowd out the
	// picture. Negative shows every key up to MaxKeys.
	MinShare float64
}

// Defaults. 24 h of 1-minute windows (1,440) become 240 columns of 6
// minutes; with every cell drawn the page stays under 3 MB (a test holds
// it to that).
const (
	DefaultMaxKeys    = 32
	DefaultMaxColumns = 240
	DefaultMaxShards  = 16
	DefaultMinShare   = 0.001
)

func (o Options) withDefaults() Options {
	if !(o.PartitionLimit > 0) {
		o.PartitionLimit = detector.DefaultPartitionLimit
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.MaxColumns <= 0 {
		o.MaxColumns = DefaultMaxColumns
	}
	if o.MaxShards <= 0 {
		o.MaxShards = DefaultMaxShards
	}
	if o.MinShare == 0 {
		o.MinShare = DefaultMinShare
	}
	return o
}

// Map is the laid-out heatmap of one table: what WriteHTML draws, in a form
// tests can compare whole.
type Map struct {
	Table string
	// Index is the global secondary index the map is of; "" for the table
	// itself. An index's partitions are apart from the table's, so it gets
	// a map of its own.
	Index string
	// Window is the reports' window length; Bucket how many windows one
	// column spans (1 unless the run has more than Options.MaxColumns).
	Window time.Duration
	Bucket int
	Limit  float64 // the partition limit, WCU/s

	Columns []Column
	Rows    []Row // key rows (heaviest first), "all other keys", shard rows

	// HiddenKeys counts the keys the reports listed that have no row (by
	// MaxKeys or MinShare: they are inside "all other keys"); HiddenShards
	// the shards left out by MaxShards.
	HiddenKeys, HiddenShards int
}

// Column is one span of time: one window, or Bucket of them.
type Column struct {
	Start, End time.Time
	Windows    int    // windows that had a report (0: no records at all)
	WCU        uint64 // the table's WCU in it, exact
}

// RowKind says what a row shows.
type RowKind string

// The kinds of rows, top to bottom.
const (
	KeyRow    RowKind = "key"    // one partition key, as the reports name it (redacted when they are)
	OthersRow RowKind = "others" // every key not shown as a row, added up
	ShardRow  RowKind = "shard"  // one stream shard (roughly one table partition)
)

// Row is one line of the map.
type Row struct {
	Kind RowKind
	Name string // the key (as reports print it) or the shard id; "" for OthersRow
	Type string // the key's type, S, N or B; "" for other rows

	// WCULower and WCUUpper bracket the row's true WCU over the run.
	WCULower, WCUUpper uint64
	Flagged            int // cells with a flagged window

	Cells []Cell // one per column
}

// Cell is one row in one column.
type Cell struct {
	// Listed says the reports give the row a figure in this column: the key
	// was among a window's top or hot keys, the shard carried records, or
	// (others) the column had records. An unlisted key cell still has
	// bounds: [0, the windows' other_keys_wcu_upper].
	Listed             bool
	WCULower, WCUUpper uint64  // bracket the true WCU
	Share              float64 // WCUUpper over the column's WCU (others: WCULower)
	Peak               float64 // highest WCU within one second, a lower bound (0 for others)

	// The worst verdict of the column's windows, with that window's pattern
	// and diagnosis.
	Severity  report.Severity
	Pattern   report.Pattern
	Diagnosis string
}

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

// Maps lays out every table and index seen, in the order they first came.
func (b *Builder) Maps() []*Map {
	maps := make([]*Map, 0, len(b.order))
	for _, t := range b.order {
		maps = append(maps, b.layout(t, b.tables[t]))
	}
	return maps
}

func (b *Builder) layout(id mapID, ws []*window) *Map {
	slices.SortFunc(ws, func(a, c *window) int { return a.start.Compare(c.start) })
	m := &Map{Table: id.table, Index: id.index, Limit: b.opts.PartitionLimit, Bucket: 1}
	m.Window = ws[0].end.Sub(ws[0].start)
	last := ws[0].end
	for _, w := range ws {
		m.Window = min(m.Window, w.end.Sub(w.start))
		last = later(last, w.end)
	}
	// Columns are aligned to multiples of their length, as windows are.
	windows := int(last.Sub(ws[0].start).Truncate(time.Second) / m.Window)
	if windows > b.opts.MaxColumns {
		m.Bucket = (windows + b.opts.MaxColumns - 1) / b.opts.MaxColumns
	}
	span := m.Window * time.Duration(m.Bucket)
	first := ws[0].start.Truncate(span)
	for t := first; t.Before(last); t = t.Add(span) {
		m.Columns = append(m.Columns, Column{Start: t, End: t.Add(span)})
	}
	col := make([][]*window, len(m.Columns))
	for _, w := range ws {
		i := int(w.start.Sub(first) / span)
		col[i] = append(col[i], w)
		m.Columns[i].Windows++
		m.Columns[i].WCU += w.wcu
	}

	var total uint64
	for _, c := range m.Columns {
		total += c.WCU
	}
	keys := b.rankKeys(ws, float64(total)*b.opts.MinShare)
	shown := keys[:min(len(keys), b.opts.MaxKeys)]
	m.HiddenKeys = b.listedKeys(ws) - len(shown)
	others := Row{Kind: OthersRow, Cells: make([]Cell, len(m.Columns))}
	for i, c := range m.Columns {
		if c.Windows > 0 {
			others.Cells[i] = Cell{Listed: true, WCULower: c.WCU, WCUUpper: c.WCU}
		}
	}
	for _, id := range shown {
		row := Row{Kind: KeyRow, Name: id.key, Type: id.typ, Cells: make([]Cell, len(m.Columns))}
		for i := range m.Columns {
			c := keyCell(col[i], id, m.Columns[i].WCU)
			row.add(c, i)
			o := &others.Cells[i]
			o.WCULower = sub(o.WCULower, c.WCUUpper)
			o.WCUUpper = sub(o.WCUUpper, c.WCULower)
		}
		m.Rows = append(m.Rows, row)
	}
	for i := range others.Cells {
		o := &others.Cells[i]
		if m.Columns[i].WCU > 0 {
			o.Share = float64(o.WCULower) / float64(m.Columns[i].WCU)
		}
		others.WCULower += o.WCULower
		others.WCUUpper += o.WCUUpper
	}
	m.Rows = append(m.Rows, others)

	shards := rankShards(ws)
	m.HiddenShards = max(0, len(shards)-b.opts.MaxShards)
	for _, id := range shards[:min(len(shards), b.opts.MaxShards)] {
		row := Row{Kind: ShardRow, Name: id, Cells: make([]Cell, len(m.Columns))}
		for i := range m.Columns {
			var c Cell
			for _, w := range col[i] {
				if f, ok := w.shards[id]; ok {
					c.Listed = true
					c.WCULower += f.wcu
					c.WCUUpper += f.wcu
					c.Peak = max(c.Peak, f.peak)
				}
			}
			if c.Listed && m.Columns[i].WCU > 0 {
				c.Share = float64(c.WCUUpper) / float64(m.Columns[i].WCU)
			}
			row.add(c, i)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// keyCell adds up one key's figures over a column's windows. A window that
// did not list the key bounds it by its ceiling: [0, other_keys_wcu_upper].
func keyCell(ws []*window, id keyID, colWCU uint64) Cell {
	var c Cell
	for _, w := range ws {
		f, ok := w.keys[id]
		if !ok {
			c.WCUUpper += w.ceiling
			continue
		}
		c.Listed = true
		c.WCULower += f.lower
		c.WCUUpper += f.upper
		c.Peak = max(c.Peak, f.peak)
		if f.severity.Rank() > c.Severity.Rank() {
			c.Severity, c.Pattern, c.Diagnosis = f.severity, f.pattern, f.diagnosis
		} else if c.Pattern == "" {
			c.Pattern = f.pattern
		}
	}
	if colWCU > 0 {
		c.Share = float64(c.WCUUpper) / float64(colWCU)
	}
	return c
}

func (r *Row) add(c Cell, i int) {
	r.Cells[i] = c
	r.WCULower += c.WCULower
	r.WCUUpper += c.WCUUpper
	if c.Severity != report.None {
		r.Flagged++
	}
}

// rankKeys orders the keys the reports listed that certainly wrote at
// least minWCU: by the WCU they certainly wrote over the run (the sum of
// their lower bounds), then by their upper bound (the sum of their upper
// bounds where listed and of the ceilings elsewhere), then by name.
func (b *Builder) rankKeys(ws []*window, minWCU float64) []keyID {
	// upper: the key's upper bounds where listed plus the ceilings of every
	// other window, i.e. all the ceilings minus those of its windows.
	type total struct{ lower, upper, ceilings uint64 }
	var ceilings uint64
	totals := map[keyID]total{}
	for _, w := range ws {
		ceilings += w.ceiling
		for id, f := range w.keys {
			t := totals[id]
			t.lower += f.lower
			t.upper += f.upper
			t.ceilings += w.ceiling
			totals[id] = t
		}
	}
	ids := make([]keyID, 0, len(totals))
	for id, t := range totals {
		t.upper += ceilings - t.ceilings
		totals[id] = t
		if float64(t.lower) >= minWCU {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, c keyID) int {
		ta, tc := totals[a], totals[c]
		return cmp.Or(cmp.Compare(tc.lower, ta.lower), cmp.Compare(tc.upper, ta.upper),
			cmp.Compare(a.key, c.key), cmp.Compare(a.typ, c.typ))
	})
	return ids
}

// listedKeys counts the keys the reports listed.
func (b *Builder) listedKeys(ws []*window) int {
	seen := map[keyID]bool{}
	for _, w := range ws {
		for id := range w.keys {
			seen[id] = true
		}
	}
	return len(seen)
}

// rankShards orders the stream shards by the WCU they carried, heaviest
// first.
func rankShards(ws []*window) []string {
	wcu := map[string]uint64{}
	for _, w := range ws {
		for id, f := range w.shards {
			wcu[id] += f.wcu
		}
	}
	ids := make([]string, 0, len(wcu))
	for id := range wcu {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, c string) int { return cmp.Or(cmp.Compare(wcu[c], wcu[a]), cmp.Compare(a, c)) })
	return ids
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
