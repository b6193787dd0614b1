package main

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// maxMalformedLogs caps the malformed-record log lines per invocation; the
// MalformedRecords metric counts them all.
const maxMalformedLogs = 10

// invocation is the work of one Invoke. It is the Feed's sink: records go
// to the tumbling window of the event's state, or, for a plain batch, to
// the container's detector.
type invocation struct {
	h        *handler
	table    string // the probe's: the batch's first eventSourceARN
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
	// heldMalformed are the tables of a plain batch's malformed records
	// met before its first record, counted only once a record shows the
	// batch is decoded for good: the first record of a table with a sort
	// key stops the decoding until its partition key is looked up, and the
	// batch is then decoded again (or failed, and delivered again).
	heldMalformed []string
	counted       bool // a record of this plain batch went to the detector
}

func (h *handler) newInvocation(table string) *invocation {
	return &invocation{h: h, table: table}
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
		Event:     inv.start,
		Seen:      inv.seen,
		Malformed: inv.onMalformed,
		Internal:  inv.onInternal,
	})
	return err
}

// countUnread counts what the decoder left unread when it stopped with
// err: a panic of the decoder itself (a bug of ours) as internal errors,
// a payload that is not JSON Lambda would have sent as one malformed
// record; neither is worth a retry.
func (inv *invocation) countUnread(payload []byte, err error) {
	var ie *detector.InternalError
	if !errors.As(err, &ie) {
		inv.h.log.Error("payload could not be decoded in full; the records after the error are skipped", "error", err)
		inv.AddMalformed("")
		return
	}
	// The decoder hands over an event only once it has read all of it, so
	// when it handed over none, the whole event is lost: its envelope is
	// read again by readEnvelope, which shares no code with the decoder
	// that failed, so that a tumbling window keeps its state (Lambda fails
	// an answer without one, and would retry the same batch, and meet the
	// same bug, until the records expire), and each of its records counts
	// as an internal error of its table.
	n := uint64(1)
	if !inv.sawEvent {
		if ev, records, err := readEnvelope(payload); err == nil {
			inv.start(&ev)
			if ie.Table == "" {
				ie.Table = inv.table
			}
			n = max(uint64(records), 1)
		}
	}
	inv.logInternal(ie)
	inv.countInternal(ie.Table, n)
}

// start takes the event: a tumbling window's windows come back from its
// state. It is the Feed's Event hook, and never stops the decoding.
func (inv *invocation) start(ev *record.Event) error {
	inv.sawEvent = true
	inv.event = *ev
	inv.tumbling = ev.TimeWindow
	if !inv.tumbling || ev.State[stateWindow] == "" {
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
	// The state carries what was announced, not the thresholds.
	inv.window.Watch(inv.h.cfg)
	for _, w := range inv.indexWins {
		w.Watch(inv.h.cfg)
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
	for k := range r.Indexes {
		write := &r.Indexes[k]
		if !write.Touched() { // never from the decoder, which lists only these
			continue
		}
		w, err := inv.indexWindow(write.Index)
		if err != nil {
			return err
		}
		w.AddIndex(r, write)
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
	w.Watch(inv.h.cfg)
	inv.indexWins = append(inv.indexWins, w)
	return w, nil
}

// AddMalformed counts a malformed record: detector.Sink.
func (inv *invocation) AddMalformed(table string) {
	switch {
	case !inv.tumbling && !inv.counted:
		inv.heldMalformed = append(inv.heldMalformed, table)
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

// countHeld counts the malformed records held back (see heldMalformed):
// the batch is being counted.
func (inv *invocation) countHeld() {
	inv.counted = true
	for _, table := range inv.heldMalformed {
		inv.h.det.AddMalformed(table)
	}
	inv.heldMalformed = nil
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
	w.Watch(inv.h.cfg)
	inv.window = w
	inv.window.AddMalformed(inv.malformed)
	inv.window.AddInternal(inv.internal)
	inv.malformed, inv.internal = 0, 0
	return nil
}
