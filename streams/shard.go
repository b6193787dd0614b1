package streams

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

// shardReader reads one shard from its start position to its end.
type shardReader struct {
	*run
	shard *shard

	start   types.ShardIteratorType // where a fresh iterator starts while lastSeq is ""
	lastSeq string                  // the last sequence number delivered to Batch
	iter    string
	buf     []byte
	pace    shardread.Pace
}

// read reads the shard and reports whether it reached its end (or the
// shard vanished): false means Run is stopping.
func (r *shardReader) read() bool {
	r.pace = shardread.Pace{Min: r.cfg.MinPoll, Max: r.cfg.MaxPoll, Limit: int(r.cfg.Limit)}
	delay := r.cfg.MinPoll
	for r.ctx.Err() == nil {
		if r.iter == "" {
			ok, end := r.renew()
			if !ok {
				return end
			}
		}
		out, err := r.api.GetRecords(r.ctx, &dynamodbstreams.GetRecordsInput{
			ShardIterator: aws.String(r.iter),
			Limit:         aws.Int32(r.cfg.Limit),
		})
		if err != nil {
			if stop, end := r.getRecordsFailed(err); stop {
				return end
			}
			continue
		}
		r.pace.Succeeded()
		n := len(out.Records)
		if n > 0 {
			if err := r.deliver(out.Records); err != nil {
				return false // Run is stopping, maybe on Batch's error
			}
			delay = r.cfg.MinPoll
		}
		if out.NextShardIterator == nil {
			return true // the shard is closed and read to its end
		}
		r.iter = *out.NextShardIterator
		delay = r.pause(n, delay)
	}
	return false
}

// getRecordsFailed deals with a failed GetRecords: it renews an expired
// iterator, skips trimmed records, retries what may pass. stop says the
// shard's reading ends; end then says whether the shard is over (true) or
// Run is stopping.
func (r *shardReader) getRecordsFailed(err error) (stop, end bool) {
	switch classify(r.ctx, err) {
	case kindStop:
		return true, false
	case kindExpired:
		r.Status("shard %s: iterator expired; renewing it %s", r.shard.id, r.position())
		r.iter = ""
	case kindTrimmed:
		r.trimmed(err)
	case kindGone:
		r.Lost(r.shard.id, fmt.Errorf("streams: shard %s is gone: %w", r.shard.id, err))
		return true, true
	case kindTransient:
		r.pace.Retry(r.Run, r.shard.id, "GetRecords", err)
	default:
		r.Fail(fmt.Errorf("streams: GetRecords on shard %s: %w", r.shard.id, err))
		return true, false
	}
	return false, false
}

// deliver hands a page of records to Batch as one Lambda event, and moves
// the shard's position past them.
func (r *shardReader) deliver(records []types.Record) error {
	r.buf = AppendLambdaEvent(r.buf[:0], records, r.cfg.StreamARN)
	if err := r.Batch(r.shard.id, r.buf); err != nil {
		return err
	}
	for i := len(records) - 1; i >= 0; i-- {
		if d := records[i].Dynamodb; d != nil && d.SequenceNumber != nil {
			r.lastSeq = *d.SequenceNumber
			break
		}
	}
	r.shard.idle.Store(false)
	return nil
}

// pause waits before the next GetRecords of a page of n records (see
// shardread.Pace.Pause), and marks the shard idle while it finds nothing.
func (r *shardReader) pause(n int, delay time.Duration) time.Duration {
	delay, idle := r.pace.Pause(r.Run, n, delay)
	if idle {
		r.shard.idle.Store(true)
	}
	return delay
}

// renew gets an iterator after the last delivered record, or at the start
// position before any. ok is false when none was had: end then says whether
// the shard is over (true) or Run is stopping.
func (r *shardReader) renew() (ok, end bool) {
	for r.ctx.Err() == nil {
		in := &dynamodbstreams.GetShardIteratorInput{
			StreamArn:         aws.String(r.cfg.StreamARN),
			ShardId:           aws.String(r.shard.id),
			ShardIteratorType: r.start,
		}
		if r.lastSeq != "" {
			in.ShardIteratorType = types.ShardIteratorTypeAfterSequenceNumber
			in.SequenceNumber = aws.String(r.lastSeq)
		}
		out, err := r.api.GetShardIterator(r.ctx, in)
		if err == nil {
			r.pace.Succeeded()
			if out.ShardIterator == nil {
				return false, true
			}
			r.iter = *out.ShardIterator
			return true, false
		}
		switch classify(r.ctx, err) {
		case kindStop:
			return false, false
		case kindTrimmed:
			if r.lastSeq == "" && r.start == types.ShardIteratorTypeTrimHorizon {
				// The oldest record cannot be trimmed; do not spin on a
				// confused server.
				r.pace.Retry(r.Run, r.shard.id, "GetShardIterator", err)
				continue
			}
			r.trimmed(err)
		case kindGone:
			r.Lost(r.shard.id, fmt.Errorf("streams: shard %s is gone: %w", r.shard.id, err))
			return false, true
		case kindTransient, kindExpired:
			r.pace.Retry(r.Run, r.shard.id, "GetShardIterator", err)
		default:
			r.Fail(fmt.Errorf("streams: GetShardIterator on shard %s: %w", r.shard.id, err))
			return false, false
		}
	}
	return false, false
}

// trimmed reports lost records and moves to the oldest record left.
func (r *shardReader) trimmed(err error) {
	r.Lost(r.shard.id, fmt.Errorf("streams: shard %s: records %s were trimmed before they were read: %w", r.shard.id, r.position(), err))
	r.start, r.lastSeq, r.iter = types.ShardIteratorTypeTrimHorizon, "", ""
	r.Sleep(r.cfg.MinPoll) // never spin, should the server repeat itself
}

func (r *shardReader) position() string {
	if r.lastSeq != "" {
		return "after sequence number " + r.lastSeq
	}
	return "at " + string(r.start)
}

type errKind uint8

const (
	kindFatal     errKind = iota
	kindStop              // Run is stopping
	kindExpired           // ExpiredIteratorException
	kindTrimmed           // TrimmedDataAccessException
	kindGone              // ResourceNotFoundException
	kindTransient         // throttling, server faults, network
)

func classify(ctx context.Context, err error) errKind {
	if ctx.Err() != nil {
		return kindStop
	}
	var (
		expired *types.ExpiredIteratorException
		trimmed *types.TrimmedDataAccessException
		gone    *types.ResourceNotFoundException
		limit   *types.LimitExceededException
		apiErr  smithy.APIError
	)
	switch {
	case errors.As(err, &expired):
		return kindExpired
	case errors.As(err, &trimmed):
		return kindTrimmed
	case errors.As(err, &gone):
		return kindGone
	case errors.As(err, &limit):
		return kindTransient
	case errors.As(err, &apiErr):
		switch apiErr.ErrorCode() {
		case "ThrottlingException", "RequestLimitExceeded", "ProvisionedThroughputExceededException":
			return kindTransient
		}
		if apiErr.ErrorFault() == smithy.FaultServer {
			return kindTransient
		}
		return kindFatal // access denied, validation, bad credentials…
	}
	return kindTransient // the network, a timeout
}
