package kinesisstream

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

// The shards of a run and the order they are read in: a child only once
// its parents (one after a split, two after a merge) are finished.

type shardState uint8

const (
	waiting shardState = iota // for its parents to finish
	reading
	finished // read to its end, skipped (Latest), or gone
)

// shard is the coordinator's view of one shard. Only the coordinator
// goroutine touches it, except idle and tip.
type shard struct {
	id      string
	parents [2]string // ParentShardId, AdjacentParentShardId ("" when none)
	closed  bool      // ListShards gave it an EndingSequenceNumber
	state   shardState
	start   types.ShardIteratorType
	idle    atomic.Bool // set by its reader while it finds no records
	tip     atomic.Bool // its reader had an empty page at the stream's tip
}

// coordinator owns the shard map: it lists the shards, starts a reader for
// each shard whose parents are finished, and collects finished shards.
type coordinator struct {
	*run
	shards   map[string]*shard
	done     chan *shard
	caughtUp chan struct{} // a reader reached its shard's tip
	wg       sync.WaitGroup
	listed   bool // the first listing is done
	summary  string
}

func (c *coordinator) loop() error {
	// The first listing must succeed: a wrong ARN, region or permission
	// should stop watch at once, not be retried forever.
	if err := c.discover(); err != nil {
		if c.ctx.Err() != nil {
			return nil
		}
		return err
	}
	c.step()
	tick := time.NewTicker(c.cfg.ListInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			c.wg.Wait()
			return c.Err()
		case s := <-c.done:
			s.state = finished
			if !c.hasChildren(s.id) {
				// Children usually exist by the time a shard closes.
				c.rediscover()
			}
			c.step()
		case <-c.caughtUp:
			c.step()
		case <-tick.C:
			c.rediscover()
			c.step()
		}
	}
}

// step starts the shards that can start, reports, and ends Run once it has
// caught up, when asked to.
func (c *coordinator) step() {
	c.startReady()
	c.report()
	if c.cfg.UntilCaughtUp && c.allCaughtUp() {
		c.Fail(ErrCaughtUp)
	}
}

// rediscover lists the shards again; only errors that retrying cannot fix
// stop Run.
func (c *coordinator) rediscover() {
	err := c.discover()
	if err == nil {
		return
	}
	switch classify(c.ctx, err) {
	case kindStop:
	case kindFatal, kindGone:
		c.Fail(err)
	default:
		c.Status("%v; retrying in %v", err, c.cfg.ListInterval)
	}
}

func (c *coordinator) discover() error {
	all, err := c.list()
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(all))
	for _, sh := range all {
		id := aws.ToString(sh.ShardId)
		if id == "" {
			continue
		}
		seen[id] = true
		closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
		if s, ok := c.shards[id]; ok {
			s.closed = closed
			continue
		}
		s := &shard{
			id:      id,
			parents: [2]string{aws.ToString(sh.ParentShardId), aws.ToString(sh.AdjacentParentShardId)},
			closed:  closed,
			start:   types.ShardIteratorTypeTrimHorizon,
		}
		if !c.listed && c.cfg.From == Latest {
			// Only shards open now are read, from their tip. Closed ones
			// hold only the past; their open children start at the tip.
			s.start = types.ShardIteratorTypeLatest
			if closed {
				s.state = finished
			}
		}
		c.shards[id] = s
	}
	// Shards past the retention period leave the listing; a child whose
	// parent is gone can start.
	for id, s := range c.shards {
		if !seen[id] && s.state == finished {
			delete(c.shards, id)
		}
	}
	c.listed = true
	return nil
}

// list lists every shard, page by page. The first call names the stream;
// the next ones give only the token, as ListShards requires.
func (c *coordinator) list() ([]types.Shard, error) {
	var (
		all   []types.Shard
		token *string
	)
	for {
		in := &kinesis.ListShardsInput{MaxResults: aws.Int32(listLimit)}
		if token == nil {
			in.StreamName = aws.String(c.name)
		} else {
			in.NextToken = token
		}
		out, err := c.api.ListShards(c.ctx, in)
		if err != nil {
			return nil, fmt.Errorf("kinesisstream: ListShards %s: %w", c.cfg.StreamARN, err)
		}
		all = append(all, out.Shards...)
		next := out.NextToken
		if next == nil || *next == "" {
			return all, nil
		}
		if token != nil && *next == *token {
			return nil, fmt.Errorf("kinesisstream: ListShards %s: pagination stuck at token %q", c.cfg.StreamARN, *next)
		}
		token = next
	}
}

// listLimit is ListShards' largest page.
const listLimit = 1000

func (c *coordinator) startReady() {
	ids := make([]string, 0, len(c.shards))
	for id, s := range c.shards {
		if s.state == waiting {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := c.shards[id]
		if s.start != types.ShardIteratorTypeLatest && !c.parentsFinished(s) {
			continue
		}
		s.state = reading
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			sr := &shardReader{run: c.run, shard: s, start: s.start, caughtUp: c.caughtUp}
			if sr.read() {
				select {
				case c.done <- s:
				case <-c.ctx.Done():
				}
			}
		}()
	}
}

// parentsFinished reports whether every parent of s that is still listed
// is finished.
func (c *coordinator) parentsFinished(s *shard) bool {
	for _, id := range s.parents {
		if p, ok := c.shards[id]; ok && id != "" && p.state != finished {
			return false
		}
	}
	return true
}

func (c *coordinator) hasChildren(id string) bool {
	for _, s := range c.shards {
		if s.parents[0] == id || s.parents[1] == id {
			return true
		}
	}
	return false
}

// allCaughtUp reports whether every shard is finished or being read at its
// tip.
func (c *coordinator) allCaughtUp() bool {
	for _, s := range c.shards {
		switch s.state {
		case waiting:
			return false
		case reading:
			if !s.tip.Load() {
				return false
			}
		}
	}
	return true
}

// report sends a status line when the picture has changed.
func (c *coordinator) report() {
	t := shardread.Tally{IdlePoll: c.cfg.MaxPoll, WaitingFor: "their parents"}
	for _, s := range c.shards {
		if s.closed {
			t.Closed++
		} else {
			t.Open++
		}
		switch s.state {
		case waiting:
			t.Waiting++
		case reading:
			t.Reading++
			if s.idle.Load() {
				t.Idle++
			}
		case finished:
			t.Finished++
		}
	}
	if msg := t.String(); msg != c.summary {
		c.summary = msg
		c.Status("%s", msg)
	}
}
