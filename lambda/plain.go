package main

import (
	"context"
	"encoding/json"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// plainSink counts a plain (non-tumbling) batch into the container's
// detector, which keeps its windows between batches, and knows a
// redelivered record by its event id (recentIDs).
type plainSink struct {
	*detector.Detector // Add, AddInternal, Onsets
	h                  *handler
	// held are the tables of the malformed records met before the batch's
	// first record, counted only once a record shows the batch is decoded
	// for good: the first record of a table with a sort key stops the
	// decoding until its partition key is looked up, and the batch is then
	// decoded again (or failed, and delivered again), into the container's
	// detector, which would count them twice.
	held    []string
	counted bool // a record of this batch reached the detector
}

func (h *handler) plainSink() *plainSink { return &plainSink{Detector: h.det, h: h} }

// Seen reports a record counted before, by its event id, across the warm
// container's batches: detector.Deduper. A record without one cannot be
// told apart from another: it is counted. The batch's first record shows
// it decoded for good: what was held is counted first.
func (p *plainSink) Seen(r *record.Record) bool {
	if !p.counted {
		p.countHeld()
	}
	return p.h.seen.Seen(r.EventID)
}

// AddMalformed counts a malformed record, or holds it (see held).
func (p *plainSink) AddMalformed(table string) {
	if !p.counted {
		p.held = append(p.held, table)
		return
	}
	p.Detector.AddMalformed(table)
}

// countHeld counts the malformed records held back: the batch is being
// counted.
func (p *plainSink) countHeld() {
	p.counted = true
	for _, table := range p.held {
		p.Detector.AddMalformed(table)
	}
	p.held = nil
}

// finish ends a plain batch: its onsets are announced, and the
// container's windows that the records and the clock have passed are
// closed and published.
func (p *plainSink) finish(ctx context.Context, b *budget) ([]byte, error) {
	p.countHeld() // a batch of nothing but malformed records
	p.h.announce(ctx, b, "", p.Onsets(nil))
	// Close windows by record time, and by the clock too, so a quiet table
	// still gets its last window published: a window closes once the clock
	// is a window plus the lateness past its end.
	p.Advance(p.h.now().Add(-p.h.cfg.Window)) // Flush adds the lateness
	if reps := p.Flush(); len(reps) > 0 {
		p.h.publish(ctx, b, reps)
	}
	return json.Marshal(batchResponse{BatchItemFailures: []itemFailure{}})
}
