package main

import (
	"context"

	"github.com/hotkeys-dev/hotkeys/report"
)

// announce publishes the onsets of what the batch counted (see
// detector.Window.Onsets): a key that crossed the critical rate is named
// before the batch returns, not when its window closes. It never fails the
// batch.
func (h *handler) announce(ctx context.Context, onsets []report.Onset) {
	if len(onsets) == 0 {
		return
	}
	res, err := h.pub.PublishOnsets(ctx, onsets)
	if err != nil {
		h.log.Error("publishing onsets failed", "error", err)
	}
	if res.WriteError != nil {
		h.log.Error("onsets could not be written to stdout", "error", res.WriteError)
	}
	if h.notify != nil {
		h.notify.notify(ctx, onsets)
	}
}

// publish sends the closed windows' reports to CloudWatch. It never fails
// the batch: what went wrong is logged.
func (h *handler) publish(ctx context.Context, reps []report.Report) {
	res, err := h.pub.Publish(ctx, reps)
	if err != nil {
		h.log.Error("publishing failed", "error", err)
		return
	}
	if res.FellBackToEMF {
		// By its code only, which the publisher's own ERROR line gives: the
		// service's message may quote what was sent, partition keys included.
		h.log.Warn("PutMetricData failed; metrics written as EMF instead (the publisher logged the error's code)")
	}
	if res.OutsideTimeRange > 0 {
		// CloudWatch takes datapoints from two weeks back to two hours
		// ahead; say so rather than lose a replayed window's metrics quietly.
		h.log.Warn("window outside CloudWatch's time range (two weeks back to two hours ahead); its metrics went out as EMF only",
			"values", res.OutsideTimeRange)
	}
}
