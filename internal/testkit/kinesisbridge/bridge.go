package kinesisbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// PutAPI is the part of the Kinesis API Put uses. *kinesis.Client
// satisfies it.
type PutAPI interface {
	ListShards(ctx context.Context, in *kinesis.ListShardsInput, optFns ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error)
	PutRecords(ctx context.Context, in *kinesis.PutRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.PutRecordsOutput, error)
}

// putBatch is PutRecords' largest request, in records.
const putBatch = 500

// Put writes shards, as Spread made them, into stream name, whose open
// shards must be as many: the s-th list goes to the open shard with the
// s-th lowest hash key range, by an explicit hash key (its first), each
// list in its order. Kinesis assigns its own sequence numbers and arrival
// times; the data and partition keys are the ones given. It returns the
// shard IDs the lists went to.
func Put(ctx context.Context, api PutAPI, name string, shards [][]types.Record) ([]string, error) {
	out, err := api.ListShards(ctx, &kinesis.ListShardsInput{StreamName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("kinesisbridge: ListShards %s: %w", name, err)
	}
	type open struct {
		id    string
		start *big.Int
		key   string
	}
	var opens []open
	for _, s := range out.Shards {
		if s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil {
			continue
		}
		key := aws.ToString(s.HashKeyRange.StartingHashKey)
		n, ok := new(big.Int).SetString(key, 10)
		if !ok {
			return nil, fmt.Errorf("kinesisbridge: shard %s starts at hash key %q", aws.ToString(s.ShardId), key)
		}
		opens = append(opens, open{aws.ToString(s.ShardId), n, key})
	}
	if len(opens) != len(shards) {
		return nil, fmt.Errorf("kinesisbridge: stream %s has %d open shards for %d lists of records", name, len(opens), len(shards))
	}
	slices.SortFunc(opens, func(a, b open) int { return a.start.Cmp(b.start) })
	ids := make([]string, len(opens))
	for s, recs := range shards {
		ids[s] = opens[s].id
		for start := 0; start < len(recs); start += putBatch {
			batch := recs[start:min(start+putBatch, len(recs))]
			in := &kinesis.PutRecordsInput{StreamName: aws.String(name), Records: make([]types.PutRecordsRequestEntry, len(batch))}
			for i, r := range batch {
				in.Records[i] = types.PutRecordsRequestEntry{Data: r.Data, PartitionKey: r.PartitionKey, ExplicitHashKey: aws.String(opens[s].key)}
			}
			res, err := api.PutRecords(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("kinesisbridge: PutRecords into %s: %w", opens[s].id, err)
			}
			if n := aws.ToInt32(res.FailedRecordCount); n > 0 {
				// A retry would reorder the shard: a test wants to know.
				return nil, fmt.Errorf("kinesisbridge: PutRecords into %s: %d of %d records failed", opens[s].id, n, len(batch))
			}
			for i, r := range res.Records {
				if got := aws.ToString(r.ShardId); got != opens[s].id {
					return nil, fmt.Errorf("kinesisbridge: record %d for %s went to %s", start+i, opens[s].id, got)
				}
			}
		}
	}
	return ids, nil
}

// ReadDynamoDBStream reads the DynamoDB stream streamARN (DynamoDB Local's)
// from its trim horizon until it holds n records, and returns them as one
// Lambda DynamoDB Streams event, in the order the stream gave them. It
// stops at ctx's end with what it has and ctx's error.
func ReadDynamoDBStream(ctx context.Context, api streams.API, streamARN string, n int) ([]byte, error) {
	cfg := streams.DefaultConfig()
	cfg.StreamARN, cfg.From = streamARN, streams.TrimHorizon
	cfg.MinPoll, cfg.MaxPoll, cfg.DescribeInterval = 5*time.Millisecond, 50*time.Millisecond, time.Second
	r, err := streams.NewReader(api, cfg)
	if err != nil {
		return nil, err
	}
	var recs []json.RawMessage
	errEnough := errors.New("enough")
	err = r.Run(ctx, streams.Handler{Batch: func(_ string, payload []byte) error {
		var ev struct{ Records []json.RawMessage }
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("kinesisbridge: a streams payload: %w", err)
		}
		recs = append(recs, ev.Records...)
		if len(recs) >= n {
			return errEnough
		}
		return nil
	}})
	if errors.Is(err, errEnough) {
		err = nil
	} else if err == nil {
		err = ctx.Err()
	}
	b, merr := json.Marshal(struct{ Records []json.RawMessage }{recs})
	if merr != nil {
		return nil, merr
	}
	if err != nil {
		return b, fmt.Errorf("kinesisbridge: %d of %d records read from %s: %w", len(recs), n, streamARN, err)
	}
	return b, nil
}

// Relay is the bridge end to end: it reads the first n records of the
// DynamoDB stream streamARN (ReadDynamoDBStream), turns them into change
// records with times of precision p, spreads them as opts says and puts
// them into the Kinesis stream name (Put). It returns what Spread planned
// and the shard IDs each list went to.
func Relay(ctx context.Context, ddbStreams streams.API, streamARN string, n int, p Precision,
	kin PutAPI, name string, opts Options) (plan [][]types.Record, ids []string, err error) {
	payload, err := ReadDynamoDBStream(ctx, ddbStreams, streamARN, n)
	if err != nil {
		return nil, nil, err
	}
	changes, err := FromStreamEvent(payload, p)
	if err != nil {
		return nil, nil, err
	}
	if plan, err = Spread(changes, opts); err != nil {
		return nil, nil, err
	}
	ids, err = Put(ctx, kin, name, plan)
	return plan, ids, err
}
