package clientwatch

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// A Watcher goes into a client's stack by itself (Initialize step) or
// through Middleware, with a call's own state in both steps.
var (
	_ middleware.InitializeMiddleware  = (*Watcher)(nil)
	_ middleware.InitializeMiddleware  = (*callState)(nil)
	_ middleware.DeserializeMiddleware = (*attemptWatch)(nil)
)

// ID names the middleware in the client's stack.
func (w *Watcher) ID() string { return "HotkeysClientWatch" }

// HandleInitialize runs last in the Initialize step: after the SDK has
// filled in the input (a transaction's idempotency token) and validated
// it, so that the caller's struct gets exactly what a plain client gives
// it, and a call the SDK refuses before sending is never seen. It sees the
// call's outcome after every attempt; each attempt's own answer is read
// inside the retry loop (call.go). Added by itself (not by Middleware),
// it sees no attempt's answer.
func (w *Watcher) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	return w.handle(ctx, in, next, getCallState(w))
}

// handle is HandleInitialize with the call's state, which it releases.
func (w *Watcher) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler, st *callState) (
	out middleware.InitializeOutput, md middleware.Metadata, err error,
) {
	if !w.begin(st, &in) {
		out, md, err = next.HandleInitialize(ctx, in)
		st.release() // after the call: its attempts still see st
		return out, md, err
	}
	start, clockOK := w.clock()
	out, md, err = next.HandleInitialize(ctx, in)
	w.finish(st, in.Parameters, out.Result, err, start, clockOK)
	if st.asked {
		// What the wire step could not take out (a body it could not
		// read), the SDK decoded: take it out of the output.
		stripCapacity(out.Result)
	}
	for _, resp := range st.wrapped {
		if resp.Body == &st.body {
			resp.Body = http.NoBody // the pooled state is not the caller's to read
		}
	}
	st.release()
	return out, md, err
}

// clock reads the watcher's clock; a clock that panics counts as an
// internal error, never the call's. With time.Now it reads the monotonic
// clock only, from the epoch (see Watcher.epoch).
func (w *Watcher) clock() (t time.Time, ok bool) {
	if w.monotonic {
		e := w.epoch.Load()
		return e.Add(time.Since(*e)), true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return w.now(), true
}

// begin marks the call's state active and, when the middleware must ask
// for ConsumedCapacity (the caller did not, and EstimateCapacity is off),
// swaps in a copy of the input that asks (INDEXES), so that the caller's
// own struct is never written. It returns false for operations the
// detector does not cover.
func (w *Watcher) begin(st *callState, in *middleware.InitializeInput) bool {
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.GetItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.PutItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.PutItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.UpdateItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.UpdateItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.DeleteItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.DeleteItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.QueryInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.QueryInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.ScanInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.ScanInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.BatchGetItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.BatchGetItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.BatchWriteItemInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.BatchWriteItemInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.TransactGetItemsInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.TransactGetItemsInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.TransactWriteItemsInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.TransactWriteItemsInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.ExecuteStatementInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.ExecuteStatementInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.BatchExecuteStatementInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.BatchExecuteStatementInput) { c.ReturnConsumedCapacity = want })
	case *dynamodb.ExecuteTransactionInput:
		return ask(w, st, in, p, p.ReturnConsumedCapacity, func(c *dynamodb.ExecuteTransactionInput) { c.ReturnConsumedCapacity = want })
	}
	return false
}

// want is what the middleware asks for: the table's units apart from its
// indexes', so that index capacity is never charged to the table's keys.
const want = types.ReturnConsumedCapacityIndexes

func none(r types.ReturnConsumedCapacity) bool {
	return r == "" || r == types.ReturnConsumedCapacityNone
}

// ask marks the call active and, when the middleware asks for capacity,
// gives the SDK a copy of *p that asks: the call's one allocation.
func ask[T any](w *Watcher, st *callState, in *middleware.InitializeInput, p *T, rcc types.ReturnConsumedCapacity, set func(*T)) bool {
	st.active = true
	if w.estimate || !none(rcc) {
		return true
	}
	st.asked = true
	c := new(T)
	*c = *p
	set(c)
	in.Parameters = c
	return true
}

// stripCapacity removes what the middleware made DynamoDB add.
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

// Middleware returns the stack mutator to append to
// dynamodb.Options.APIOptions. The SDK runs it for every call; it adds two
// middlewares, both the call's own pooled state (call.go): one last in
// the Initialize step, which sees each call once, and one just inside the
// SDK's deserializer, which sees each attempt's answer (and takes the
// capacity the first asked for off the wire).
func (w *Watcher) Middleware() func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		st := getCallState(w)
		if err := s.Initialize.Add(st, middleware.After); err != nil {
			return err
		}
		// Just inside the SDK's deserializer: outside the CRC32 check
		// and gzip (see wire.go).
		return s.Deserialize.Insert((*attemptWatch)(st), "OperationDeserializer", middleware.After)
	}
}

// ClientOption returns an option for dynamodb.NewFromConfig or dynamodb.New
// that installs the middleware.
func (w *Watcher) ClientOption() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, w.Middleware()) }
}
