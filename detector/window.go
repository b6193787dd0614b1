package detector

import (
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/keypattern"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Window summarises the records of one table in one time window: exact
// counts and WCU, a sketch.Summary of the partition keys' write load, and
// per-stream-shard load. It travels in Lambda's tumbling-window state (see
// WindowSet.MarshalState), so it encodes to a few tens of KB and merges.
//
// A Window is not safe for concurrent use.
type Window struct {
	table      string
	index      string // a global secondary index's name; "" for the table itself
	start, end int64  // Unix seconds, [start, end)

	totals          report.Totals // records, WCU and what was counted beside them
	terminatedEarly bool
	// trimmed: keys were dropped from the summary to fit a byte budget
	// (see marshalWithin); its floor, and so OtherKeysWCUUpper, covers them.
	trimmed bool

	summary *sketch.Summary
	shards  []shardLoad
	// patterns audits the window's key design (package keypattern): the
	// pattern of every key it counts, at any traffic level.
	patterns *keypattern.Table

	// sec is the latest second of record time counted (start-1 before
	// any); see onset.go for the rest, which a watching window fills.
	sec         int64
	watch       watch // by value: a window decoded from the state watches without an allocation
	watchedKeys watchedKeys
	pending     []report.Onset
	dropped     uint64
	ticks       []sketch.TickEntry // scratch of checkSecond

	keyBuf, itemBuf []byte // scratch: typed key bytes, reused per record
}

// shardLoad is one stream shard's write load in the window, with its peak
// second tracked exactly as long as the shard's records arrive in time order
// (Lambda delivers a shard's records in order).
type shardLoad struct {
	id            string
	records, wcu  uint64
	tick          int64
	tickWCU, peak uint64
	saturated     uint32 // seconds at or above the saturation level, the current one aside
}

// NewWindow returns an empty window for table covering [start, end).
func NewWindow(cfg sketch.Config, table string, start, end time.Time) (*Window, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("detector: window end %s is not after start %s", end, start)
	}
	s, err := sketch.NewSummary(cfg)
	if err != nil {
		return nil, fmt.Errorf("detector: %w", err)
	}
	return &Window{table: table, start: start.Unix(), end: end.Unix(), summary: s, patterns: newPatterns(tableCache), sec: start.Unix() - 1}, nil
}

// The keys whose pattern a window remembers (keypattern.Config.Cache): an
// index's windows see fewer keys than the table's, and a set holds up to
// MaxIndexes of them, each 32 bytes a key.
const (
	tableCache = 4096
	indexCache = 1024
)

// newPatterns returns an empty pattern table of the window's state's
// shape: keypattern's defaults, remembering cache keys.
func newPatterns(cache int) *keypattern.Table {
	cfg := keypattern.DefaultConfig()
	cfg.Cache = cache
	t, err := keypattern.New(cfg)
	if err != nil {
		panic("detector: " + err.Error()) // constants: a bug of ours
	}
	return t
}

// NewIndexWindow returns an empty window for global secondary index index
// of table: the index's write load, judged like a table's.
func NewIndexWindow(cfg sketch.Config, table, index string, start, end time.Time) (*Window, error) {
	w, err := NewWindow(cfg, table, start, end)
	if err != nil {
		return nil, err
	}
	w.index = index
	w.patterns = newPatterns(indexCache)
	return w, nil
}

// Index returns the name of the window's index; "" for a table's window.
func (w *Window) Index() string { return w.index }

// AddIndex counts what record r cost this window's index (iw, one of
// r.Indexes): each write goes to the index key it wrote, so a key change
// charges the old key its delete and the new key its put. A record that
// did not touch the index is not counted. Stream shards are not tracked:
// they follow the table's partitions, not the index's.
func (w *Window) AddIndex(r *record.Record, iw *record.IndexWrite) {
	if !iw.Touched() {
		return
	}
	w.totals.Records++
	w.totals.WCU += iw.WCU
	if iw.TTLWCU > 0 {
		w.totals.TTLDeletes++
		w.totals.TTLWCU += iw.TTLWCU
	}
	if !iw.Exact {
		w.totals.WCUIsLowerBound = true
	}
	tick := w.start
	if !r.Time.IsZero() {
		tick = r.Time.Unix()
	}
	if tick > w.sec {
		w.nextSecond(tick)
	}
	if iw.Delete.WCU > 0 {
		w.addEntry(&iw.Delete, tick)
	}
	if iw.Put.WCU > 0 {
		w.addEntry(&iw.Put, tick)
	}
	// No stream shards: they are the table's partitions, not the index's.
}

// addEntry counts one write of an index entry under its index key.
func (w *Window) addEntry(e *ddb.IndexEntry, tick int64) {
	w.keyBuf = appendTypedKey(w.keyBuf[:0], e.Key)
	w.summary.Add(w.keyBuf, e.WCU, tick, 0)
	w.patterns.Add(w.keyBuf, sketch.Hash(w.keyBuf), e.WCU, tick)
}

// Table returns the window's table name.
func (w *Window) Table() string { return w.table }

// Start returns the window's first instant.
func (w *Window) Start() time.Time { return time.Unix(w.start, 0).UTC() }

// End returns the instant just after the window.
func (w *Window) End() time.Time { return time.Unix(w.end, 0).UTC() }

// Records returns the number of records added.
func (w *Window) Records() uint64 { return w.totals.Records }

// Add counts one decoded record. Its time decides nothing here: the caller
// (a WindowSet) has already chosen the window. A record without a time
// counts in the window's first second.
func (w *Window) Add(r *record.Record) {
	w.totals.Records++
	w.totals.WCU += r.WCU
	if r.TTLDelete {
		w.totals.TTLDeletes++
	}
	if !r.WCUExact {
		w.totals.WCUIsLowerBound = true
	}
	tick := w.start
	if !r.Time.IsZero() {
		tick = r.Time.Unix()
	}
	if tick > w.sec {
		w.nextSecond(tick)
	}
	var item uint64
	if r.SortKey.Present() {
		w.itemBuf = appendTypedKey(w.itemBuf[:0], r.SortKey)
		// Never 0: 0 means "no sort key" to the sketch.
		item = sketch.Hash(w.itemBuf) | 1
	}
	w.keyBuf = appendTypedKey(w.keyBuf[:0], r.PartitionKey)
	w.summary.Add(w.keyBuf, r.WCU, tick, item)
	w.patterns.Add(w.keyBuf, sketch.Hash(w.keyBuf), r.WCU, tick)
	if r.Shard != "" {
		w.shard(r.Shard).add(tick, r.WCU, w.watch.sat)
	}
}

// AddMalformed counts n records that were skipped as malformed.
func (w *Window) AddMalformed(n uint64) { w.totals.Malformed += n }

// AddInternal counts n records that could not be handled because of a bug
// in hotkeys (see InternalError): never the input's fault, so never
// counted as malformed.
func (w *Window) AddInternal(n uint64) { w.totals.InternalErrors += n }

// AddDuplicate counts n records delivered again, counted once (Deduper).
func (w *Window) AddDuplicate(n uint64) { w.totals.Duplicates += n }

// AddLate counts n records that arrived after the window had closed.
func (w *Window) AddLate(n uint64) { w.totals.Late += n }

// MarkTerminatedEarly records that Lambda ended the window before its end.
func (w *Window) MarkTerminatedEarly() { w.terminatedEarly = true }

func (w *Window) shard(id string) *shardLoad {
	for i := range w.shards {
		if w.shards[i].id == id {
			return &w.shards[i]
		}
	}
	w.shards = append(w.shards, shardLoad{id: id, tick: w.start})
	return &w.shards[len(w.shards)-1]
}

// add counts a record of the shard; sat is the saturation level (0: none),
// against which each second the shard leaves behind is counted.
func (s *shardLoad) add(tick int64, wcu, sat uint64) {
	s.records++
	s.wcu += wcu
	switch {
	case tick == s.tick:
		s.tickWCU += wcu
	case tick > s.tick:
		if sat > 0 && s.tickWCU >= sat {
			s.saturated++
		}
		s.tick, s.tickWCU = tick, wcu
	default:
		// Out of order: the true WCU of that second is at least wcu.
		s.peak = max(s.peak, wcu)
	}
	s.peak = max(s.peak, s.tickWCU)
}

// Merge adds other into w: both must cover the same table and span and use
// the same sketch configuration. Merged figures keep their guarantees:
// totals stay exact, key bounds still bracket the truth, and peaks stay
// lower bounds.
func (w *Window) Merge(other *Window) error {
	if w.table != other.table || w.index != other.index || w.start != other.start || w.end != other.end {
		return fmt.Errorf("detector: cannot merge window %s/%s [%d,%d) into %s/%s [%d,%d)",
			other.table, other.index, other.start, other.end, w.table, w.index, w.start, w.end)
	}
	if err := w.summary.Merge(other.summary); err != nil {
		return fmt.Errorf("detector: %w", err)
	}
	if err := w.patterns.Merge(other.patterns); err != nil {
		return fmt.Errorf("detector: %w", err)
	}
	w.totals.Add(other.totals)
	w.terminatedEarly = w.terminatedEarly || other.terminatedEarly
	w.trimmed = w.trimmed || other.trimmed
	w.mergeWatched(other)
	for _, o := range other.shards {
		s := w.shard(o.id)
		s.records += o.records
		s.wcu += o.wcu
		if s.tick == o.tick {
			s.tickWCU += o.tickWCU
		} else if o.tick > s.tick {
			s.tick, s.tickWCU = o.tick, o.tickWCU
		}
		s.peak = max(s.peak, o.peak, s.tickWCU)
		s.saturated += o.saturated
	}
	return nil
}

// appendTypedKey writes a key as the sketch sees it: the type byte, then
// the canonical value, so "1" the string and 1 the number stay apart.
func appendTypedKey(dst []byte, k ddb.Key) []byte {
	dst = append(dst, byte(k.Type))
	return append(dst, k.Value...)
}

// AppendDistinct appends the encoding of the window's distinct-key sketch
// (a HyperLogLog) to b: what a stored history of windows unites to count
// distinct keys over any span.
func (w *Window) AppendDistinct(b []byte) ([]byte, error) { return w.summary.AppendDistinct(b) }
