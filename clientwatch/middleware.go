package clientwatch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ID names the middleware in the client's stack.
func (w *Watcher) ID() string { return "HotkeysClientWatch" }

// HandleInitialize runs first in the Initialize step, so it sees the call
// once, as the caller made it, and its outcome after every retry. Each
// attempt's outcome (throttled or not, with the ThrottlingReasons the SDK
// decoded from DynamoDB's JSON 1.0 error body) comes from the retry
// middleware's AttemptResults, which the Finalize step's retry loop records
// for every attempt: reading them here costs nothing per call, where a
// second middleware after the retry step would need a context value (an
// allocation) on every call to know the call's keys.
func (w *Watcher) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	out middleware.InitializeOutput, md middleware.Metadata, err error,
) {
	ctx, st, ok := askCapacity(ctx, &in)
	if !ok {
		return next.HandleInitialize(ctx, in)
	}
	start := w.now()
	out, md, err = next.HandleInitialize(ctx, in)
	var end time.Time
	if w.monotonic {
		end = start.Add(time.Since(start)) // one clock reading, not two
	} else {
		end = w.now()
	}
	w.mu.Lock()
	w.rec.wire = st
	w.rec.record(w, in.Parameters, out.Result, md, err, start, end)
	w.rec.wire = nil
	w.mu.Unlock()
	if st != nil {
		// What the wire middleware could not take out (a body it could
		// not read), the SDK decoded: take it out of the output.
		stripCapacity(out.Result)
		if resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok && resp.Body == io.ReadCloser(&st.body) {
			resp.Body = http.NoBody // the pooled state is not the caller's to read
		}
		st.release()
	}
	return out, md, err
}

// askCapacity makes the call return ConsumedCapacity. When the caller did
// not ask (NONE or unset), it swaps in a copy of the input with INDEXES, so
// that the caller's own struct is never written, and returns a context
// that carries the call's wire state (see wire.go); st is nil when the
// caller asked. ok is false for operations the detector does not cover.
func askCapacity(ctx context.Context, in *middleware.InitializeInput) (_ context.Context, st *wireState, ok bool) {
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.GetItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.PutItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.PutItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.UpdateItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.UpdateItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.DeleteItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.DeleteItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.QueryInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.QueryInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.ScanInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.ScanInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.BatchGetItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.BatchGetItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.BatchWriteItemInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.BatchWriteItemInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.TransactGetItemsInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.TransactGetItemsInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.TransactWriteItemsInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.TransactWriteItemsInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.ExecuteStatementInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.ExecuteStatementInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.BatchExecuteStatementInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.BatchExecuteStatementInput) { c.ReturnConsumedCapacity = want })
		}
	case *dynamodb.ExecuteTransactionInput:
		if none(p.ReturnConsumedCapacity) {
			return ask(ctx, in, p, func(c *dynamodb.ExecuteTransactionInput) { c.ReturnConsumedCapacity = want })
		}
	default:
		return ctx, nil, false
	}
	return ctx, nil, true
}

// want is what the middleware asks for: the table's units apart from its
// indexes', so that index capacity is never charged to the table's keys.
const want = types.ReturnConsumedCapacityIndexes

func none(r types.ReturnConsumedCapacity) bool {
	return r == "" || r == types.ReturnConsumedCapacityNone
}

// ask swaps in a copy of *p, set to ask for capacity, inside the context
// that carries the call's wire state: one allocation for both.
func ask[T any](ctx context.Context, in *middleware.InitializeInput, p *T, set func(*T)) (context.Context, *wireState, bool) {
	st := getWireState()
	c := &askCtx[T]{Context: ctx, in: *p, st: st}
	set(&c.in)
	in.Parameters = &c.in
	return c, st, true
}

// stripCapacity removes what askCapacity made DynamoDB add.
func stripCapacity(result any) {
	switch o := result.(type) {
	case *dynamodb.GetItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.PutItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.UpdateItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.DeleteItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.QueryOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.ScanOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.BatchGetItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.BatchWriteItemOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.TransactGetItemsOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.TransactWriteItemsOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.ExecuteStatementOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.BatchExecuteStatementOutput:
		o.ConsumedCapacity = nil
	case *dynamodb.ExecuteTransactionOutput:
		o.ConsumedCapacity = nil
	}
}

// throttled returns whether an attempt's error is DynamoDB throttling it,
// and the reasons DynamoDB gave.
func throttled(err error) (reasons []types.ThrottlingReason, ok bool) {
	var pe *types.ProvisionedThroughputExceededException
	var rl *types.RequestLimitExceeded
	var te *types.ThrottlingException
	switch {
	case errors.As(err, &pe):
		return pe.ThrottlingReasons, true
	case errors.As(err, &rl):
		return rl.ThrottlingReasons, true
	case errors.As(err, &te):
		return te.ThrottlingReasons, true
	}
	return nil, false
}

// retryResult is one attempt's outcome as the retry middleware recorded it.
type retryResult = retry.AttemptResult

// attempts returns the outcomes of the call's attempts, in order: the
// retry middleware records every one, throttled and retried ones included.
func attempts(md middleware.Metadata) []retryResult {
	if res, ok := retry.GetAttemptResults(md); ok {
		return res.Results
	}
	return nil
}
