package store

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history"
)

// Reader reads a history table's items back in order of window start.
type Reader struct {
	t *Table
	// parallel bounds the Query requests in flight.
	parallel int
	// consistent makes every read strongly consistent.
	consistent bool
}

// Reader returns a Reader of t that queries t's write shards of the
// shards' windows (and the partition of builds before write sharding),
// with at most parallel Query requests in flight (0: 16).
func (t *Table) Reader(parallel int) *Reader {
	return &Reader{t: t, parallel: max(1, cmp.Or(parallel, 16))}
}

// ConsistentRead makes r read strongly consistent: it then sees every
// write that succeeded before it, at twice the read units.
func (r *Reader) ConsistentRead() { r.consistent = true }

// Shards reads the shards' windows starting in [from, to), day by day: the
// day's write shards and its partition of before write sharding, queried
// in parallel and merged, so that fn gets them in order of window start
// (then table, shard and index). A window stored in both layouts (by a
// final invoke redelivered across an upgrade) is handed out once. An item
// it cannot use (missing attributes, corrupt, another format version, a
// key that disagrees with its summary) goes to skip with the reason, and
// reading goes on. An error of fn or of DynamoDB stops it.
func (r *Reader) Shards(ctx context.Context, from, to time.Time, fn func(*history.Summary) error, skip func(key string, err error)) error {
	for _, sp := range partitionsOf(0, r.t.writeShards, from, to) {
		if err := r.merge(ctx, sp, fn, skip); err != nil {
			return err
		}
	}
	return nil
}

// Rollups reads the rollups of level starting in [from, to), in order of
// start, then table and index, as Shards reads windows. The partitions
// (an hour's window rollups, a day's hour rollups) are read up to
// parallel ahead of the one being handed out.
func (r *Reader) Rollups(ctx context.Context, level Level, from, to time.Time, fn func(*history.Summary) error, skip func(key string, err error)) error {
	spans := partitionsOf(level, 0, from, to)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		items []decoded
		err   error
	}
	results := make([]chan result, len(spans))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// A token per partition read and not yet handed out.
	ahead := make(chan struct{}, r.parallel)
	go func() {
		for i, sp := range spans {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				var items []decoded
				err := r.query(ctx, sp.keys[0], sp.lo, sp.hi, func(page []map[string]types.AttributeValue) error {
					for _, item := range page {
						items = append(items, decodeItem(item, func(item map[string]types.AttributeValue) (*history.Summary, string, error) {
							return decodeRollup(item, level)
						}))
					}
					return nil
				}, nil)
				results[i] <- result{items, err}
			}()
		}
	}()
	for i := range spans {
		var res result
		select {
		case res = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-ahead
		if res.err != nil {
			return res.err
		}
		for _, d := range res.items {
			if err := d.deliver(fn, skip); err != nil {
				return err
			}
		}
	}
	return nil
}

// decoded is an item as read: its sort key, and its summary or why it
// cannot be used.
type decoded struct {
	sk  string
	key string // partition and sort key, for messages
	s   *history.Summary
	err error
}

func decodeItem(item map[string]types.AttributeValue, decode func(map[string]types.AttributeValue) (*history.Summary, string, error)) decoded {
	var d decoded
	if w, ok := item[AttrWindow].(*types.AttributeValueMemberS); ok {
		d.sk = w.Value
	}
	d.s, d.key, d.err = decode(item)
	return d
}

func (d *decoded) deliver(fn func(*history.Summary) error, skip func(key string, err error)) error {
	if d.err != nil {
		skip(d.key, d.err)
		return nil
	}
	return fn(d.s)
}

// merge reads a day's write shards (and old partition) in parallel, each
// page decoded where it was read, and hands the items out in sort-key
// order.
//
// Long because the readers it starts and the merge of their pages share
// its context, its semaphore and their channels.
func (r *Reader) merge(ctx context.Context, sp span, fn func(*history.Summary) error, skip func(key string, err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, r.parallel)
	streams := make([]chan page, len(sp.keys))
	for i, pk := range sp.keys {
		ch := make(chan page, 1)
		streams[i] = ch
		go func() {
			defer close(ch)
			err := r.query(ctx, pk, sp.lo, sp.hi, func(items []map[string]types.AttributeValue) error {
				p := page{items: make([]decoded, 0, len(items))}
				for _, item := range items {
					p.items = append(p.items, decodeItem(item, decodeShard))
				}
				select {
				case ch <- p:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}, sem)
			if err != nil {
				select {
				case ch <- page{err: err}:
				case <-ctx.Done():
				}
			}
		}()
	}
	var h cursors
	next := func(c *cursor) error {
		for {
			p, ok := <-c.in
			switch {
			case !ok:
				return nil
			case p.err != nil:
				return p.err
			case len(p.items) > 0:
				c.items, c.i = p.items, 0
				heap.Push(&h, c)
				return nil
			}
		}
	}
	for _, ch := range streams {
		if err := next(&cursor{in: ch}); err != nil {
			return err
		}
	}
	last := ""
	for h.Len() > 0 {
		c := h[0]
		d := &c.items[c.i]
		if d.sk == "" || d.sk != last {
			if err := d.deliver(fn, skip); err != nil {
				return err
			}
		}
		last = d.sk
		c.i++
		if c.i < len(c.items) {
			heap.Fix(&h, 0)
			continue
		}
		heap.Pop(&h)
		if err := next(c); err != nil {
			return err
		}
	}
	return nil
}

// page is a page of a write shard's items, decoded, or the error that
// ended its reading.
type page struct {
	items []decoded
	err   error
}

// cursor is a write shard's items being merged: the page at hand, and the
// pages to come.
type cursor struct {
	items []decoded
	i     int
	in    <-chan page
}

// cursors is a heap of the write shards being merged, by the sort key of
// their next item.
type cursors []*cursor

var _ heap.Interface = (*cursors)(nil)

func (h cursors) Len() int           { return len(h) }
func (h cursors) Less(i, j int) bool { return h[i].items[h[i].i].sk < h[j].items[h[j].i].sk }
func (h cursors) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// query reads the items of partition key pk whose sort key is in [lo, hi]
// page by page, eventually consistent, and hands each page to fn. With sem,
// it holds a token of it during each request, and only then.
func (r *Reader) query(ctx context.Context, pk, lo, hi string, fn func([]map[string]types.AttributeValue) error, sem chan struct{}) error {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(r.t.name),
		ConsistentRead:         aws.Bool(r.consistent),
		KeyConditionExpression: aws.String("#d = :d AND #w BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{
			"#d": AttrDay, "#w": AttrWindow,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":d":  &types.AttributeValueMemberS{Value: pk},
			":lo": &types.AttributeValueMemberS{Value: lo},
			":hi": &types.AttributeValueMemberS{Value: hi},
		},
	}
	p := dynamodb.NewQueryPaginator(r.t.api, in)
	for p.HasMorePages() {
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		out, err := p.NextPage(ctx)
		if sem != nil {
			<-sem
		}
		if err != nil {
			return fmt.Errorf("store: query %s partition %s: %w", r.t.name, pk, err)
		}
		if err := fn(out.Items); err != nil {
			return err
		}
	}
	return nil
}
