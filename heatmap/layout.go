package heatmap

import (
	"cmp"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Maps lays out every table and index seen, in the order they first came.
func (b *Builder) Maps() []*Map {
	maps := make([]*Map, 0, len(b.order))
	for _, t := range b.order {
		maps = append(maps, b.layout(t, b.tables[t]))
	}
	return maps
}

// layout lays out one table's or index's windows: the columns, the key
// rows and "all other keys", then the shard rows.
func (b *Builder) layout(id mapID, ws []*window) *Map {
	slices.SortFunc(ws, func(a, c *window) int { return a.start.Compare(c.start) })
	m := &Map{Table: id.table, Index: id.index, Limit: b.opts.PartitionLimit, Bucket: 1}
	col := b.columns(m, ws)
	b.keyRows(m, ws, col)
	b.shardRows(m, ws, col)
	return m
}

// columns sets m's window length, bucket and columns, and returns each
// column's windows.
func (b *Builder) columns(m *Map, ws []*window) [][]*window {
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
	first := report.WindowStart(ws[0].start, span)
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
	return col
}

// keyRows adds the rows of the heaviest keys, then "all other keys": each
// column's WCU less what the key rows may have written.
func (b *Builder) keyRows(m *Map, ws []*window, col [][]*window) {
	var total uint64
	for _, c := range m.Columns {
		total += c.WCU
	}
	keys := b.rankKeys(ws, float64(total)*b.opts.MinShare)
	shown := keys[:min(len(keys), b.opts.MaxKeys)]
	m.HiddenKeys = b.listedKeys(ws) - len(shown)
	others := Row{Kind: othersRow, Cells: make([]Cell, len(m.Columns))}
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
}

// shardRows adds the rows of the busiest stream shards.
func (b *Builder) shardRows(m *Map, ws []*window, col [][]*window) {
	shards := rankShards(ws)
	m.HiddenShards = max(0, len(shards)-b.opts.MaxShards)
	for _, id := range shards[:min(len(shards), b.opts.MaxShards)] {
		row := Row{Kind: shardRow, Name: id, Cells: make([]Cell, len(m.Columns))}
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
