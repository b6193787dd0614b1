package clientwatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Publisher sends closed windows' reports on, off the request path: to
// CloudWatch with alert.ClientPublisher, to OpenTelemetry with
// otelwatch.Publisher, or anywhere else. Its error says what did not go
// out; the Watcher logs it and never passes it to a caller's call.
type Publisher interface {
	Publish(ctx context.Context, reports []report.ClientReport) error
}

// Options configures a Watcher. Only Detector is required; start from
// DefaultOptions.
type Options struct {
	// Detector holds the window length, the thresholds and the redaction
	// of keys in every report, exactly as on the stream side; the client
	// side adds MinRCUPerSecond, CriticalRCUPerSecond and
	// ReadPartitionLimit (zero: their defaults).
	Detector detector.Config

	// PartitionKeys maps a table name (as the calls give it) to its
	// partition key attribute, and IndexPartitionKeys a table's global
	// secondary indexes to theirs (a Query on an index is charged to the
	// index's key). What they lack is learnt with DescribeTable through
	// Describe, off the request path; until a table's key is known its
	// calls count as unattributed.
	PartitionKeys      map[string]string
	IndexPartitionKeys map[string]map[string]string
	// Describe answers DescribeTable for tables PartitionKeys lacks; nil
	// leaves them unattributed. It may be a plain client or the
	// instrumented one (the middleware passes DescribeTable through).
	Describe keyschema.DescribeTableAPI

	// EstimateCapacity makes the middleware leave ReturnConsumedCapacity
	// alone: it counts requests, throttles, latency and item sizes, and
	// estimates each call's units from the sizes of the items it sent and
	// got back (lower bounds; reports say capacity_estimated). For
	// services that cannot afford the few extra response bytes. A caller
	// that asks for capacity itself still has DynamoDB's own figure used.
	EstimateCapacity bool

	// MaxTables caps the tables (and global secondary indexes) that get a
	// window of their own at once, and MaxMemory the heap their windows
	// may hold, bounded by clientwindow.MaxBytes for the longest key
	// seen. Past either, a new table's calls count as unattributed in the
	// window of OtherTables, and a warning is logged. Zero: 64 tables and
	// 64 MiB.
	MaxTables int
	MaxMemory int64

	// Publisher receives each closed window's report from Run; nil keeps
	// them for Reports.
	Publisher Publisher
	// Queue is how many closed windows may wait for Run; a window closed
	// while the queue is full is dropped and its calls are counted in the
	// next report's Dropped. Default 2.
	Queue int

	// OnHotKey, when set, is called as soon as a key goes hot: within the
	// second its reads or writes cross a rate, it spends a third second of
	// the window at 90 % of a partition's limit, or DynamoDB throttles a
	// call on it (HotKeyReason), at most once per key, reason and window.
	// Run calls it, off the request path, one event at a time; the calls
	// only queue the events (a bounded queue: past it they are dropped and
	// counted in Failures, never a call blocked). It must return quickly.
	OnHotKey func(HotKeyEvent)

	// Logger receives what goes wrong off the request path: a DescribeTable
	// that failed, a publish that failed, tables past the cap, internal
	// errors. Nil: slog.Default().
	Logger *slog.Logger

	// Now is the clock; time.Now by default. Tests inject one.
	Now func() time.Time
}

// OtherTables is the table name of the window that counts, unattributed,
// the calls on tables past MaxTables or MaxMemory. DynamoDB table names
// cannot hold its parentheses or space, so it names no real table.
const OtherTables = "(other tables)"

// Defaults of the caps.
const (
	DefaultMaxTables = 64
	DefaultMaxMemory = 64 << 20
)

// maxKept bounds the reports Run keeps for Reports when there is no
// Publisher.
const maxKept = 256

// DefaultOptions returns the options used when nothing is set.
func DefaultOptions() Options {
	return Options{Detector: detector.DefaultConfig(), Queue: 2, MaxTables: DefaultMaxTables, MaxMemory: DefaultMaxMemory}
}

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("clientwatch: invalid configuration")

// Watcher records what a DynamoDB client's calls cost, per partition key.
// Its methods are safe for concurrent use. Recording takes one short lock
// per call; building and publishing reports happen in Run.
type Watcher struct {
	cfg       detector.Config
	now       func() time.Time
	monotonic bool // now is time.Now: read the monotonic clock only (see clock)
	// epoch anchors the monotonic readings to the wall clock: a reading is
	// epoch plus the monotonic time since. A monotonic reading costs half
	// what time.Now does (54 against 90 ns on this project's machine); the
	// epoch moves to the wall clock's time whenever a window opens.
	epoch     atomic.Pointer[time.Time]
	estimate  bool
	describe  keyschema.DescribeTableAPI
	publisher Publisher
	log       *slog.Logger
	hot       *hotWatch // nil without OnHotKey

	schemas schemaStore

	mu      sync.Mutex
	windows map[windowKey]*clientwindow.Window
	rec     recorder // scratch for one call, used under mu
	caps    tableCap
	// last is the window found last, valid while no window has closed
	// since (gen): most calls are on the table the call before was.
	last struct {
		key windowKey
		cw  *clientwindow.Window
		ok  bool
		end time.Time
		gen uint64
	}
	gen uint64 // counts windows closed

	queue    chan *clientwindow.Window
	dropped  atomic.Uint64 // calls in windows the queue had no room for
	internal atomic.Uint64 // internal errors not yet in a window
	done     []report.ClientReport
	doneMu   sync.Mutex

	// What went wrong off the request path, for Failures.
	describeFailed, publishFailed, pastCap atomic.Uint64
}

// windowKey names a window: a table, or one of its global secondary
// indexes.
type windowKey struct{ table, index string }

// New returns a Watcher, or an error wrapping ErrConfig.
func New(opts Options) (*Watcher, error) {
	if err := opts.Detector.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if opts.Queue < 0 || opts.Queue > 1024 {
		return nil, fmt.Errorf("%w: queue %d: want 0 to 1024 (0: the default, 2)", ErrConfig, opts.Queue)
	}
	if opts.MaxTables < 0 || opts.MaxMemory < 0 {
		return nil, fmt.Errorf("%w: MaxTables %d, MaxMemory %d: want ≥ 0 (0: the defaults, %d and %d)", ErrConfig, opts.MaxTables, opts.MaxMemory, DefaultMaxTables, DefaultMaxMemory)
	}
	opts.Queue = cmp.Or(opts.Queue, 2)
	opts.MaxTables = cmp.Or(opts.MaxTables, DefaultMaxTables)
	opts.MaxMemory = cmp.Or(opts.MaxMemory, DefaultMaxMemory)
	monotonic := opts.Now == nil
	if monotonic {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	w := &Watcher{
		cfg:       opts.Detector,
		now:       opts.Now,
		monotonic: monotonic,
		estimate:  opts.EstimateCapacity,
		describe:  opts.Describe,
		publisher: opts.Publisher,
		log:       opts.Logger,
		windows:   map[windowKey]*clientwindow.Window{},
		queue:     make(chan *clientwindow.Window, opts.Queue),
		caps:      tableCap{maxTables: opts.MaxTables, maxMemory: opts.MaxMemory, queue: opts.Queue},
	}
	if opts.OnHotKey != nil {
		w.hot = newHotWatch(opts.OnHotKey, opts.Detector)
	}
	if err := w.schemas.init(opts.PartitionKeys, opts.IndexPartitionKeys); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	w.anchor()
	return w, nil
}

// window returns the open window of k that holds t, closing k's previous
// window onto the queue (never blocking) when t is past its end. A table
// new to the watcher gets a window only within the caps: past them, it
// gets the window of OtherTables, and ok is false (its calls must count
// as unattributed). It runs under w.mu.
func (w *Watcher) window(k windowKey, t time.Time) (cw *clientwindow.Window, ok bool) {
	if l := &w.last; l.gen == w.gen && l.cw != nil && l.key == k && t.Before(l.end) {
		return l.cw, l.ok
	}
	cw, ok = w.lookupWindow(k, t)
	w.last.key, w.last.cw, w.last.ok, w.last.end, w.last.gen = k, cw, ok, cw.End(), w.gen
	return cw, ok
}

func (w *Watcher) lookupWindow(k windowKey, t time.Time) (cw *clientwindow.Window, ok bool) {
	cw = w.windows[k]
	if cw != nil && t.Before(cw.End()) {
		return cw, k.table != OtherTables
	}
	if cw == nil && k.table != OtherTables && !w.caps.admit(w, k, t) {
		cw, _ = w.lookupWindow(windowKey{table: OtherTables}, t)
		return cw, false
	}
	if cw != nil {
		w.enqueue(cw)
	}
	start := report.WindowStart(t, w.cfg.Window)
	nw, err := clientwindow.NewIndex(w.cfg.Sketch, k.table, k.index, start, start.Add(w.cfg.Window))
	if err != nil {
		panic(err) // the sketch config was validated in New
	}
	if d := w.dropped.Swap(0); d > 0 {
		nw.AddDropped(d)
	}
	if n := w.internal.Swap(0); n > 0 {
		nw.AddInternalErrors(n)
	}
	if w.estimate {
		nw.SetEstimated()
	}
	nw.Watch(w.cfg) // the saturation levels of its report, as hot keys are announced
	w.windows[k] = nw
	w.anchor()
	return nw, k.table != OtherTables
}

// anchor moves the monotonic clock's epoch to the wall clock's now, so
// that the readings follow any step of the wall clock within a window.
func (w *Watcher) anchor() {
	if w.monotonic {
		now := time.Now()
		w.epoch.Store(&now)
	}
}

func (w *Watcher) enqueue(cw *clientwindow.Window) {
	w.gen++
	select {
	case w.queue <- cw:
	default:
		w.dropped.Add(cw.Requests() + cw.Dropped()) // its own count of earlier drops too
	}
}

// Flush closes every window that ended by t onto the queue: call it when
// the application goes quiet, or let Run do it each second.
func (w *Watcher) Flush(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, cw := range w.windows {
		if !t.Before(cw.End()) {
			w.enqueue(cw)
			delete(w.windows, k)
			if w.hot != nil {
				w.hot.forget(k)
			}
		}
	}
}
