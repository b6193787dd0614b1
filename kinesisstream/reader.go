// Package kinesisstream reads an Amazon Kinesis data stream, as `hotkeys
// watch --kinesis-stream` does for a table whose changes go to Kinesis Data
// Streams for DynamoDB, with the Kinesis API of aws-sdk-go-v2, and hands each
// page of records on in the JSON shape Lambda delivers for Kinesis, so that
// watch analyses them through the same decoder as the Lambda and `replay`.
//
// A stream is a set of shards; a split closes a shard and opens two
// children, a merge closes two and opens one, and a child must be read
// after its parents so that one partition key's records stay in order
// (Amazon Kinesis Data Streams Developer Guide, "Resharding a stream" and
// "Data routing, data persistence, and shard state after a reshard"). The
// Reader lists the shards (ListShards, paginated), reads each shard in a
// goroutine once its parents are finished, resumes after the last
// delivered sequence number when an iterator expires, and backs off when
// the shard's read quota (5 GetRecords a second, shared by every
// shared-throughput consumer) is exceeded.
//
// It is the reader of package streams for the other source: the same
// Handler, the same Config shape, the same status lines (internal/shardread
// holds what the two share).
package kinesisstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

// API is the part of the Kinesis Data Streams API the Reader uses.
// *kinesis.Client satisfies it.
type API interface {
	ListShards(ctx context.Context, in *kinesis.ListShardsInput, optFns ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error)
	GetShardIterator(ctx context.Context, in *kinesis.GetShardIteratorInput, optFns ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *kinesis.GetRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error)
}

// Handler receives what a Reader reads: Batch gets a GetRecords page of a
// shard as the Lambda Kinesis event of its records (see AppendLambdaEvent);
// Lost is told of a shard that vanished before it was read to its end (past
// the stream's retention period). It is the Handler of package streams too,
// so that `watch` drives either reader the same way.
type Handler = shardread.Handler

// ErrCaughtUp is returned by Run with Config.UntilCaughtUp once every shard
// has been read to its end or to its tip.
var ErrCaughtUp = errors.New("kinesisstream: every shard has been read to its end or its tip")

// Reader reads one stream. Each Run starts afresh at Config.From.
type Reader struct {
	api    API
	cfg    Config
	name   string // the stream's name, from its ARN
	region string // the stream's region, from its ARN
}

// NewReader returns a Reader of cfg.StreamARN through api.
func NewReader(api API, cfg Config) (*Reader, error) {
	if api == nil {
		return nil, fmt.Errorf("%w: nil API", ErrConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	region, name := parseARN(cfg.StreamARN)
	return &Reader{api: api, cfg: cfg, name: name, region: region}, nil
}

// Run reads the stream until ctx is done, and then returns nil, or until a
// fatal error: the stream cannot be listed (missing, access denied), a call
// fails with a client error that retrying cannot fix, or Batch fails. With
// Config.UntilCaughtUp it returns ErrCaughtUp once it has read everything
// the stream held. Throttling, server errors and network errors are retried
// with backoff and reported through Status.
func (r *Reader) Run(ctx context.Context, h Handler) error {
	if h.Batch == nil {
		return fmt.Errorf("%w: Handler.Batch is nil", ErrConfig)
	}
	sr := shardread.NewRun(ctx, h)
	defer sr.Stop()
	rn := &run{Run: sr, Reader: r, ctx: sr.Context()}
	c := &coordinator{run: rn, shards: make(map[string]*shard), done: make(chan *shard), caughtUp: make(chan struct{}, 1)}
	return c.loop()
}

// run is the state one Run shares between its goroutines.
type run struct {
	*shardread.Run
	*Reader
	ctx context.Context // Run.Context()
}
