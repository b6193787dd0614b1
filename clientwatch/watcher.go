package clientwatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Publisher sends closed windows' reports on, off the request path: to
// CloudWatch with alert.ClientPublisher, or anywhere else. Its error says
// what did not go out; the Watcher never passes it to a caller's call.
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
	// partition key attribute. A table missing here is learnt with
	// DescribeTable through Describe, off the request path; until its key
	// is known its calls count as unattributed.
	PartitionKeys map[string]string
	// Describe answers DescribeTable for tables PartitionKeys lacks; nil
	// leaves them unattributed. It may be a plain client or the
	// instrumented one (the middleware passes DescribeTable through).
	Describe keyschema.DescribeTableAPI

	// Publisher receives each closed window's report from Run; nil keeps
	// them for Reports.
	Publisher Publisher
	// Queue is how many closed windows may wait for Run; a window closed
	// while the queue is full is dropped and its calls are counted in the
	// next report's Dropped. Default 2: a window holds up to about 800 KB
	// (see README), and an open window plus two queued and one being
	// reported stay under 4 MB per table.
	Queue int

	// Now is the clock; time.Now by default. Tests inject one.
	Now func() time.Time
}

// maxKept bounds the reports Run keeps for Reports when there is no
// Publisher.
const maxKept = 256

// DefaultOptions returns the options used when nothing is set.
func DefaultOptions() Options {
	return Options{Detector: detector.DefaultConfig(), Queue: 2}
}

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("clientwatch: invalid configuration")

// Watcher records what a DynamoDB client's calls cost, per partition key.
// Its methods are safe for concurrent use. Recording takes one short lock
// per call; building and publishing reports happen in Run.
type Watcher struct {
	cfg       detector.Config
	now       func() time.Time
	monotonic bool // now is time.Now: a call's end is its start plus the monotonic time elapsed
	describe  keyschema.DescribeTableAPI
	publisher Publisher

	schemaMu sync.RWMutex
	schemas  map[string]string    // table -> partition key attribute
	learning map[string]time.Time // tables being (or last failed being) described
	lookups  sync.WaitGroup

	mu      sync.Mutex
	windows map[string]*detector.ClientWindow
	rec     recorder // scratch for one call, used under mu

	queue   chan *detector.ClientWindow
	dropped atomic.Uint64 // calls in windows the queue had no room for
	done    []report.ClientReport
	doneMu  sync.Mutex
}

// New returns a Watcher, or an error wrapping ErrConfig.
func New(opts Options) (*Watcher, error) {
	if err := opts.Detector.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if opts.Queue < 0 || opts.Queue > 1024 {
		return nil, fmt.Errorf("%w: queue %d: want 0 to 1024 (0: the default, 2)", ErrConfig, opts.Queue)
	}
	if opts.Queue == 0 {
		opts.Queue = 2
	}
	monotonic := opts.Now == nil
	if monotonic {
		opts.Now = time.Now
	}
	w := &Watcher{
		cfg:       opts.Detector,
		now:       opts.Now,
		monotonic: monotonic,
		describe:  opts.Describe,
		publisher: opts.Publisher,
		schemas:   map[string]string{},
		learning:  map[string]time.Time{},
		windows:   map[string]*detector.ClientWindow{},
		queue:     make(chan *detector.ClientWindow, opts.Queue),
	}
	for t, pk := range opts.PartitionKeys {
		if t == "" || pk == "" {
			return nil, fmt.Errorf("%w: partition key %q of table %q: want both", ErrConfig, pk, t)
		}
		w.schemas[t] = pk
	}
	return w, nil
}

// Middleware returns the stack mutator to append to
// dynamodb.Options.APIOptions. It adds two middlewares: one first in the
// Initialize step, which sees each call once, and one just inside the
// SDK's deserializer, which takes the capacity it asked for off the wire.
func (w *Watcher) Middleware() func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return errors.Join(
			s.Initialize.Add(w, middleware.Before),
			// Just inside the SDK's deserializer: outside the CRC32 check
			// and gzip (see wire.go).
			s.Deserialize.Insert(stripCapacityWire{}, "OperationDeserializer", middleware.After),
		)
	}
}

// ClientOption returns an option for dynamodb.NewFromConfig or dynamodb.New
// that installs the middleware.
func (w *Watcher) ClientOption() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, w.Middleware()) }
}

// partitionKey returns the table's partition key attribute, or "" while it
// is unknown; then it starts learning it, once, off the request path.
func (w *Watcher) partitionKey(table string) string {
	w.schemaMu.RLock()
	pk := w.schemas[table]
	w.schemaMu.RUnlock()
	if pk != "" || w.describe == nil {
		return pk
	}
	now := w.now()
	w.schemaMu.Lock()
	defer w.schemaMu.Unlock()
	if pk = w.schemas[table]; pk != "" {
		return pk
	}
	if last, ok := w.learning[table]; ok && (last.IsZero() || now.Sub(last) < time.Minute) {
		return "" // in flight, or failed less than a minute ago
	}
	w.learning[table] = time.Time{}
	w.lookups.Add(1)
	go w.learn(table)
	return ""
}

func (w *Watcher) learn(table string) {
	defer w.lookups.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := keyschema.Lookup(ctx, w.describe, table)
	w.schemaMu.Lock()
	defer w.schemaMu.Unlock()
	if err != nil {
		w.learning[table] = w.now() // try again in a minute
		return
	}
	w.schemas[table] = s.PartitionKey
	delete(w.learning, table)
}

// AwaitSchemas waits until the DescribeTable calls in flight have answered.
func (w *Watcher) AwaitSchemas() { w.lookups.Wait() }

// window returns the open window of table that holds t, closing the
// table's previous window onto the queue (never blocking) when t is past
// its end. It runs under w.mu.
func (w *Watcher) window(table string, t time.Time) *detector.ClientWindow {
	cw := w.windows[table]
	if cw != nil && t.Before(cw.End()) {
		return cw
	}
	if cw != nil {
		w.enqueue(cw)
	}
	start := windowStart(t, w.cfg.Window)
	nw, err := detector.NewClientWindow(w.cfg.Sketch, table, start, start.Add(w.cfg.Window))
	if err != nil {
		panic(err) // the sketch config was validated in New
	}
	if d := w.dropped.Swap(0); d > 0 {
		nw.AddDropped(d)
	}
	w.windows[table] = nw
	return nw
}

func (w *Watcher) enqueue(cw *detector.ClientWindow) {
	select {
	case w.queue <- cw:
	default:
		w.dropped.Add(cw.Requests() + cw.Dropped()) // its own count of earlier drops too
	}
}

// windowStart aligns the client's windows as the stream's are aligned.
func windowStart(t time.Time, window time.Duration) time.Time { return report.WindowStart(t, window) }

// Flush closes every window that ended by t onto the queue: call it when
// the application goes quiet, or let Run do it each second.
func (w *Watcher) Flush(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for table, cw := range w.windows {
		if !t.Before(cw.End()) {
			w.enqueue(cw)
			delete(w.windows, table)
		}
	}
}

// Run publishes the closed windows' reports until ctx ends, closing quiet
// windows every second; then it closes and publishes every open window and
// returns. Without a Publisher the reports wait for Reports.
func (w *Watcher) Run(ctx context.Context) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case cw := <-w.queue:
			w.publish(ctx, cw)
		case <-tick.C:
			w.Flush(w.now())
		case <-ctx.Done():
			for _, r := range w.closeAll() {
				w.deliver(context.WithoutCancel(ctx), []report.ClientReport{r})
			}
			return nil
		}
	}
}

// Reports closes every open window, builds the report of each closed one
// (oldest first), and returns them along with those Run kept for want of a
// Publisher. It is for tests, short programs and shutdown.
func (w *Watcher) Reports() []report.ClientReport {
	reps := w.closeAll()
	w.doneMu.Lock()
	kept := w.done
	w.done = nil
	w.doneMu.Unlock()
	return sortReports(append(kept, reps...))
}

func (w *Watcher) closeAll() []report.ClientReport {
	w.mu.Lock()
	var open []*detector.ClientWindow
	for table, cw := range w.windows {
		open = append(open, cw)
		delete(w.windows, table)
	}
	w.mu.Unlock()
	var reps []report.ClientReport
	for {
		select {
		case cw := <-w.queue:
			reps = append(reps, cw.Report(w.cfg))
			continue
		default:
		}
		break
	}
	for _, cw := range open {
		reps = append(reps, cw.Report(w.cfg))
	}
	reps = sortReports(reps)
	if d := w.dropped.Swap(0); d > 0 {
		if len(reps) == 0 {
			w.dropped.Add(d) // no report to carry the count yet
		} else {
			reps[len(reps)-1].Dropped += d
		}
	}
	return reps
}

func (w *Watcher) publish(ctx context.Context, cw *detector.ClientWindow) {
	w.deliver(ctx, []report.ClientReport{cw.Report(w.cfg)})
}

func (w *Watcher) deliver(ctx context.Context, reps []report.ClientReport) {
	if w.publisher == nil {
		w.doneMu.Lock()
		w.done = append(w.done, reps...)
		if n := len(w.done) - maxKept; n > 0 {
			// Nobody is reading them: keep the newest, count the rest.
			for _, r := range w.done[:n] {
				w.dropped.Add(r.Requests + r.Dropped)
			}
			w.done = slices.Delete(w.done, 0, n)
		}
		w.doneMu.Unlock()
		return
	}
	// Nothing here may reach a caller's call; the error is dropped until
	// Options has a logger to tell it to.
	_ = w.publisher.Publish(ctx, reps)
}

func sortReports(reps []report.ClientReport) []report.ClientReport {
	slices.SortStableFunc(reps, func(a, b report.ClientReport) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		switch {
		case a.Table < b.Table:
			return -1
		case a.Table > b.Table:
			return 1
		}
		return 0
	})
	return reps
}
