// Package streams reads a DynamoDB stream for `hotkeys watch`, with the
// DynamoDB Streams API of aws-sdk-go-v2, and hands each page of records on
// in the JSON shape Lambda delivers, so that watch analyses records through
// the same decoder and the same item-size rules as the Lambda and `replay`.
//
// A stream is a set of shards; a shard splits or rolls over into children
// that must be read after it, so that one item's writes stay in order
// (Amazon DynamoDB Developer Guide, "DynamoDB Streams" and "Reading and
// processing a stream"). The Reader lists the shards (DescribeStream,
// paginated), reads each shard in a goroutine once its parent is finished,
// resumes after the last delivered sequence number when an iterator
// expires, and reports records the stream has already trimmed.
package streams

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

// API is the part of the DynamoDB Streams API the Reader uses.
// *dynamodbstreams.Client satisfies it.
type API interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Handler receives what a Reader reads: Batch gets a GetRecords page of a
// shard as the Lambda DynamoDB Streams event of its records (see
// AppendLambdaEvent); Lost is told of records trimmed before they were read
// (TrimmedDataAccessException: older than the 24 h retention) or of a shard
// that vanished. It is the Handler of kinesisstream too (shardread.Handler),
// so that `watch` drives either reader the same way.
type Handler = shardread.Handler

// ErrStreamEnded is returned by Run when the stream is disabled and every
// shard has been read to its end: nothing more will come.
var ErrStreamEnded = errors.New("streams: the stream is disabled and every shard has been read")

// Reader reads one stream. Each Run starts afresh at Config.From.
type Reader struct {
	api API
	cfg Config
}

// NewReader returns a Reader of cfg.StreamARN through api.
func NewReader(api API, cfg Config) (*Reader, error) {
	if api == nil {
		return nil, fmt.Errorf("%w: nil API", ErrConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reader{api: api, cfg: cfg}, nil
}

// Run reads the stream until ctx is done, and then returns nil, or until a
// fatal error: the stream cannot be described (missing, access denied), a
// call fails with a client error that retrying cannot fix, Batch fails, or
// the stream has ended (ErrStreamEnded). Throttling, server errors and
// network errors are retried with backoff and reported through Status.
func (r *Reader) Run(ctx context.Context, h Handler) error {
	if h.Batch == nil {
		return fmt.Errorf("%w: Handler.Batch is nil", ErrConfig)
	}
	sr := shardread.NewRun(ctx, h)
	defer sr.Stop()
	rn := &run{Run: sr, api: r.api, cfg: r.cfg, ctx: sr.Context()}
	c := &coordinator{run: rn, shards: make(map[string]*shard), done: make(chan *shard)}
	return c.loop()
}

// run is the state one Run shares between its goroutines.
type run struct {
	*shardread.Run
	api API
	cfg Config
	ctx context.Context // Run.Context()
}
