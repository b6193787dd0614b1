package main

import (
	"context"
	"encoding/json"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

// closeTumbling ends a tumbling window's batch: on the window's last batch
// (or when Lambda ends it early) the window and its index windows are
// closed, published and stored in history; otherwise they go back to
// Lambda in the state, for the window's next batch.
func (inv *invocation) closeTumbling(ctx context.Context) ([]byte, error) {
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

// closePlain ends a plain batch: the container's windows that the records
// and the clock have passed are closed and published.
func (inv *invocation) closePlain(ctx context.Context) ([]byte, error) {
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

// announce publishes the onsets of the windows this batch counted into
// (detector.Window.Onsets): a key that crossed the critical rate is named
// before the batch returns, not when its window closes. It never fails the
// batch.
func (inv *invocation) announce(ctx context.Context) {
	var onsets []report.Onset
	if !inv.tumbling {
		onsets = inv.h.det.Onsets(nil)
	} else if inv.window != nil {
		onsets = inv.window.Onsets(nil)
		for _, w := range inv.indexWins {
			onsets = w.Onsets(onsets)
		}
		detector.SortOnsets(onsets)
	}
	if len(onsets) == 0 {
		return
	}
	res, err := inv.h.pub.PublishOnsets(ctx, onsets)
	if err != nil {
		inv.h.log.Error("publishing onsets failed", "error", err)
	}
	if res.WriteError != nil {
		inv.h.log.Error("onsets could not be written to stdout", "error", res.WriteError)
	}
	if inv.h.notify != nil {
		inv.h.notify.notify(ctx, onsets)
	}
}

// publish sends the closed windows' reports to CloudWatch. It never fails
// the batch: what went wrong is logged.
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
