package main

import (
	"context"
	"time"
)

// The time budget of one invocation. A timed-out invocation is the worst
// outcome there is: Lambda retries the batch, the shard stops moving, and
// what the invocation had done happens again, because the state Lambda
// retries with cannot record it. So the invocation ends within
// budgetFraction of the function's timeout whatever a dependency does
// (hangs, fails, throttles, refuses, answers slowly):
//
//	the must-do work   decode, count, answer with the state: never cut short
//	calls out          each under a deadline: now + its call's cap, and never
//	                   past the budget's end, budgetFraction − budgetReserve of
//	                   the timeout after the invocation started (less what the
//	                   cold start took, on a container's first invocation)
//	the reserve        budgetReserve of the timeout, after the last call's
//	                   deadline: the EMF fallback, the response, the hand-over
//
// At the template's 30-s timeout the calls end within 4.5 s of the
// invocation's start and the invocation within 6 s. The caps add up to
// more than the 4.5 s only when several dependencies fail at once: the
// budget's end then cuts the later calls short, and what they would have
// published is counted and logged as any failed call is. docs/lambda.md
// gives the arithmetic and the test that holds it.

// Fractions of the function's timeout.
const (
	// budgetFraction: the invocation ends within this fraction of the
	// function's timeout.
	budgetFraction = 0.20
	// budgetReserve: the part of it kept after the last call's deadline.
	budgetReserve = 0.05
)

// defaultTimeout stands for the function's timeout when the invocation has
// no deadline (a test calling Invoke directly): the template's Timeout.
const defaultTimeout = 30 * time.Second

// call is a kind of call out of the function; each has a fixed cap on its
// time, the client's retries included.
type call int

const (
	callDescribeTable call = iota // keyschema's lookup of the key schema and indexes
	callPutMetricData             // every PutMetricData request of one Publish, the EMF fallback's reserve included
	callHistoryPut                // one history PutItem (the windows of a batch are stored concurrently)
	callPublish                   // one SNS Publish (an invocation's are sent concurrently)
	numCalls
)

// callCaps are the caps, retries included (each client's retryer makes at
// most 3 attempts, at most 200 ms apart: see retries.go).
var callCaps = [numCalls]time.Duration{
	callDescribeTable: 1500 * time.Millisecond,
	callPutMetricData: 2 * time.Second,
	callHistoryPut:    1500 * time.Millisecond,
	callPublish:       1500 * time.Millisecond,
}

func (c call) String() string {
	return [numCalls]string{"DescribeTable", "PutMetricData", "PutItem", "Publish"}[c]
}

// budget hands out the deadlines of one invocation's calls out. Its zero
// value has no time: every call's context has ended.
type budget struct {
	end     time.Time               // no call's deadline is later
	caps    [numCalls]time.Duration // each call's: callCaps
	timeout time.Duration           // the function's, as the deadline gives it
	now     func() time.Time
	sleep   func(context.Context, time.Duration) // wait's; nil: sleepCtx
}

// newBudget returns the budget of an invocation that started at start
// with ctx's deadline (Lambda's: the function's timeout after the
// invocation was handed over), of which spent is already gone: the cold
// start's time, on a container's first invocation, which the emulator
// counts in it (Lambda does not: then the budget is only shorter).
func newBudget(ctx context.Context, start time.Time, spent time.Duration, now func() time.Time) budget {
	timeout := defaultTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = d.Sub(start)
	}
	calls := time.Duration(float64(timeout)*(budgetFraction-budgetReserve)) - spent
	return budget{end: start.Add(calls), caps: callCaps, timeout: timeout, now: now}
}

// deadline returns the deadline of a call of kind c starting now.
func (b budget) deadline(c call) time.Time {
	if b.now == nil {
		return time.Time{}
	}
	d := b.now().Add(b.caps[c])
	if d.After(b.end) {
		d = b.end
	}
	return d
}

// call returns the context of a call of kind c: ctx under the call's
// deadline.
func (b budget) call(ctx context.Context, c call) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, b.deadline(c))
}

// wait waits d, or until ctx ends, for a wait the configuration asks for
// (HOTKEYS_HISTORY_WRITE_SPREAD), not a dependency: the budget's end moves
// by the time waited, so that the calls after it keep their time. It
// waits no longer than leaves a whole budget (budgetFraction of the
// timeout) before ctx's deadline: the invocation still ends in time.
func (b *budget) wait(ctx context.Context, d time.Duration) {
	began := b.now()
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, dl.Sub(began)-time.Duration(budgetFraction*float64(b.timeout)))
	}
	if d <= 0 {
		return
	}
	sleep := b.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	sleep(ctx, d)
	b.end = b.end.Add(b.now().Sub(began))
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
