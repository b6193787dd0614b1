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
// It is the reader of package streams for the other source: same Handler,
// same Config shape, same status lines.
package kinesisstream

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

// API is the part of the Kinesis Data Streams API the Reader uses.
// *kinesis.Client satisfies it.
type API interface {
	ListShards(ctx context.Context, in *kinesis.ListShardsInput, optFns ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error)
	GetShardIterator(ctx context.Context, in *kinesis.GetShardIteratorInput, optFns ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *kinesis.GetRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error)
}

// Handler receives what a Reader reads. Its functions are never called
// concurrently with one another, so they need no locking of their own.
type Handler struct {
	// Batch receives one GetRecords page of a shard as a Lambda Kinesis
	// event, {"Records":[...]} (see AppendLambdaEvent). payload is reused
	// once Batch returns. An error stops Run, which returns that error.
	Batch func(shardID string, payload []byte) error
	// Status, if set, receives progress for humans: shard counts, idle
	// shards, renewed iterators, retried errors.
	Status func(msg string)
	// Lost, if set, is told of a shard that vanished before it was read to
	// its end (past the stream's retention period).
	Lost func(shardID string, err error)
}

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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rn := &run{Reader: r, h: h, ctx: ctx, cancel: cancel}
	c := &coordinator{run: rn, shards: make(map[string]*shard), done: make(chan *shard), caughtUp: make(chan struct{}, 1)}
	return c.loop()
}

// run is the state one Run shares between its goroutines.
type run struct {
	*Reader
	h      Handler
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu  sync.Mutex // serialises Handler calls; guards err
	err error      // the first fatal error
}

// errStopped tells a shard reader that Run is stopping.
var errStopped = errors.New("kinesisstream: stopped")

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
