package detector

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Detector routes records into tumbling windows aligned to multiples of the
// window length in Unix time, one set per table, and closes a window once
// record time has moved past its end plus Config.Lateness. It serves replay,
// watch and the Lambda's plain (non-tumbling) batches; the Lambda's tumbling
// windows use Window directly, because Lambda decides their span.
//
// A Detector is not safe for concurrent use.
type Detector struct {
	cfg       Config
	open      map[windowKey]*Window
	watermark int64 // latest record time seen, Unix seconds
	lastTable string
	last      *Window   // the window the previous record went to: streams are mostly in order
	lastIdx   []*Window // the index windows of last's span opened so far: a table has few indexes
	// pending holds, per table, what was counted outside any window (late,
	// malformed and internal-error records) until a window of the table
	// closes and takes it.
	pending map[string]*counts
}

// counts are the records of a table counted outside any window.
type counts struct{ late, malformed, internal uint64 }

type windowKey struct {
	table, index string // index "" for the table's own window
	start        int64
}

// New returns a Detector, or an error wrapping ErrConfig.
func New(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Detector{
		cfg:     cfg,
		open:    map[windowKey]*Window{},
		pending: map[string]*counts{},
	}, nil
}

// Config returns the detector's configuration.
func (d *Detector) Config() Config { return d.cfg }

// Add counts one record in its window. A record without a time must have
// been given one by the caller (the time it was read); a record older than
// every open window of its table by more than the lateness is counted as
// late in the next report instead, never silently dropped.
func (d *Detector) Add(r *record.Record) error {
	t := r.Time.Unix()
	if r.Time.IsZero() {
		return fmt.Errorf("detector: record %s has no time", r.SequenceNumber)
	}
	w := d.last
	if w == nil || t < w.start || t >= w.end || d.lastTable != r.Table {
		start := report.WindowStart(r.Time, d.cfg.Window).Unix()
		w = d.open[windowKey{r.Table, "", start}]
		if w == nil && start+int64(d.cfg.Window/time.Second)+int64(d.cfg.Lateness/time.Second) <= d.watermark {
			// Its window has closed (or would have, had Flush been called).
			d.pendingOf(r.Table).late++
			return nil
		}
		if w == nil {
			var err error
			w, err = NewWindow(d.cfg.Sketch, r.Table, time.Unix(start, 0), time.Unix(start, 0).Add(d.cfg.Window))
			if err != nil {
				return err
			}
			w.Watch(d.cfg)
			d.open[windowKey{r.Table, "", start}] = w
		}
		d.last, d.lastTable = w, r.Table
		d.lastIdx = d.lastIdx[:0]
	}
	w.Add(r)
	for x := range r.Indexes {
		iw := &r.Indexes[x]
		if !iw.Touched() { // never from the decoder, which lists only these
			continue
		}
		if err := d.addIndex(w, r, iw); err != nil {
			return err
		}
	}
	d.watermark = max(d.watermark, t)
	return nil
}

// addIndex counts what r cost index iw.Index in the index's window of the
// span of w, the table's window.
func (d *Detector) addIndex(w *Window, r *record.Record, iw *record.IndexWrite) error {
	for _, iwin := range d.lastIdx {
		if iwin.index == iw.Index { // the same string each time: equal pointers, one compare
			iwin.AddIndex(r, iw)
			return nil
		}
	}
	k := windowKey{r.Table, iw.Index, w.start}
	iwin := d.open[k]
	if iwin == nil {
		var err error
		if iwin, err = NewIndexWindow(d.cfg.IndexSketchConfig(), r.Table, iw.Index, w.Start(), w.End()); err != nil {
			return err
		}
		iwin.Watch(d.cfg)
		d.open[k] = iwin
	}
	d.lastIdx = append(d.lastIdx, iwin)
	iwin.AddIndex(r, iw)
	return nil
}

// AddMalformed counts a malformed record of table ("" when unknown: the
// table of the latest record). Its time is unknown, so it counts in the
// window of the record before it, or failing that in the table's next
// window to close.
func (d *Detector) AddMalformed(table string) {
	d.addUntimed(table, (*Window).AddMalformed, func(c *counts) { c.malformed++ })
}

// AddInternal counts a record that could not be handled because of a bug
// in hotkeys (an InternalError), where AddMalformed counts the input's
// faults. table is as for AddMalformed.
func (d *Detector) AddInternal(table string) {
	d.addUntimed(table, (*Window).AddInternal, func(c *counts) { c.internal++ })
}

// addUntimed counts a record whose time is unknown in the window of the
// record before it, or failing that in the table's pending counts.
func (d *Detector) addUntimed(table string, inWindow func(*Window, uint64), pending func(*counts)) {
	if table == "" {
		table = d.lastTable
	}
	if d.last != nil && d.lastTable == table {
		inWindow(d.last, 1)
		return
	}
	pending(d.pendingOf(table))
}

func (d *Detector) pendingOf(table string) *counts {
	c := d.pending[table]
	if c == nil {
		c = &counts{}
		d.pending[table] = c
	}
	return c
}

// Advance moves record time forward to t, if t is later, so that Flush
// closes windows of a table that has gone quiet.
func (d *Detector) Advance(t time.Time) { d.watermark = max(d.watermark, t.Unix()) }

// Watermark returns the latest record time seen.
func (d *Detector) Watermark() time.Time { return time.Unix(d.watermark, 0).UTC() }

// Flush closes and reports the windows that record time has moved past
// (end + lateness ≤ watermark), oldest first.
func (d *Detector) Flush() []report.Report {
	lateness := int64(d.cfg.Lateness / time.Second)
	return d.close(func(w *Window) bool { return w.end+lateness <= d.watermark })
}

// FlushAll closes and reports every open window: at the end of the input,
// on Ctrl-C, or when the caller knows no more records will come. Tables with
// late, malformed or internal-error records but no window get an empty
// report carrying those counts, so nothing counted is lost.
func (d *Detector) FlushAll() []report.Report {
	reps := d.close(func(*Window) bool { return true })
	for _, table := range slices.Sorted(maps.Keys(d.pending)) {
		start := report.WindowStart(d.Watermark(), d.cfg.Window)
		w, err := NewWindow(d.cfg.Sketch, table, start, start.Add(d.cfg.Window))
		if err != nil {
			continue // the config was validated: cannot happen
		}
		d.attachCounts(w)
		reps = append(reps, w.Report(d.cfg))
	}
	return reps
}

func (d *Detector) close(done func(*Window) bool) []report.Report {
	var closing []*Window
	for k, w := range d.open {
		if done(w) {
			closing = append(closing, w)
			delete(d.open, k)
		}
	}
	slices.SortFunc(closing, func(a, b *Window) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.table, b.table), cmp.Compare(a.index, b.index))
	})
	if len(closing) > 0 {
		d.lastIdx = d.lastIdx[:0]
	}
	reps := make([]report.Report, 0, len(closing))
	for _, w := range closing {
		if w == d.last {
			d.last = nil
		}
		if w.index == "" { // malformed and late records are the table's
			d.attachCounts(w)
		}
		reps = append(reps, w.Report(d.cfg))
	}
	return reps
}

func (d *Detector) attachCounts(w *Window) {
	if c := d.pending[w.table]; c != nil {
		w.AddMalformed(c.malformed)
		w.AddLate(c.late)
		w.AddInternal(c.internal)
		delete(d.pending, w.table)
	}
}
