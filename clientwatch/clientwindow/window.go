package clientwindow

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// DynamoDB's per-partition read cap, and the defaults of the read
// thresholds (detector.Config's MinRCUPerSecond, CriticalRCUPerSecond and
// ReadPartitionLimit, which the stream side never reads) that follow from
// it the way the write defaults follow from 1,000 WCU/s.
const (
	DefaultReadPartitionLimit   = ddb.PartitionReadUnits
	DefaultCriticalRCUPerSecond = 2400
	DefaultMinRCUPerSecond      = 300
)

// CriticalLevels returns the per-second rates that make a client key
// critical under cfg: its reads in half RCU (CriticalRCUPerSecond, the
// default when unset) and its writes in WCU (CriticalWCUPerSecond), as
// Report judges a key's peaks. clientwatch announces keys as they reach
// them (HotReads, HotWrites).
func CriticalLevels(cfg detector.Config) (readHalf, write uint64) {
	cfg = withDefaults(cfg)
	return uint64(2 * cfg.CriticalRCUPerSecond), uint64(cfg.CriticalWCUPerSecond)
}

// Window summarises what an instrumented client saw of one table (or one
// of its global secondary indexes) in one window: per partition key, the
// requests, the read and write capacity consumed (RCU in half units, the
// granularity DynamoDB charges reads in), the throttled attempts and their
// reasons, the items a batch left unprocessed, the conditional-check
// failures and the latency of the calls, with the same bounded sketches as
// the stream side's detector.Window. Requests DynamoDB charged but that
// name no partition key the client can see (a Scan page without items, a
// PartiQL statement without a key literal, a table whose key schema is not
// known yet) count in the totals as unattributed.
//
// Its sketches are made on first use: a window that only ever counts
// unattributed calls holds none, and one without throttles, batches or
// failed conditions holds three (calls, reads, writes). MaxBytes bounds
// what a window can hold.
//
// A Window is not safe for concurrent use.
type Window struct {
	table, index string
	start, end   int64
	cfg          sketch.Config

	requests, unattributed             uint64
	rcuHalf, wcu                       uint64 // totals, exact, attributed or not
	unattributedRCUHalf, unattributedW uint64
	apportionedRCUHalf, apportionedW   uint64
	throttled, conditionalFailed       uint64
	unprocessed                        uint64
	dropped, internalErrors            uint64
	estimated                          bool

	calls, reads, writes *sketch.Summary
	// events counts, per key, the rarer things that happen to it, each
	// under its own kind byte before the typed key (see eventKind): one
	// sketch rather than one per kind, since most windows have none.
	events *sketch.Summary
	// slack holds, per key, how far its apportioned shares may be off
	// either way (slackKind): the units a multi-key call spent that no
	// known item size pins to one key.
	slack *sketch.Summary

	sat     saturation
	latency latencyTable
	reasons map[string]map[string]uint64 // typed key -> reason -> attempts; bounded by maxReasonKeys
	keyBuf  []byte
}

// maxReasonKeys bounds the keys whose throttling reasons are kept one by
// one; throttles beyond it are still counted, per key, in the sketches.
const maxReasonKeys = 256

// eventKind is the first byte of a key in Window.events.
type eventKind byte

const (
	eventThrottle    eventKind = 't' // a throttled attempt on the key
	eventConditional eventKind = 'c' // a write refused by its condition
	eventUnprocessed eventKind = 'u' // an item a batch left unprocessed
	eventApportioned eventKind = 'a' // a share of a multi-key call
)

// slackKind is the first byte of a key in Window.slack.
type slackKind byte

const (
	slackReadBelow  slackKind = 'r' // half RCU the key's shares may be above its truth
	slackReadAbove  slackKind = 'R' // half RCU they may be below it
	slackWriteBelow slackKind = 'w'
	slackWriteAbove slackKind = 'W'
)

// New returns an empty client-side window for table covering [start, end).
func New(cfg sketch.Config, table string, start, end time.Time) (*Window, error) {
	return NewIndex(cfg, table, "", start, end)
}

// NewIndex returns an empty client-side window for the global secondary
// index index of table ("" for the table itself): its keys are the
// index's partition keys, its capacity the index's own.
func NewIndex(cfg sketch.Config, table, index string, start, end time.Time) (*Window, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("clientwindow: window end %s is not after start %s", end, start)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("clientwindow: %w", err)
	}
	w := &Window{table: table, index: index, start: start.Unix(), end: end.Unix(), cfg: cfg}
	w.sat.sec = w.start - 1
	w.Watch(detector.DefaultConfig())
	return w, nil
}

// MaxBytes bounds the heap one Window made with cfg holds,
// however many keys it sees, while no typed key is longer than keyLen
// bytes (sketch.MaxKeyLen at most): its five sketches at their largest,
// the latency table full, its throttling reasons at their cap, its
// saturation seconds (detector.MaxWatchedKeys keys a side) at theirs. A
// watcher multiplies it by the windows it may hold to keep under a memory
// cap. TestMaxBytes holds it against a measured worst case.
func MaxBytes(cfg sketch.Config, keyLen int) int {
	keyLen = min(max(keyLen, 1), sketch.MaxKeyLen)
	// Per heavy-hitter counter: the buffers of keys longer than a slot
	// holds; events and slack keys carry a kind byte more.
	long, kinded := 0, keyLen+1
	if kinded > 48 {
		long = 64 + 24
	}
	if kinded > 64 {
		long += roundUp(kinded, 16)
	}
	index := 8
	for index < 4*cfg.Counters {
		index *= 2
	}
	perSketch := cfg.Width*cfg.Depth*8 + // count-min cells
		cfg.Counters*(128+16+long) + index*8 + // heavy-hitter slots, heap, buffers and index
		8192*8 + // the exact set of the first 4,096 key hashes, at its largest
		16<<10 + 4<<10 // the dense HyperLogLog, and the sketch's own fields
	latency := latencySlots * (424 + roundUp(keyLen, 16) + 16)
	reasons := maxReasonKeys * (roundUp(keyLen, 16) + 16 + 64 + 208)
	// Saturation: the keys it follows, and a buffer of the keys at a level
	// in one second (at most every heavy hitter), grown by doubling.
	var sat detector.SaturatedSeconds
	seconds := 2*sat.MaxBytes() + 2*cfg.Counters*int(unsafe.Sizeof(sketch.TickEntry{}))
	return 5*perSketch + latency + reasons + seconds + 2*roundUp(keyLen, 16) + 1<<10
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// Table returns the window's table name.
func (w *Window) Table() string { return w.table }

// Index returns the global secondary index the window is of, "" for a table.
func (w *Window) Index() string { return w.index }

// Start returns the window's first instant.
func (w *Window) Start() time.Time { return time.Unix(w.start, 0).UTC() }

// End returns the instant just after the window.
func (w *Window) End() time.Time { return time.Unix(w.end, 0).UTC() }

func (w *Window) typed(k ddb.Key) []byte {
	w.keyBuf = append(w.keyBuf[:0], byte(k.Type))
	w.keyBuf = append(w.keyBuf, k.Value...)
	return w.keyBuf
}

// kinded is the key of k under kind, in events or slack.
func (w *Window) kinded(kind byte, k ddb.Key) []byte {
	w.keyBuf = append(w.keyBuf[:0], kind, byte(k.Type))
	w.keyBuf = append(w.keyBuf, k.Value...)
	return w.keyBuf
}

// summary returns *s, made on first use (the config was validated).
func (w *Window) summary(s **sketch.Summary) *sketch.Summary {
	if *s == nil {
		var err error
		if *s, err = sketch.NewSummary(w.cfg); err != nil {
			panic(err) // validated in NewIndex
		}
	}
	return *s
}

// AddRequest counts one call (all its attempts) on key k at time t, and,
// when withLatency (the call touched k alone), its latency as the caller
// saw it. A call on several keys is counted once per key, and once in the
// window's Requests when first is true.
func (w *Window) AddRequest(k ddb.Key, t time.Time, latency time.Duration, withLatency, first bool) {
	if first {
		w.requests++
	}
	key := w.typed(k)
	w.summary(&w.calls).Add(key, 1, t.Unix(), 0)
	if withLatency {
		w.latency.add(key, sketch.Hash(key), latency)
	}
}

// AddUnattributed counts one call whose capacity no key can be charged with.
func (w *Window) AddUnattributed(rcuHalf, wcu uint64) {
	w.requests++
	w.unattributed++
	w.rcuHalf += rcuHalf
	w.wcu += wcu
	w.unattributedRCUHalf += rcuHalf
	w.unattributedW += wcu
}

// AddCapacity charges key k with read capacity (in half RCU) and write
// capacity consumed at time t, reported for the key alone (AddShare
// charges a key's share of a multi-key request).
func (w *Window) AddCapacity(k ddb.Key, t time.Time, rcuHalf, wcu uint64) {
	w.charge(k, t.Unix(), rcuHalf, wcu)
}

// AddShare charges key k with its share of a multi-key call's capacity:
// units of read capacity in half RCU when read, else of write capacity.
// It widens the key's bounds: its true units lie within [share − below,
// share + above], because the call named items whose size the client
// could not see (a batch's deletes, say), and so could not pin the call's
// total on each key exactly.
func (w *Window) AddShare(k ddb.Key, t time.Time, read bool, units, below, above uint64) {
	tick := t.Unix()
	lo, hi := slackWriteBelow, slackWriteAbove
	if read {
		w.charge(k, tick, units, 0)
		w.markApportioned(k, tick, units, 0)
		lo, hi = slackReadBelow, slackReadAbove
	} else {
		w.charge(k, tick, 0, units)
		w.markApportioned(k, tick, 0, units)
	}
	if below > 0 {
		w.summary(&w.slack).Add(w.kinded(byte(lo), k), below, tick, 0)
	}
	if above > 0 {
		w.summary(&w.slack).Add(w.kinded(byte(hi), k), above, tick, 0)
	}
}

// charge is the one place a key's units and their per-second peaks are
// counted: a rule that must see each second's units per key (a saturation
// rule, a callback) hooks in here.
func (w *Window) charge(k ddb.Key, tick int64, rcuHalf, wcu uint64) {
	if tick != w.sat.sec {
		w.nextSecond(tick)
	}
	w.rcuHalf += rcuHalf
	w.wcu += wcu
	if rcuHalf > 0 {
		w.summary(&w.reads).Add(w.typed(k), rcuHalf, tick, 0)
	}
	if wcu > 0 {
		w.summary(&w.writes).Add(w.typed(k), wcu, tick, 0)
	}
}

func (w *Window) markApportioned(k ddb.Key, tick int64, rcuHalf, wcu uint64) {
	w.apportionedRCUHalf += rcuHalf
	w.apportionedW += wcu
	w.event(eventApportioned, k, tick, 1) // 0-unit shares count too
}

func (w *Window) event(kind eventKind, k ddb.Key, tick int64, n uint64) {
	w.summary(&w.events).Add(w.kinded(byte(kind), k), n, tick, 0)
}

// AddThrottle counts one throttled attempt of a call on key k alone, with
// DynamoDB's ThrottlingReasons for it (none from older endpoints): once in
// the window's total and once for the key.
func (w *Window) AddThrottle(k ddb.Key, t time.Time, reasons []string) {
	w.throttled++
	w.AddKeyThrottle(k, t, reasons)
}

// AddThrottledAttempt counts one throttled attempt in the window's total
// only: a throttled request counts once there however many keys it names,
// each of which AddKeyThrottle counts.
func (w *Window) AddThrottledAttempt() { w.throttled++ }

// AddKeyThrottle counts one throttled attempt for key k, not in the
// window's total (see AddThrottledAttempt), with its reasons.
func (w *Window) AddKeyThrottle(k ddb.Key, t time.Time, reasons []string) {
	w.event(eventThrottle, k, t.Unix(), 1)
	key := w.typed(k)
	m := w.reasons[string(key)]
	if m == nil {
		if len(w.reasons) >= maxReasonKeys {
			return
		}
		if w.reasons == nil {
			w.reasons = map[string]map[string]uint64{}
		}
		m = map[string]uint64{}
		w.reasons[string(key)] = m
	}
	if len(reasons) == 0 {
		m[""]++
	}
	for _, r := range reasons {
		m[r]++
	}
}

// AddUnprocessed counts n items of key k that a batch handed back
// unprocessed (UnprocessedItems, UnprocessedKeys): DynamoDB's throttling of
// part of a batch, counted apart from throttled requests.
func (w *Window) AddUnprocessed(k ddb.Key, t time.Time, n uint64) {
	w.unprocessed += n
	w.event(eventUnprocessed, k, t.Unix(), n)
}

// AddConditionalCheckFailed counts a write on key k refused by its
// condition: DynamoDB still charges it, and hides it from streams.
func (w *Window) AddConditionalCheckFailed(k ddb.Key, t time.Time) {
	w.conditionalFailed++
	w.event(eventConditional, k, t.Unix(), 1)
}

// AddDropped counts calls the client could not record (its queue was full).
func (w *Window) AddDropped(n uint64) { w.dropped += n }

// AddInternalErrors counts calls whose recording failed on a bug of ours
// (a panic, recovered): never the caller's fault, and never the call's.
func (w *Window) AddInternalErrors(n uint64) { w.internalErrors += n }

// SetEstimated marks the window's capacity as estimated from item sizes
// rather than reported by DynamoDB.
func (w *Window) SetEstimated() { w.estimated = true }

// ReadCapacity and WriteCapacity return the window's exact totals.
func (w *Window) ReadCapacity() float64 { return float64(w.rcuHalf) / 2 }

// WriteCapacity returns the window's exact WCU total.
func (w *Window) WriteCapacity() uint64 { return w.wcu }

// Requests returns the calls counted in the window.
func (w *Window) Requests() uint64 { return w.requests }

// Dropped returns the calls counted as dropped in the window.
func (w *Window) Dropped() uint64 { return w.dropped }

// KeyPeaks returns a lower bound on key k's largest read (in half RCU)
// and write units within one second of the window, from the heavy
// hitters (0 for a key they do not track). Checked right after each
// charge, it says when a key crosses a per-second rate.
func (w *Window) KeyPeaks(k ddb.Key) (rcuHalf, wcu uint64) {
	key := w.typed(k)
	if w.reads != nil {
		if e, ok := w.reads.Lookup(key); ok {
			rcuHalf = e.Peak
		}
	}
	if w.writes != nil {
		if e, ok := w.writes.Lookup(key); ok {
			wcu = e.Peak
		}
	}
	return rcuHalf, wcu
}
