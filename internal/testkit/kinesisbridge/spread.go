package kinesisbridge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// Route says which of shards Kinesis shards change i goes to. AWS does not
// document how Kinesis Data Streams for DynamoDB picks a record's partition
// key, so the tests choose: ByKey keeps an item's writes on one shard,
// RoundRobin spreads one item's writes evenly over all of them (issue 32's
// worst case for per-shard onset).
type Route func(c *Change, i, shards int) int

// ByKey sends every write of an item (its Keys) to one shard.
func ByKey(c *Change, _, shards int) int {
	h := fnv.New64a()
	h.Write(c.Keys)
	return int(h.Sum64() % uint64(shards))
}

// RoundRobin sends change i to shard i mod shards.
func RoundRobin(_ *Change, i, shards int) int { return i % shards }

// Options say how Spread places changes on shards.
type Options struct {
	Shards int   // how many Kinesis shards, ≥ 1
	Route  Route // nil: ByKey
	// Duplicates is how many changes are delivered twice: a second copy,
	// with the same data and partition key (a producer retry), lands later
	// in the same shard, with its own sequence number.
	Duplicates int
	// Shuffle puts each shard's records in a random order, so that their
	// creation times go back and forth ("Kinesis data stream records might
	// appear in a different sequence than the item changes occurred").
	Shuffle bool
	// Seed makes the duplicates, the shuffle and the partition keys the
	// same on every run.
	Seed uint64
	// Arrival is how long after its creation a record arrives in Kinesis
	// (0: 40 ms). Arrival times only grow along a shard, to the millisecond.
	Arrival time.Duration
	// ArriveBefore, if set, caps arrival times 1 ms before it (a tumbling
	// window's end: Lambda windows Kinesis records by arrival time).
	ArriveBefore time.Time
}

// ErrOptions is wrapped by Spread's errors.
var ErrOptions = errors.New("kinesisbridge: invalid spread options")

// Spread places changes on opts.Shards Kinesis shards and returns each
// shard's records in order: data, a partition key of 32 upper-case hex
// digits (the shape real ones have, derived from the seed and eventID),
// 56-digit sequence numbers that grow along each shard, and arrival times.
//
// Long because routing, duplicating, shuffling and numbering share one
// seeded random source whose order of draws fixes the output for a seed.
func Spread(changes []Change, opts Options) ([][]types.Record, error) {
	if opts.Shards < 1 || opts.Shards > 100 {
		return nil, fmt.Errorf("%w: Shards %d: want 1 to 100", ErrOptions, opts.Shards)
	}
	if opts.Duplicates < 0 || opts.Duplicates > len(changes) {
		return nil, fmt.Errorf("%w: Duplicates %d: want 0 to %d (the changes)", ErrOptions, opts.Duplicates, len(changes))
	}
	route := opts.Route
	if route == nil {
		route = ByKey
	}
	arrival := opts.Arrival
	if arrival == 0 {
		arrival = 40 * time.Millisecond
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6b696e65736973)) // "kinesis"

	// Which changes go twice: the first Duplicates of a seeded permutation.
	twice := make(map[int]bool, opts.Duplicates)
	for _, i := range rng.Perm(len(changes))[:opts.Duplicates] {
		twice[i] = true
	}
	shards := make([][]int, opts.Shards) // change indices, in shard order
	for i := range changes {
		s := route(&changes[i], i, opts.Shards)
		if s < 0 || s >= opts.Shards {
			return nil, fmt.Errorf("%w: the route sent change %d to shard %d of %d", ErrOptions, i, s, opts.Shards)
		}
		shards[s] = append(shards[s], i)
	}
	out := make([][]types.Record, opts.Shards)
	for s, idx := range shards {
		if opts.Shuffle {
			rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		}
		// Each duplicate goes after its original, at a random later place.
		for p := 0; p < len(idx); p++ {
			i := idx[p]
			if i < 0 || !twice[i] {
				continue
			}
			at := p + 1 + rng.IntN(len(idx)-p)
			idx = append(idx[:at], append([]int{^i}, idx[at:]...)...) // ^i marks the copy
		}
		var last time.Time
		for n, i := range idx {
			if i < 0 {
				i = ^i
			}
			c := &changes[i]
			at := c.Created.Add(arrival).Truncate(time.Millisecond)
			if !opts.ArriveBefore.IsZero() && !at.Before(opts.ArriveBefore) {
				at = opts.ArriveBefore.Add(-time.Millisecond)
			}
			if at.Before(last) {
				at = last
			}
			last = at
			out[s] = append(out[s], types.Record{
				Data:                        c.Data,
				PartitionKey:                aws.String(partitionKey(opts.Seed, c.EventID)),
				SequenceNumber:              aws.String(SequenceNumber(s, n)),
				ApproximateArrivalTimestamp: aws.Time(at.UTC()),
			})
		}
	}
	return out, nil
}

// partitionKey is 32 upper-case hex digits, as the partition keys of Kinesis
// Data Streams for DynamoDB look, the same for a change's copies.
func partitionKey(seed uint64, eventID string) string {
	h := fnv.New128a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(eventID))
	return fmt.Sprintf("%032X", h.Sum(nil))
}

// SequenceNumber is the n-th sequence number of shard s: 56 digits, as
// Kinesis's are, growing along the shard.
func SequenceNumber(s, n int) string {
	return fmt.Sprintf("4968%02d%050d", s, n+1)
}

// ShardID is the ID of the s-th shard of a stream, as Kinesis names it.
func ShardID(s int) string { return fmt.Sprintf("shardId-%012d", s) }
