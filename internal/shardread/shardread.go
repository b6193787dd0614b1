// Package shardread is what the two stream readers, streams (DynamoDB
// Streams) and kinesisstream (Kinesis Data Streams), share: the Handler
// `hotkeys watch` gives either one, the state one run shares between its
// shard goroutines (the Handler called one call at a time, the first fatal
// error, the stop), the pace of one shard's reads and retries, and the
// status line that counts the shards.
//
// What differs between the two, the APIs, their errors and their shard
// lineage, stays in each reader.
package shardread

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Handler receives what a reader reads. Its functions are never called
// concurrently with one another, so they need no locking of their own.
type Handler struct {
	// Batch receives one page of a shard's records as the Lambda event of
	// the reader's source, {"Records":[...]}. payload is reused once Batch
	// returns. An error stops the run, which returns that error.
	Batch func(shardID string, payload []byte) error
	// Status, if set, receives progress for humans: shard counts, idle
	// shards, renewed iterators, retried errors.
	Status func(msg string)
	// Lost, if set, is told of records that are gone before they could be
	// read (trimmed: past the stream's retention period) or of a shard that
	// vanished. Reading goes on from the oldest record left.
	Lost func(shardID string, err error)
}

// ErrStopped tells a shard reader that its run is stopping.
var ErrStopped = errors.New("shardread: stopped")

// Run is the state one run of a reader shares between its goroutines.
type Run struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	h      Handler

	mu  sync.Mutex // serialises Handler calls; guards err
	err error      // the first fatal error
}

// NewRun returns the state of a run of h that lasts until ctx ends or Fail
// is called. Call Stop when the run is over.
func NewRun(ctx context.Context, h Handler) *Run {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Run{ctx: ctx, cancel: cancel, h: h}
}

// Context is done once the run stops.
func (r *Run) Context() context.Context { return r.ctx }

// Stop ends the run; its Err stays.
func (r *Run) Stop() { r.cancel(nil) }

// Err returns the first error given to Fail, or nil.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Fail stops the run on err, which Err then returns (the first one wins).
func (r *Run) Fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failLocked(err)
}

func (r *Run) failLocked(err error) {
	if r.err == nil {
		r.err = err
	}
	r.cancel(err)
}

// Batch hands a page to Handler.Batch, unless the run is stopping. A
// failure stops the run before the lock is let go, so that no other
// shard's page is delivered after it. ErrStopped says the page was not
// taken.
func (r *Run) Batch(shardID string, payload []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return ErrStopped // nothing is delivered once the run stops
	}
	if err := r.h.Batch(shardID, payload); err != nil {
		r.failLocked(err)
		return ErrStopped
	}
	return nil
}

// Status tells Handler.Status, if set.
func (r *Run) Status(format string, args ...any) {
	if r.h.Status == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Status(msg)
}

// Lost tells Handler.Lost, if set.
func (r *Run) Lost(shardID string, err error) {
	if r.h.Lost == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Lost(shardID, err)
}

// Sleep waits d, or until the run stops.
func (r *Run) Sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.ctx.Done():
	}
}
