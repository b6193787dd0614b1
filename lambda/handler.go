package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// State keys of a tumbling window. Lambda caps state at 1 MB per shard;
// see state.go for how the windows are kept under it.
const (
	stateWindow  = "hotkeys.window"   // base64 of the table's detector.Window
	stateIndex   = "hotkeys.index."   // + 0, 1, ...: base64 of an index's detector.Window
	stateLastSeq = "hotkeys.last_seq" // highest sequence number counted in this window
)

// maxMalformedLogs caps the malformed-record log lines per invocation; the
// MalformedRecords metric counts them all.
const maxMalformedLogs = 10

// schemaLookup is what the handler needs of keyschema.Cache.
type schemaLookup interface {
	Lookup(ctx context.Context, table string) (keyschema.Schema, error)
}

// publisher is what the handler needs of alert.Publisher.
type publisher interface {
	Publish(ctx context.Context, reps []report.Report) (alert.Result, error)
}

// feeder is what the handler needs of detector.Feed.
type feeder interface {
	Decode(payload []byte, sink detector.Sink, h detector.Hooks) (detector.Counts, error)
	SetPartitionKey(name string)
}

// handler is the function. It implements lambda.Handler on the raw payload,
// because decoding through aws-lambda-go's typed events is 20× slower and
// fails a whole batch on one odd attribute.
type handler struct {
	cfg     detector.Config
	feed    feeder
	schemas schemaLookup
	pub     publisher
	log     *slog.Logger
	now     func() time.Time

	// Plain (non-tumbling) batches: windows kept in the warm container, and
	// the event ids recently counted, so a redelivered batch counts once.
	det  *detector.Detector
	seen *recentIDs

	// history stores each closed tumbling window's summary; nil when
	// HOTKEYS_HISTORY_TABLE is empty.
	history *historyStore

	// indexes keeps the decoder's global secondary indexes in step with
	// the table's (HOTKEYS_INDEXES).
	indexes *indexSource
}

// newHandler returns the function.
func newHandler(cfg detector.Config, partitionKey string, mode indexMode, schemas schemaLookup, pub publisher, log *slog.Logger, now func() time.Time) (*handler, error) {
	dec, err := record.NewDecoder(record.Config{PartitionKey: partitionKey})
	if err != nil {
		return nil, err
	}
	probe, err := record.NewDecoder(record.Config{PartitionKey: partitionKey})
	if err != nil {
		return nil, err
	}
	det, err := detector.New(cfg)
	if err != nil {
		return nil, err
	}
	return &handler{cfg: cfg, feed: detector.NewFeed(dec, now), schemas: schemas, pub: pub, log: log, now: now, det: det, seen: newRecentIDs(1 << 16),
		indexes: &indexSource{mode: mode, schemas: schemas, dec: dec, probe: probe, log: log, now: now}}, nil
}

// invocation is the work of one Invoke. It is the Feed's sink: records go
// to the tumbling window of the event's state, or, for a plain batch, to
// the container's detector.
type invocation struct {
	h        *handler
	event    record.Event
	tumbling bool
	sawEvent bool // the decoder delivered the event: it had read all of it
	window   *detector.Window
	// indexWins are the tumbling window's index windows, in the order
	// their indexes first wrote in it.
	indexWins []*detector.Window
	lastSeq   []byte
	// Counted before the tumbling window existed (a batch may start with
	// them, or hold nothing else).
	malformed, internal uint64
	logged              int
	// held are the tables of a plain batch's malformed records met before
	// its first record, counted only once a record shows the batch is
	// decoded for good: the first record of a table with a sort key stops
	// the decoding until its partition key is looked up, and the batch is
	// then decoded again (or failed, and delivered again).
	held    []string
	counted bool // a record of this plain batch went to the detector
}

// Invoke handles one batch. It fails the batch only when it cannot count
// it as it should: the key-schema lookup a table with a sort key needs
// failed (without the partition key no record can be counted; Lambda
// retries the batch, then hands its place in the stream to the dead-letter
// queue, whose alarm fires, so it can be replayed once the cause is fixed),
// or, with HOTKEYS_INDEXES=on, the index lookup failed for a reason that
// may pass. A bad record, a bad state, a bug of ours or a CloudWatch
// outage never blocks the shard.
func (h *handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	if err := h.indexes.prepare(ctx, payload); err != nil {
		return nil, err
	}
	inv := &invocation{h: h}
	err := inv.decode(payload)
	var amb *record.AmbiguousKeyError
	if errors.As(err, &amb) {
		// The table has a sort key and HOTKEYS_PARTITION_KEY is not set:
		// ask DynamoDB once per container which attribute is the hash key.
		s, lerr := h.schemas.Lookup(ctx, amb.Table)
		if lerr != nil {
			return nil, fmt.Errorf("hotkeys: %w (set HOTKEYS_PARTITION_KEY to avoid the lookup)", lerr)
		}
		h.feed.SetPartitionKey(s.PartitionKey)
		h.log.Info("partition key looked up", "table", amb.Table, "partition_key", s.PartitionKey)
		inv = &invocation{h: h}
		err = inv.decode(payload)
	}
	var ie *detector.InternalError
	switch {
	case errors.As(err, &ie):
		// The decoder itself panicked: the rest of the payload is unread.
		inv.lost(payload, ie)
	case err != nil:
		// Not JSON Lambda would have sent: nothing to retry. Count and go on.
		h.log.Error("payload could not be decoded in full; the records after the error are skipped", "error", err)
		inv.AddMalformed("")
	}
	if inv.tumbling {
		return inv.finishTumbling(ctx)
	}
	return inv.finishPlain(ctx)
}

// decode runs the payload through the Feed. A panic of the decoder itself
// comes back as an *detector.InternalError, like one raised by a record.
func (inv *invocation) decode(payload []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &detector.InternalError{Cause: fmt.Sprint(p), Stack: debug.Stack()}
		}
	}()
	_, err = inv.h.feed.Decode(payload, inv, detector.Hooks{
		Event:     inv.onEvent,
		Seen:      inv.seen,
		Malformed: inv.onMalformed,
		Internal:  inv.onInternal,
	})
	return err
}

// lost counts what a panic of the decoder left unread. The decoder hands
// over an event only once it has read all of it, so when it handed over
// none, the whole event is lost: its envelope is read again apart from the
// decoder, so that a tumbling window keeps its state (Lambda fails an
// answer without one, and would retry the same batch, and meet the same
// bug, until the records expire), and each of its records counts as an
// internal error of its table.
func (inv *invocation) lost(payload []byte, ie *detector.InternalError) {
	n := uint64(1)
	if !inv.sawEvent {
		if ev, records, err := record.ReadEnvelope(payload); err == nil {
			inv.onEvent(&ev)
			if ie.Table == "" {
				ie.Table = inv.h.indexes.tableOf(payload)
			}
			n = max(uint64(records), 1)
		}
	}
	inv.logInternal(ie)
	inv.countInternal(ie.Table, n)
}

func (inv *invocation) onEvent(ev *record.Event) error {
	inv.sawEvent = true
	inv.event = *ev
	inv.tumbling = ev.TimeWindow
	if !inv.tumbling {
		return nil
	}
	if ev.State[stateWindow] == "" {
		return nil
	}
	var err error
	if inv.window, inv.indexWins, err = windowsFromState(ev.State, inv.h.cfg); err != nil {
		// A state we cannot read (a deploy changed the sketch size, say):
		// start the window afresh rather than fail the shard forever.
		inv.h.log.Error("tumbling-window state unreadable; this window restarts from this batch", "error", err, "shard", ev.ShardID)
		inv.window, inv.indexWins = nil, nil
		return nil
	}
	inv.lastSeq = []byte(ev.State[stateLastSeq])
	return nil
}

// seen reports a record counted before: by its sequence number within a
// tumbling window (its state carries the last one), by its event id across
// a warm container's plain batches.
//
// A record without the field it is known by (the decoder accepts both as
// optional) cannot be told apart from another: it is counted.
func (inv *invocation) seen(r *record.Record) bool {
	if inv.tumbling {
		return len(r.SequenceNumber) > 0 && len(inv.lastSeq) > 0 && !seqAfter(r.SequenceNumber, inv.lastSeq)
	}
	return len(r.EventID) > 0 && inv.h.seen.seen(sketch.Hash(r.EventID))
}

// Add counts a record: detector.Sink.
func (inv *invocation) Add(r *record.Record) error {
	if !inv.tumbling {
		inv.countHeld()
		return inv.h.det.Add(r)
	}
	if inv.window == nil {
		if err := inv.openWindow(r.Table); err != nil {
			return err
		}
	}
	inv.window.Add(r)
	for x := range r.Indexes {
		iw := &r.Indexes[x]
		if !iw.Touched() { // never from the decoder, which lists only these
			continue
		}
		w, err := inv.indexWindow(iw.Index)
		if err != nil {
			return err
		}
		w.AddIndex(r, iw)
	}
	if len(r.SequenceNumber) > 0 {
		inv.lastSeq = append(inv.lastSeq[:0], r.SequenceNumber...)
	}
	return nil
}

// indexWindow returns the tumbling window's window of index name, opening
// it over the table window's span.
func (inv *invocation) indexWindow(name string) (*detector.Window, error) {
	for _, w := range inv.indexWins {
		if w.Index() == name {
			return w, nil
		}
	}
	w, err := detector.NewIndexWindow(inv.h.cfg.IndexSketchConfig(), inv.window.Table(), name, inv.window.Start(), inv.window.End())
	if err != nil {
		return nil, err
	}
	inv.indexWins = append(inv.indexWins, w)
	return w, nil
}

// AddMalformed counts a malformed record: detector.Sink.
func (inv *invocation) AddMalformed(table string) {
	switch {
	case !inv.tumbling && !inv.counted:
		inv.held = append(inv.held, table)
	case !inv.tumbling:
		inv.h.det.AddMalformed(table)
	case inv.window != nil || inv.openWindow(table) == nil:
		// A batch may hold nothing but malformed records: the window opens
		// for them, or they would vanish from its MalformedRecords.
		inv.window.AddMalformed(1)
	default:
		inv.malformed++
	}
}

// countHeld counts the malformed records held back (see held): the batch
// is being counted.
func (inv *invocation) countHeld() {
	inv.counted = true
	for _, table := range inv.held {
		inv.h.det.AddMalformed(table)
	}
	inv.held = nil
}

func (inv *invocation) onMalformed(m *record.Malformed) {
	if inv.logged < maxMalformedLogs {
		inv.logged++
		inv.h.log.Warn("malformed record skipped", "error", m.Err.Error(), "event_id", m.EventID, "sequence_number", m.SequenceNumber, "offset", m.Offset)
	}
}

// onInternal counts a record lost to a bug of ours in InternalErrors, which
// the template alarms on, and logs it with its stack at ERROR. It is never
// counted as malformed: the user's table did nothing wrong.
func (inv *invocation) onInternal(ie *detector.InternalError) {
	inv.logInternal(ie)
	inv.countInternal(ie.Table, 1)
}

func (inv *invocation) logInternal(ie *detector.InternalError) {
	inv.h.log.Error("internal error: a bug in hotkeys, not in the table's data; the record is skipped",
		"error", ie.Error(), "event_id", ie.EventID, "stack", string(ie.Stack))
}

// countInternal counts n records of table lost to a bug of ours.
func (inv *invocation) countInternal(table string, n uint64) {
	switch {
	case !inv.tumbling:
		for range n {
			inv.h.det.AddInternal(table)
		}
	case inv.window != nil || inv.openWindow(table) == nil:
		inv.window.AddInternal(n)
	default:
		inv.internal += n
	}
}

// openWindow starts this invocation's tumbling window for table (the
// event's table when table is ""), carrying what was counted before it
// existed.
func (inv *invocation) openWindow(table string) error {
	if table == "" {
		table, _ = keyschema.TableFromARN(inv.event.EventSourceARN)
	}
	if table == "" {
		return errors.New("hotkeys: the batch names no table")
	}
	w, err := detector.NewWindow(inv.h.cfg.Sketch, table, inv.event.WindowStart, inv.event.WindowEnd)
	if err != nil {
		return err
	}
	inv.window = w
	inv.window.AddMalformed(inv.malformed)
	inv.window.AddInternal(inv.internal)
	inv.malformed, inv.internal = 0, 0
	return nil
}

func (inv *invocation) finishTumbling(ctx context.Context) ([]byte, error) {
	ev := inv.event
	state := map[string]string{}
	done := ev.IsFinalInvokeForWindow || ev.IsWindowTerminatedEarly
	switch {
	case inv.window == nil && inv.malformed+inv.internal > 0:
		inv.h.log.Warn("batch names no table; its malformed and internal-error records are not in any window's metrics",
			"malformed", inv.malformed, "internal_errors", inv.internal, "shard", ev.ShardID)
	case inv.window == nil:
	case done:
		wins := append([]*detector.Window{inv.window}, inv.indexWins...)
		if ev.IsWindowTerminatedEarly {
			for _, w := range wins { // the indexes' windows end with the table's
				w.MarkTerminatedEarly()
			}
			inv.h.log.Warn("Lambda terminated the window early; publishing what there is", "shard", ev.ShardID)
		}
		reps := make([]report.Report, len(wins))
		for i, w := range wins {
			reps[i] = w.Report(inv.h.cfg)
		}
		// Metrics first: the alarms read them, and history may take what is
		// left of the deadline for its retries. The table's window is
		// stored first, then each index's.
		inv.publish(ctx, reps)
		if inv.h.history != nil {
			for i, w := range wins {
				inv.h.history.write(ctx, w, reps[i], ev.ShardID)
			}
		}
	default:
		if err := stateOf(state, inv.window, inv.indexWins, inv.lastSeq); err != nil {
			// Cannot happen (see stateBudget); never in the way: the
			// window restarts with the next batch, and says why here.
			inv.h.log.Error("tumbling-window state could not be kept under Lambda's 1 MB; this window restarts from the next batch",
				"error", err.Error(), "shard", ev.ShardID)
			clear(state)
		}
	}
	return json.Marshal(timeWindowResponse{State: state, BatchItemFailures: []itemFailure{}})
}

func (inv *invocation) finishPlain(ctx context.Context) ([]byte, error) {
	inv.countHeld() // a batch of nothing but malformed records
	// Close windows by record time, and by the clock too, so a quiet table
	// still gets its last window published: a window closes once the clock
	// is a window plus the lateness past its end.
	inv.h.det.Advance(inv.h.now().Add(-inv.h.cfg.Window)) // Flush adds the lateness
	if reps := inv.h.det.Flush(); len(reps) > 0 {
		inv.publish(ctx, reps)
	}
	return json.Marshal(batchResponse{BatchItemFailures: []itemFailure{}})
}

func (inv *invocation) publish(ctx context.Context, reps []report.Report) {
	res, err := inv.h.pub.Publish(ctx, reps)
	if err != nil {
		inv.h.log.Error("publishing failed", "error", err)
		return
	}
	if res.FellBackToEMF {
		// By its code only, which the publisher's own ERROR line gives: the
		// service's message may quote what was sent, partition keys included.
		inv.h.log.Warn("PutMetricData failed; metrics written as EMF instead (the publisher logged the error's code)")
	}
	if res.OutsideTimeRange > 0 {
		// CloudWatch takes datapoints from two weeks back to two hours
		// ahead; say so rather than lose a replayed window's metrics quietly.
		inv.h.log.Warn("window outside CloudWatch's time range (two weeks back to two hours ahead); its metrics went out as EMF only",
			"values", res.OutsideTimeRange)
	}
}

type itemFailure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

// timeWindowResponse is DynamoDBTimeWindowEventResponse: State must never be
// null, or Lambda fails the invocation.
type timeWindowResponse struct {
	State             map[string]string `json:"state"`
	BatchItemFailures []itemFailure     `json:"batchItemFailures"`
}

type batchResponse struct {
	BatchItemFailures []itemFailure `json:"batchItemFailures"`
}

// seqAfter reports whether sequence number a comes after b. Sequence
// numbers are decimal strings of up to 40 digits: longer is larger.
func seqAfter(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return bytes.Compare(a, b) > 0
}

// recentIDs remembers the last n event ids (as hashes) in a ring, so a
// batch Lambda delivers again is not counted twice.
type recentIDs struct {
	ring []uint64
	next int
	set  map[uint64]struct{}
}

func newRecentIDs(n int) *recentIDs {
	return &recentIDs{ring: make([]uint64, 0, n), set: make(map[uint64]struct{}, n)}
}

// seen reports whether id was seen, and remembers it.
func (r *recentIDs) seen(id uint64) bool {
	if _, ok := r.set[id]; ok {
		return true
	}
	if len(r.ring) < cap(r.ring) {
		r.ring = append(r.ring, id)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % len(r.ring)
	}
	r.set[id] = struct{}{}
	return false
}
