package detector

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// WindowSet is one table's windows over one span: the table's own Window
// and one for each global secondary index its records wrote, with what was
// counted for the table before its window opened. A record goes to the
// table's window and to the windows of the indexes it touched.
//
// The Detector keeps a set per table and aligned span. The Lambda keeps one
// per tumbling window, over the span Lambda chose, and carries it from one
// batch to the next in the window's state (MarshalState, UnmarshalState).
//
// A WindowSet is not safe for concurrent use.
type WindowSet struct {
	cfg        Config
	table      string // "" until known: a Lambda event need not name it
	start, end time.Time
	win        *Window // the table's; nil until the set's table is known
	// indexes are the index windows, in the order their indexes first
	// wrote: a table has few, so a scan finds one faster than a map.
	indexes []*Window
	// early is what was counted before win opened: a batch may start with
	// malformed records, or hold nothing else.
	early report.Totals
}

// errNoTable: a set whose table no record, count or event has named cannot
// open a window.
var errNoTable = errors.New("detector: no table named: neither the record nor its event names one")

// NewWindowSet returns an empty set of table's windows over [start, end).
// table may be "": the set then takes the table of the first record or
// count that names one, and until then keeps its counts aside (Unplaced).
// The table's window opens with the first record or count.
func NewWindowSet(cfg Config, table string, start, end time.Time) *WindowSet {
	return &WindowSet{cfg: cfg, table: table, start: start, end: end}
}

// newOpenSet returns a set whose table's window is open at once: the
// Detector's, which makes a set for a record's table, "" included (a
// replayed record may carry no eventSourceARN).
func newOpenSet(cfg Config, table string, start, end time.Time) (*WindowSet, error) {
	s := NewWindowSet(cfg, table, start, end)
	if err := s.openAs(table); err != nil {
		return nil, err
	}
	return s, nil
}

// Add counts a record in the table's window and in the windows of the
// indexes it touched: Sink. Its time decides nothing here: the caller has
// chosen the set. It fails only when no table is known, or a window cannot
// be made (a span that ends before it starts).
func (s *WindowSet) Add(r *record.Record) error {
	if s.win == nil {
		if err := s.open(r.Table); err != nil {
			return err
		}
	}
	s.win.Add(r)
	for k := range r.Indexes {
		write := &r.Indexes[k]
		if !write.Touched() { // never from the decoder, which lists only these
			continue
		}
		iw := s.index(write.Index)
		if iw == nil {
			var err error
			if iw, err = s.openIndex(write.Index); err != nil {
				return err
			}
		}
		iw.AddIndex(r, write)
	}
	return nil
}

// index returns the window of index name, nil when not open. It is inlined
// into Add: a call less for each index write.
func (s *WindowSet) index(name string) *Window {
	for _, w := range s.indexes {
		if w.index == name { // the decoder's string each time: equal pointers, one compare
			return w
		}
	}
	return nil
}

// openIndex opens the window of index name over the set's span.
func (s *WindowSet) openIndex(name string) (*Window, error) {
	w, err := NewIndexWindow(s.cfg.IndexSketchConfig(), s.win.table, name, s.start, s.end)
	if err != nil {
		return nil, err
	}
	w.Watch(s.cfg)
	s.indexes = append(s.indexes, w)
	return w, nil
}

// AddMalformed counts a record skipped as malformed: Sink. table, or the
// set's own when "", opens the table's window if it is not open, so that a
// batch of nothing but malformed records still shows in its window's
// MalformedRecords; with no table known it waits in Unplaced.
func (s *WindowSet) AddMalformed(table string) {
	if s.win != nil || s.open(table) == nil {
		s.win.AddMalformed(1)
		return
	}
	s.early.Malformed++
}

// AddInternal counts a record lost to a bug of ours (see InternalError), as
// AddMalformed counts a malformed one.
func (s *WindowSet) AddInternal(table string) {
	if s.win != nil || s.open(table) == nil {
		s.win.AddInternal(1)
		return
	}
	s.early.InternalErrors++
}

// AddDuplicate counts a record delivered again and counted once (see
// Deduper), as AddMalformed counts a malformed one.
func (s *WindowSet) AddDuplicate(table string) {
	if s.win != nil || s.open(table) == nil {
		s.win.AddDuplicate(1)
		return
	}
	s.early.Duplicates++
}

// open opens the table's window for table, or for the set's table when
// table is "", carrying what was counted before.
func (s *WindowSet) open(table string) error {
	table = cmp.Or(table, s.table)
	if table == "" {
		return errNoTable
	}
	return s.openAs(table)
}

func (s *WindowSet) openAs(table string) error {
	w, err := NewWindow(s.cfg.Sketch, table, s.start, s.end)
	if err != nil {
		return err
	}
	w.Watch(s.cfg)
	w.totals.Add(s.early)
	s.table, s.win, s.early = table, w, report.Totals{}
	return nil
}

// Unplaced returns what the set counted while it knew no table, and so
// holds in no window: a batch whose records all failed before naming one.
func (s *WindowSet) Unplaced() (malformed, internal uint64) {
	return s.early.Malformed, s.early.InternalErrors
}

// Windows returns the table's window, then its indexes', in the order they
// first wrote; nil while the table's window is not open.
func (s *WindowSet) Windows() []*Window {
	if s.win == nil {
		return nil
	}
	return append([]*Window{s.win}, s.indexes...)
}

// MarkTerminatedEarly marks every window of the set ended early by Lambda:
// the indexes' windows end with the table's.
func (s *WindowSet) MarkTerminatedEarly() {
	for _, w := range s.Windows() {
		w.MarkTerminatedEarly()
	}
}

// Reports returns the report of each window, in Windows' order.
func (s *WindowSet) Reports() []report.Report {
	return s.appendReports(nil)
}

func (s *WindowSet) appendReports(reps []report.Report) []report.Report {
	for _, w := range s.Windows() {
		reps = append(reps, w.Report(s.cfg))
	}
	return reps
}

// Onsets appends to dst the onsets of the set's windows (see
// Window.Onsets), by second, then table, index and key, and forgets them.
func (s *WindowSet) Onsets(dst []report.Onset) []report.Onset {
	n := len(dst)
	dst = s.appendOnsets(dst)
	sortOnsets(dst[n:])
	return dst
}

func (s *WindowSet) appendOnsets(dst []report.Onset) []report.Onset {
	if s.win == nil {
		return dst
	}
	dst = s.win.Onsets(dst)
	for _, w := range s.indexes {
		dst = w.Onsets(dst)
	}
	return dst
}

// sortIndexes orders the index windows by name: the Detector reports a
// closing set's indexes that way.
func (s *WindowSet) sortIndexes() {
	slices.SortFunc(s.indexes, func(a, b *Window) int { return cmp.Compare(a.index, b.index) })
}
