package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// maxMalformedLogs caps the malformed-record log lines per invocation; the
// MalformedRecords metric counts them all.
const maxMalformedLogs = 10

// sink is where an invocation counts its batch, chosen once, by the event
// (start): the container's detector for a plain batch (plainSink), the
// window set a tumbling window's state carries (tumblingSink). The Feed
// counts records into it directly; each knows which records it has counted
// before (detector.Deduper).
type sink interface {
	detector.Deduper
	// AddInternal counts a record of table lost to a bug of ours.
	AddInternal(table string)
	// Onsets appends the onsets of what the batch counted (see
	// detector.Window.Onsets).
	Onsets(dst []report.Onset) []report.Onset
	// finish closes and publishes what the batch has closed, and returns
	// the answer to Lambda.
	finish(ctx context.Context) ([]byte, error)
}

// invocation is the work of one Invoke: the payload decoded into its sink.
type invocation struct {
	h        *handler
	table    string // the probe's: the batch's first eventSourceARN
	sawEvent bool   // the decoder delivered the event: it had read all of it
	sink     sink   // plain until the event says otherwise
	logged   int
}

func (h *handler) newInvocation(table string) *invocation {
	return &invocation{h: h, table: table, sink: h.plainSink()}
}

// decode runs the payload through the Feed. A panic of the decoder itself
// comes back as an *detector.InternalError, like one raised by a record.
func (inv *invocation) decode(payload []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &detector.InternalError{Cause: fmt.Sprint(p), Stack: debug.Stack()}
		}
	}()
	_, err = inv.h.feed.Decode(payload, inv.sink, detector.Hooks{
		Event:     inv.start,
		Malformed: inv.onMalformed,
		Internal:  inv.onInternal,
	})
	return err
}

// start takes the event and chooses its sink: the one place the batch's
// kind matters. It is the Feed's Event hook, and never stops the decoding.
func (inv *invocation) start(ev *record.Event) (detector.Sink, error) {
	inv.sawEvent = true
	if ev.TimeWindow {
		inv.sink = inv.h.tumblingSink(ev)
	}
	return inv.sink, nil
}

// countUnread counts what the decoder left unread when it stopped with
// err: a panic of the decoder itself (a bug of ours) as internal errors,
// a payload that is not JSON Lambda would have sent as one malformed
// record; neither is worth a retry.
func (inv *invocation) countUnread(payload []byte, err error) {
	var ie *detector.InternalError
	if !errors.As(err, &ie) {
		inv.h.log.Error("payload could not be decoded in full; the records after the error are skipped", "error", err)
		inv.sink.AddMalformed("")
		return
	}
	// The decoder hands over an event only once it has read all of it, so
	// when it handed over none, the whole event is lost: its envelope is
	// read again by readEnvelope, which shares no code with the decoder
	// that failed, so that a tumbling window keeps its state (Lambda fails
	// an answer without one, and would retry the same batch, and meet the
	// same bug, until the records expire), and each of its records counts
	// as an internal error of its table.
	n := 1
	if !inv.sawEvent {
		if ev, records, err := readEnvelope(payload); err == nil {
			inv.start(&ev)
			if ie.Table == "" {
				ie.Table = inv.table
			}
			n = max(records, 1)
		}
	}
	inv.logInternal(ie)
	for range n {
		inv.sink.AddInternal(ie.Table)
	}
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
	inv.sink.AddInternal(ie.Table)
}

func (inv *invocation) logInternal(ie *detector.InternalError) {
	inv.h.log.Error("internal error: a bug in hotkeys, not in the table's data; the record is skipped",
		"error", ie.Error(), "event_id", ie.EventID, "stack", string(ie.Stack))
}
