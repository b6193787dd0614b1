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
// window length in Unix time, a WindowSet per table and span, and closes a
// window once record time has moved past its end plus Config.Lateness. It
// serves replay, watch and the Lambda's plain (non-tumbling) batches; the
// Lambda's tumbling windows use a WindowSet directly, because Lambda decides
// their span.
//
// A Detector is not safe for concurrent use.
type Detector struct {
	cfg       Config
	open      map[setKey]*WindowSet
	watermark int64 // latest record time seen, Unix seconds
	lastTable string
	last      *WindowSet // the set the previous record went to: streams are mostly in order
	// pending holds, per table, what was counted outside any window (late,
	// malformed and internal-error records) until a window of the table
	// closes and takes it.
	pending map[string]*report.Totals
}

type setKey struct {
	table string
	start int64
}

// New returns a Detector, or an error wrapping ErrConfig.
func New(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Detector{
		cfg:     cfg,
		open:    map[setKey]*WindowSet{},
		pending: map[string]*report.Totals{},
	}, nil
}

// Config returns the detector's configuration.
func (d *Detector) Config() Config { return d.cfg }

// Add counts one record in its window: Sink. A record without a time must
// have been given one by the caller (the time it was read); a record older
// than every open window of its table by more than the lateness is counted
// as late in the next report instead, never silently dropped.
func (d *Detector) Add(r *record.Record) error {
	t := r.Time.Unix()
	if r.Time.IsZero() {
		return fmt.Errorf("detector: record %s has no time", r.SequenceNumber)
	}
	s := d.last
	if s == nil || t < s.win.start || t >= s.win.end || d.lastTable != r.Table {
		start := report.WindowStart(r.Time, d.cfg.Window).Unix()
		k := setKey{r.Table, start}
		s = d.open[k]
		if s == nil && start+int64(d.cfg.Window/time.Second)+int64(d.cfg.Lateness/time.Second) <= d.watermark {
			// Its window has closed (or would have, had Flush been called).
			d.pendingOf(r.Table).Late++
			return nil
		}
		if s == nil {
			var err error
			if s, err = newOpenSet(d.cfg, r.Table, time.Unix(start, 0), time.Unix(start, 0).Add(d.cfg.Window)); err != nil {
				return err
			}
			d.open[k] = s
		}
		d.last, d.lastTable = s, r.Table
	}
	if len(r.Indexes) == 0 {
		s.win.Add(r) // s.Add(r) without its call, for most records: ~20 instructions each
	} else if err := s.Add(r); err != nil {
		return err
	}
	d.watermark = max(d.watermark, t)
	return nil
}

// AddMalformed counts a malformed record of table ("" when unknown: the
// table of the latest record). Its time is unknown, so it counts in the
// window of the record before it, or failing that in the table's next
// window to close.
func (d *Detector) AddMalformed(table string) {
	d.addUntimed(table, (*Window).AddMalformed, func(c *report.Totals) { c.Malformed++ })
}

// AddInternal counts a record that could not be handled because of a bug
// in hotkeys (an InternalError), where AddMalformed counts the input's
// faults. table is as for AddMalformed.
func (d *Detector) AddInternal(table string) {
	d.addUntimed(table, (*Window).AddInternal, func(c *report.Totals) { c.InternalErrors++ })
}

// AddDuplicate counts a record delivered again and counted once (see
// Deduper), as AddMalformed counts a malformed one.
func (d *Detector) AddDuplicate(table string) {
	d.addUntimed(table, (*Window).AddDuplicate, func(c *report.Totals) { c.Duplicates++ })
}

// addUntimed counts a record whose time is unknown in the window of the
// record before it, or failing that in the table's pending counts.
func (d *Detector) addUntimed(table string, inWindow func(*Window, uint64), pending func(*report.Totals)) {
	if table == "" {
		table = d.lastTable
	}
	if d.last != nil && d.lastTable == table {
		inWindow(d.last.win, 1)
		return
	}
	pending(d.pendingOf(table))
}

func (d *Detector) pendingOf(table string) *report.Totals {
	c := d.pending[table]
	if c == nil {
		c = &report.Totals{}
		d.pending[table] = c
	}
	return c
}

// Advance moves record time forward to t, if t is later, so that Flush
// closes windows of a table that has gone quiet.
func (d *Detector) Advance(t time.Time) { d.watermark = max(d.watermark, t.Unix()) }

// Flush closes and reports the windows that record time has moved past
// (end + lateness ≤ watermark), oldest first.
func (d *Detector) Flush() []report.Report {
	lateness := int64(d.cfg.Lateness / time.Second)
	return d.close(func(s *WindowSet) bool { return s.win.end+lateness <= d.watermark })
}

// FlushAll closes and reports every open window: at the end of the input,
// on Ctrl-C, or when the caller knows no more records will come. Tables with
// late, malformed or internal-error records but no window get an empty
// report carrying those counts, so nothing counted is lost.
func (d *Detector) FlushAll() []report.Report {
	reps := d.close(func(*WindowSet) bool { return true })
	for _, table := range slices.Sorted(maps.Keys(d.pending)) {
		start := report.WindowStart(time.Unix(d.watermark, 0).UTC(), d.cfg.Window)
		w, err := NewWindow(d.cfg.Sketch, table, start, start.Add(d.cfg.Window))
		if err != nil {
			continue // the config was validated: cannot happen
		}
		d.attachCounts(w)
		reps = append(reps, w.Report(d.cfg))
	}
	return reps
}

// close closes the sets done says are, and reports their windows by start,
// then table, then index (the table's own first).
func (d *Detector) close(done func(*WindowSet) bool) []report.Report {
	var closing []*WindowSet
	for k, s := range d.open {
		if done(s) {
			closing = append(closing, s)
			delete(d.open, k)
		}
	}
	slices.SortFunc(closing, func(a, b *WindowSet) int {
		return cmp.Or(cmp.Compare(a.win.start, b.win.start), cmp.Compare(a.table, b.table))
	})
	reps := make([]report.Report, 0, len(closing))
	for _, s := range closing {
		if s == d.last {
			d.last = nil
		}
		d.attachCounts(s.win) // malformed and late records are the table's
		s.sortIndexes()
		reps = s.appendReports(reps)
	}
	return reps
}

func (d *Detector) attachCounts(w *Window) {
	if c := d.pending[w.table]; c != nil {
		w.totals.Add(*c)
		delete(d.pending, w.table)
	}
}
