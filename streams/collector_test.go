package streams_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// collector is a Handler that records what it is given, checks that its
// functions never run concurrently, and signals once it has seen every
// sequence number it waits for.
type collector struct {
	t      testing.TB
	active atomic.Int32

	mu       sync.Mutex
	order    []string            // sequence numbers, in delivery order
	shardOf  map[string]string   // sequence number -> shard it was delivered for
	count    map[string]int      // sequence number -> deliveries
	lost     map[string][]error  // shard -> Lost errors
	status   []string            //
	waitFor  map[string]struct{} // sequence numbers not delivered yet
	complete chan struct{}
	onBatch  func(shardID string, n int) error
	changed  chan struct{} // closed, and replaced, on every handler call
}

func newCollector(t testing.TB, want ...[]string) *collector {
	c := &collector{t: t, shardOf: map[string]string{}, count: map[string]int{}, lost: map[string][]error{},
		waitFor: map[string]struct{}{}, complete: make(chan struct{}), changed: make(chan struct{})}
	c.expect(want...)
	return c
}

// safetyNet bounds every wait on the code under test. It only turns a hang
// into a failure: no test's outcome depends on it, since every wait ends on
// an event (a call, a delivery, Run returning), never on time passing.
const safetyNet = 30 * time.Second

// await blocks until cond, run with mu held, is true. *changed, read with mu
// held, is a channel closed at the next change; stopped, if not nil, is
// closed when Run returns, which ends the wait with a failure.
func await(t testing.TB, what string, mu *sync.Mutex, changed *chan struct{}, stopped <-chan struct{}, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(safetyNet)
	defer timeout.Stop()
	for {
		mu.Lock()
		ok, ch := cond(), *changed
		mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-stopped:
			t.Fatalf("Run returned while the test waited for %s", what)
		case <-timeout.C:
			t.Fatalf("timed out after %v waiting for %s", safetyNet, what)
		}
	}
}

// await blocks until cond, run with c.mu held, is true after some handler
// call (or already is).
func (c *collector) await(t testing.TB, what string, cond func() bool) {
	t.Helper()
	await(t, what, &c.mu, &c.changed, nil, cond)
}

// delivered reports whether every one of seqs has been delivered; c.mu is held.
func (c *collector) delivered(seqs []string) bool {
	for _, s := range seqs {
		if c.count[s] == 0 {
			return false
		}
	}
	return true
}

// changedLocked wakes the waiters of await; c.mu is held.
func (c *collector) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *collector) expect(want ...[]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, seqs := range want {
		for _, s := range seqs {
			if c.count[s] == 0 {
				c.waitFor[s] = struct{}{}
			}
		}
	}
}

// settle stops waiting for seq, a placeholder.
func (c *collector) settle(seq string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waitFor, seq)
	c.checkComplete()
}

func (c *collector) checkComplete() {
	if len(c.waitFor) == 0 && c.complete != nil {
		close(c.complete)
		c.complete = nil
	}
}

func (c *collector) enter() {
	if c.active.Add(1) != 1 {
		c.t.Errorf("handler functions called concurrently")
	}
}

func (c *collector) handler() streams.Handler {
	return streams.Handler{
		Batch: func(shardID string, payload []byte) error {
			c.enter()
			defer c.active.Add(-1)
			// Widen the window in which a second, concurrent call would be
			// caught by enter. It cannot fail a correct Reader, whose calls
			// never overlap whatever the timing.
			time.Sleep(50 * time.Microsecond)
			// aws-lambda-go's own types must read the payload.
			var ev events.DynamoDBEvent
			if err := json.Unmarshal(payload, &ev); err != nil {
				c.t.Errorf("payload is not a Lambda event: %v\n%s", err, payload)
				return err
			}
			c.mu.Lock()
			for _, r := range ev.Records {
				seq := r.Change.SequenceNumber
				if got := r.Change.Keys["pk"].String(); got != shardID {
					c.t.Errorf("record %s of shard %s delivered as shard %s", seq, got, shardID)
				}
				c.order = append(c.order, seq)
				c.shardOf[seq] = shardID
				c.count[seq]++
				delete(c.waitFor, seq)
			}
			c.checkComplete()
			c.changedLocked()
			onBatch := c.onBatch
			c.mu.Unlock()
			if onBatch != nil {
				return onBatch(shardID, len(ev.Records))
			}
			return nil
		},
		Status: func(msg string) {
			c.enter()
			defer c.active.Add(-1)
			c.mu.Lock()
			c.status = append(c.status, msg)
			c.changedLocked()
			c.mu.Unlock()
		},
		Lost: func(shardID string, err error) {
			c.enter()
			defer c.active.Add(-1)
			c.mu.Lock()
			c.lost[shardID] = append(c.lost[shardID], err)
			c.changedLocked()
			c.mu.Unlock()
		},
	}
}

// run runs r on f, calls ready (which may write more and must settle any
// placeholder) and waits until the collector has every record it expects.
// It then ends the stream and waits for Run to read what is left and return
// ErrStreamEnded: once it has, nothing more can be delivered, so the test's
// exactly-once checks see the final count without waiting and hoping. run
// returns Run's error, nil for ErrStreamEnded.
func (c *collector) run(t *testing.T, r *streams.Reader, f *fakeStream, ready func()) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	c.mu.Lock()
	complete := c.complete
	c.mu.Unlock()
	go func() { errc <- r.Run(ctx, c.handler()) }()
	if ready != nil {
		ready()
	}
	timeout := time.NewTimer(safetyNet)
	defer timeout.Stop()
	select {
	case <-complete:
	case err := <-errc:
		return err
	case <-timeout.C:
		c.mu.Lock()
		t.Errorf("timed out; %d sequence numbers never delivered; status: %q", len(c.waitFor), c.status)
		c.mu.Unlock()
		cancel()
		return <-errc
	}
	f.end()
	select {
	case err := <-errc:
		if errors.Is(err, streams.ErrStreamEnded) {
			return nil
		}
		if err == nil {
			return errors.New("Run returned nil on a stream that ended, want ErrStreamEnded")
		}
		return err
	case <-timeout.C:
		cancel()
		<-errc
		return errors.New("Run did not end after the stream was disabled and every shard closed")
	}
}

// checkExactlyOnce asserts that the delivered sequence numbers are exactly
// want, each once, in order within each shard.
func (c *collector) checkExactlyOnce(t *testing.T, want ...[]string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	wantSet := map[string]bool{}
	for _, seqs := range want {
		for _, s := range seqs {
			wantSet[s] = true
		}
	}
	for s, n := range c.count {
		if !wantSet[s] {
			t.Errorf("record %s delivered but not expected", s)
		} else if n != 1 {
			t.Errorf("record %s delivered %d times", s, n)
		}
	}
	for s := range wantSet {
		if c.count[s] == 0 {
			t.Errorf("record %s never delivered", s)
		}
	}
	last := map[string]string{}
	for _, s := range c.order {
		sh := c.shardOf[s]
		if s <= last[sh] {
			t.Errorf("shard %s: record %s delivered after %s", sh, s, last[sh])
		}
		last[sh] = s
	}
}

// span returns the index in delivery order of the first and last
// record delivered for shard.
func (c *collector) span(shard string) (first, last int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first, last = -1, -1
	for i, s := range c.order {
		if c.shardOf[s] == shard {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}
