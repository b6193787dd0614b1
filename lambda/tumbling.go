package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// stateLastSeq is the state key of the highest sequence number a tumbling
// window counted; the set's windows have keys of their own
// (detector.WindowSet.MarshalState).
const stateLastSeq = "hotkeys.last_seq"

// stateSeenIDs is the state key of the event ids of the records a tumbling
// window counted that carry no sequence number (Kinesis change records,
// which Kinesis may deliver twice, out of order), as 8-byte hashes in
// base64; windowIDs bound them: 4,096 ids, 43.7 KB of the state's 1 MB
// (detector.StateBudget trims keys to leave room). A copy of a record
// coming after 4,096 others of its window is counted again.
const (
	stateSeenIDs = "hotkeys.seen_ids"
	windowIDs    = 4096
)

// tumblingSink counts a tumbling window's batch into the window set its
// state carries (a fresh one on the window's first batch), and knows a
// redelivered record by its sequence number: the state carries the last
// one counted.
type tumblingSink struct {
	*detector.WindowSet // Add, AddMalformed, AddInternal, Onsets
	h                   *handler
	ev                  record.Event
	lastSeq             []byte
	fresh               int                 // records this batch counted
	ids                 *detector.RecentIDs // records without a sequence number
}

// tumblingSink restores the window of ev from its state. A state it cannot
// read (a deploy changed the sketch size, say) starts the window afresh
// rather than fail the shard forever.
func (h *handler) tumblingSink(ev *record.Event) *tumblingSink {
	table, _ := keyschema.TableFromARN(ev.EventSourceARN) // "": the records' own
	t := &tumblingSink{WindowSet: detector.NewWindowSet(h.cfg, table, ev.WindowStart, ev.WindowEnd), h: h, ev: *ev,
		ids: detector.NewRecentIDs(windowIDs)}
	err := t.UnmarshalState(ev.State)
	if err == nil {
		var ids []byte
		if ids, err = base64.StdEncoding.DecodeString(ev.State[stateSeenIDs]); err == nil {
			err = t.ids.UnmarshalBinary(ids)
		}
	}
	if err != nil {
		h.log.Error("tumbling-window state unreadable; this window restarts from this batch", "error", err, "shard", ev.ShardID)
		t.WindowSet = detector.NewWindowSet(h.cfg, table, ev.WindowStart, ev.WindowEnd)
		t.ids = detector.NewRecentIDs(windowIDs)
		return t
	}
	t.lastSeq = []byte(ev.State[stateLastSeq])
	return t
}

// Seen reports a record counted before in this window, by its sequence
// number, and remembers the last one: detector.Deduper. A record without
// one (a Kinesis change record) is known by its event id among the
// window's last windowIDs; without either it is counted.
func (t *tumblingSink) Seen(r *record.Record) bool {
	if len(r.SequenceNumber) == 0 {
		if t.ids.Seen(r.EventID) {
			return true
		}
	} else {
		if len(t.lastSeq) > 0 && !seqAfter(r.SequenceNumber, t.lastSeq) {
			return true
		}
		t.lastSeq = append(t.lastSeq[:0], r.SequenceNumber...)
	}
	t.fresh++
	return false
}

// batch is the identity of the batch: its stream shard and window, the
// last sequence number its state had counted and the last it counted,
// and how many records it counted. The same batch delivered again, with
// the same state, has the same; no other batch of the stream has.
func (t *tumblingSink) batch() uint64 {
	ev := &t.ev
	return idOf("batch", ev.EventSourceARN, ev.ShardID, strconv.FormatInt(ev.WindowStart.UnixNano(), 10), strconv.FormatInt(ev.WindowEnd.UnixNano(), 10),
		ev.State[stateLastSeq], string(t.lastSeq), strconv.Itoa(t.fresh))
}

// finish ends a tumbling window's batch: on the window's last batch (or
// when Lambda ends it early) the window and its index windows are closed,
// stored in history and published; otherwise they go back to Lambda in
// the state, for the window's next batch. The batch's onsets are announced
// either way.
func (t *tumblingSink) finish(ctx context.Context, b *budget) ([]byte, error) {
	h, ev := t.h, &t.ev
	state := map[string]string{}
	wins := t.Windows()
	onsets := t.Onsets(nil)
	switch {
	case wins == nil:
		if malformed, internal := t.Unplaced(); malformed+internal > 0 {
			h.log.Warn("batch names no table; its malformed and internal-error records are not in any window's metrics",
				"malformed", malformed, "internal_errors", internal, "shard", ev.ShardID)
		}
	case ev.IsFinalInvokeForWindow || ev.IsWindowTerminatedEarly:
		if ev.IsWindowTerminatedEarly {
			t.MarkTerminatedEarly()
			h.log.Warn("Lambda terminated the window early; publishing what there is", "shard", ev.ShardID)
		}
		t.close(ctx, b, onsets)
		return json.Marshal(timeWindowResponse{State: state, BatchItemFailures: []itemFailure{}})
	default:
		state[stateLastSeq] = string(t.lastSeq)
		if ids := t.ids.AppendBinary(nil); len(ids) > 0 {
			state[stateSeenIDs] = base64.StdEncoding.EncodeToString(ids)
		}
		if err := t.MarshalState(state); err != nil {
			// Cannot happen (see detector.StateBudget); never in the way:
			// the window restarts with the next batch, and says why here.
			h.log.Error("tumbling-window state could not be kept under Lambda's 1 MB; this window restarts from the next batch",
				"error", err.Error(), "shard", ev.ShardID)
			clear(state)
		}
	}
	h.announce(ctx, b, ev.ShardID, onsets)
	return json.Marshal(timeWindowResponse{State: state, BatchItemFailures: []itemFailure{}})
}

// close stores, announces and publishes a closed window, in the order that
// publishes nothing twice (once.go): the history items first, which mark
// the batch done where every container sees it; then what cannot be
// marked, the onsets and the metrics, unless the history table or the
// container says this batch was published before.
func (t *tumblingSink) close(ctx context.Context, b *budget, onsets []report.Onset) {
	h, ev := t.h, &t.ev
	batch := t.batch()
	reps := t.Reports()
	again := h.history != nil && h.history.store(ctx, b, t.Windows(), reps, ev.ShardID, batch, h.done)
	if again || h.done.has(publishedID(batch)) {
		h.done.add(publishedID(batch))
		h.log.Info("final batch delivered again: its window was published before, and is not published again",
			"shard", ev.ShardID, "window_start", ev.WindowStart.UTC().Format(time.RFC3339), "known_from", map[bool]string{true: "history table", false: "this container"}[again])
		return
	}
	h.announce(ctx, b, ev.ShardID, onsets)
	h.publish(ctx, b, reps)
	h.done.add(publishedID(batch))
}
