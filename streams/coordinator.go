package streams

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

// The shards of a run and the order they are read in: a child shard only
// once its parent is finished.

type shardState uint8

const (
	waiting shardState = iota // for its parent to finish
	reading
	finished // read to its end, skipped (Latest), or gone
)

// shard is the coordinator's view of one shard. Only the coordinator
// goroutine touches it, except idle.
type shard struct {
	id, parent string
	closed     bool // DescribeStream gave it an EndingSequenceNumber
	state      shardState
	start      types.ShardIteratorType
	idle       atomic.Bool // set by its reader while it finds no records
}

// coordinator owns the shard map: it describes the stream, starts a reader
// for each shard whose parent is finished, and collects finished shards.
type coordinator struct {
	*run
	shards    map[string]*shard
	done      chan *shard
	wg        sync.WaitGroup
	described bool // the first describe is done
	disabled  bool // the stream's status is DISABLED
	summary   string
}

func (c *coordinator) loop() error {
	// The first describe must succeed: a wrong ARN, region or permission
	// should stop watch at once, not be retried forever.
	if err := c.discover(); err != nil {
		if c.ctx.Err() != nil {
			return nil
		}
		return err
	}
	c.step()
	tick := time.NewTicker(c.cfg.DescribeInterval)
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
		case <-tick.C:
			c.rediscover()
			c.step()
		}
	}
}

// step starts the shards that can start, reports, and ends Run once a
// disabled stream has nothing left to read.
func (c *coordinator) step() {
	c.startReady()
	c.report()
	if c.disabled && c.allFinished() {
		c.Fail(ErrStreamEnded)
	}
}

// rediscover describes the stream again; only errors that retrying cannot
// fix stop Run.
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
		c.Status("%v; retrying in %v", err, c.cfg.DescribeInterval)
	}
}

func (c *coordinator) discover() error {
	all, status, err := c.describe()
	if err != nil {
		return err
	}
	c.disabled = status == types.StreamStatusDisabled
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
		s := &shard{id: id, parent: aws.ToString(sh.ParentShardId), closed: closed, start: types.ShardIteratorTypeTrimHorizon}
		if !c.described && c.cfg.From == Latest {
			// Only shards open now are read, from their tip. Closed ones
			// hold only the past; their open children start at the tip.
			s.start = types.ShardIteratorTypeLatest
			if closed {
				s.state = finished
			}
		}
		c.shards[id] = s
	}
	// Shards past the retention period leave the description; a child
	// whose parent is gone can start.
	for id, s := range c.shards {
		if !seen[id] && s.state == finished {
			delete(c.shards, id)
		}
	}
	c.described = true
	return nil
}

// describe lists every shard, page by page.
func (c *coordinator) describe() ([]types.Shard, types.StreamStatus, error) {
	var (
		all    []types.Shard
		status types.StreamStatus
		start  *string
	)
	for {
		out, err := c.api.DescribeStream(c.ctx, &dynamodbstreams.DescribeStreamInput{
			StreamArn:             aws.String(c.cfg.StreamARN),
			Limit:                 aws.Int32(describeLimit),
			ExclusiveStartShardId: start,
		})
		if err != nil {
			return nil, "", fmt.Errorf("streams: DescribeStream %s: %w", c.cfg.StreamARN, err)
		}
		d := out.StreamDescription
		if d == nil {
			return nil, "", fmt.Errorf("streams: DescribeStream %s: no stream description", c.cfg.StreamARN)
		}
		status = d.StreamStatus
		all = append(all, d.Shards...)
		next := d.LastEvaluatedShardId
		if next == nil {
			return all, status, nil
		}
		if start != nil && *next == *start {
			return nil, "", fmt.Errorf("streams: DescribeStream %s: pagination stuck at shard %s", c.cfg.StreamARN, *next)
		}
		start = next
	}
}

// describeLimit is DescribeStream's largest page.
const describeLimit = 100

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
		if p, ok := c.shards[s.parent]; ok && p.state != finished && s.start != types.ShardIteratorTypeLatest {
			continue
		}
		s.state = reading
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			sr := &shardReader{run: c.run, shard: s, start: s.start}
			if sr.read() {
				select {
				case c.done <- s:
				case <-c.ctx.Done():
				}
			}
		}()
	}
}

func (c *coordinator) hasChildren(id string) bool {
	for _, s := range c.shards {
		if s.parent == id {
			return true
		}
	}
	return false
}

func (c *coordinator) allFinished() bool {
	for _, s := range c.shards {
		if s.state != finished {
			return false
		}
	}
	return true
}

// report sends a status line when the picture has changed.
func (c *coordinator) report() {
	t := shardread.Tally{IdlePoll: c.cfg.MaxPoll, WaitingFor: "their parent"}
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
	if c.disabled {
		t.Note = "the stream is disabled"
	}
	if msg := t.String(); msg != c.summary {
		c.summary = msg
		c.Status("%s", msg)
	}
}
