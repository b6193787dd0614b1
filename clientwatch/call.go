package clientwatch

import (
	"context"
	"sync"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// A call is seen by two middlewares. The first, last in the Initialize
// step, sees it once: its input as the caller made it (after the SDK has
// filled in what it fills in, such as a transaction's idempotency token),
// and its outcome after every attempt, however the call ended. The
// second, in the Deserialize step just inside the SDK's deserializer, runs
// once per attempt, inside the retry loop: it is the only place that sees
// every attempt's answer, for when a deadline ends a call during a
// backoff the SDK returns an error that no longer wraps the throttling
// error before it. It also takes the ConsumedCapacity the first asked
// for off the response body (wire.go).
//
// Both are the call's own state: the SDK builds a stack for every call,
// running the stack mutator Middleware returns, which takes a callState
// from a pool and adds it as the two. So they share it without the
// context: a context layer of ours would be walked through by each of the
// forty-odd context lookups the SDK makes in a call, and would cost the
// estimating mode an allocation.

// callState is one call's scratch, pooled so that a call allocates none of
// it: the attempts' outcomes and the response body's capacity. It is the
// call's Initialize-step middleware; as *attemptWatch, its Deserialize one.
type callState struct {
	w      *Watcher
	active bool // the operation is one the detector covers
	asked  bool // the middleware asked for capacity: take it off the wire

	// attempts counts the attempts the SDK handed to the transport; a call
	// with none never reached DynamoDB.
	attempts int
	// throttles lists the attempts DynamoDB throttled, in order.
	throttles []throttledAttempt

	// The wire: the body of the last answer read, and the capacity taken
	// out of it (wire.go).
	buf   []byte
	body  wireBody
	caps  []wireCap
	idx   []wireIndexCap
	names []byte
	ok    bool // caps hold what DynamoDB reported; the body lacks it
	// wrapped lists the responses whose body is st.body: the Initialize
	// step unhooks them when the call returns, so that nobody reads a
	// pooled buffer through them.
	wrapped []*smithyhttp.Response

	// panics counts panics recovered in reading this call's answers: each
	// is an internal error, and the answer went to the SDK untouched.
	panics int

	// One scanner per level: the body, a ConsumedCapacity object, its
	// Table object or index map, one index's capacity.
	sc, sc1, sc2, sc3 jsonscan.Scanner
}

// throttledAttempt is one attempt DynamoDB throttled: the whole request
// (a throttling error, with the ThrottlingReasons it gave) or, for a
// transaction, some of its items (TransactionCanceledException with
// ThrottlingError among its CancellationReasons: items lists their
// positions).
type throttledAttempt struct {
	reasons []string
	items   []int
	tx      bool
}

var callStates = sync.Pool{New: func() any { return new(callState) }}

func getCallState(w *Watcher) *callState {
	st := callStates.Get().(*callState)
	st.w = w
	return st
}

// release returns st to the pool; the body handed to the SDK must have
// been read by then (the call has returned).
func (st *callState) release() {
	if cap(st.buf) > 1<<20 {
		return // an unusually large page: let it go rather than pin it
	}
	st.w = nil
	st.body = wireBody{}
	st.ok, st.active, st.asked = false, false, false
	st.attempts, st.panics = 0, 0
	clear(st.wrapped)
	st.wrapped = st.wrapped[:0]
	clear(st.throttles) // their slices are the caller's no more
	st.throttles = st.throttles[:0]
	callStates.Put(st)
}

// ID names the call's Initialize-step middleware in its stack.
func (st *callState) ID() string { return "HotkeysClientWatch" }

// HandleInitialize is Watcher.HandleInitialize with the call's own state.
func (st *callState) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	return st.w.handle(ctx, in, next, st)
}

// attemptWatch is a call's state as its Deserialize-step middleware: once
// per attempt.
type attemptWatch callState

func (*attemptWatch) ID() string { return "HotkeysClientWatchAttempt" }

func (a *attemptWatch) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	out middleware.DeserializeOutput, md middleware.Metadata, err error,
) {
	out, md, err = next.HandleDeserialize(ctx, in)
	st := (*callState)(a)
	if !st.active {
		return out, md, err
	}
	st.attempts++
	st.ok = false // a retried attempt starts over
	if err != nil {
		return out, md, err // no answer: nothing was refused
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.Body == nil {
		return out, md, err
	}
	switch {
	case resp.StatusCode == 200 && st.asked:
		st.takeCapacity(resp)
	case resp.StatusCode >= 400:
		st.readError(resp)
	}
	return out, md, err
}
