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
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// API is the part of the DynamoDB Streams API the Reader uses.
// *dynamodbstreams.Client satisfies it.
type API interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Handler receives what a Reader reads. Its functions are never called
// concurrently with one another, so they need no locking of their own.
type Handler struct {
	// Batch receives one GetRecords page of a shard as a Lambda event,
	// {"Records":[...]} (see AppendLambdaEvent). payload is reused once
	// Batch returns. An error stops Run, which returns that error.
	Batch func(shardID string, payload []byte) error
	// Status, if set, receives progress for humans: shard counts, idle
	// shards, renewed iterators, retried errors.
	Status func(msg string)
	// Lost, if set, is told of records that are gone before they could be
	// read (TrimmedDataAccessException: older than the 24 h retention) or of a
	// shard that vanished. Reading goes on from the oldest record left.
	Lost func(shardID string, err error)
}

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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rn := &run{api: r.api, cfg: r.cfg, h: h, ctx: ctx, cancel: cancel}
	c := &coordinator{run: rn, shards: make(map[string]*shard), done: make(chan *shard)}
	return c.loop()
}

// run is the state one Run shares between its goroutines.
type run struct {
	api    API
	cfg    Config
	h      Handler
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu  sync.Mutex // serialises Handler calls; guards err
	err error      // the first fatal error
}

// errStopped tells a shard reader that Run is stopping.
var errStopped = errors.New("streams: stopped")

func (r *run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failLocked(err)
}

func (r *run) failLocked(err error) {
	if r.err == nil {
		r.err = err
	}
	r.cancel(err)
}

// batch hands a page to Batch. A failure stops Run before the lock is let
// go, so that no other shard's page is delivered after it.
func (r *run) batch(shardID string, payload []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return errStopped // nothing is delivered once Run stops
	}
	if err := r.h.Batch(shardID, payload); err != nil {
		r.failLocked(err)
		return errStopped
	}
	return nil
}

func (r *run) status(format string, args ...any) {
	if r.h.Status == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Status(msg)
}

func (r *run) lost(shardID string, err error) {
	if r.h.Lost == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h.Lost(shardID, err)
}
