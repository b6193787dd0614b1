package streams_test

import (
	"context"
	"encoding/json"
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
}

func newCollector(t testing.TB, want ...[]string) *collector {
	c := &collector{t: t, shardOf: map[string]string{}, count: map[string]int{}, lost: map[string][]error{},
		waitFor: map[string]struct{}{}, complete: make(chan struct{})}
	c.expect(want...)
	return c
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
			time.Sleep(50 * time.Microsecond) // widen the window for overlaps
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
			c.mu.Unlock()
		},
		Lost: func(shardID string, err error) {
			c.enter()
			defer c.active.Add(-1)
			c.mu.Lock()
			c.lost[shardID] = append(c.lost[shardID], err)
			c.mu.Unlock()
		},
	}
}

// run runs r until the collector has everything or the test times out,
// and returns Run's error.
func (c *collector) run(t *testing.T, r *streams.Reader, ready func()) error {
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
	select {
	case <-complete:
	case err := <-errc:
		return err
	case <-time.After(20 * time.Second):
		c.mu.Lock()
		t.Errorf("timed out; %d sequence numbers never delivered; status: %q", len(c.waitFor), c.status)
		c.mu.Unlock()
	}
	// Let the reader run on a little: nothing more may arrive.
	time.Sleep(30 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	return nil
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
