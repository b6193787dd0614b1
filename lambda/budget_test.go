package main

import (
	"context"
	"testing"
	"time"
)

// testBudget is a budget for tests whose subject is not time: every call
// has a minute, so that DynamoDB Local (one JVM the suite shares) answering
// late on a loaded machine does not fail them. The budget's own arithmetic
// is TestBudget's; the caps, under the emulator, TestFaults'.
func testBudget() budget {
	b := budget{end: time.Now().Add(time.Minute), timeout: defaultTimeout, now: time.Now}
	for c := range b.caps {
		b.caps[c] = time.Minute
	}
	return b
}

// TestBudget: the arithmetic of docs/lambda.md. At the template's 30-s
// timeout every call ends within 4.5 s of the invocation's start, each
// within its cap; the cold start's time comes off the first invocation's;
// a call that starts late gets what is left, and one that starts after
// the end gets a context already done.
func TestBudget(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := start
	now := func() time.Time { return clock }
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(30*time.Second))
	defer cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		spent time.Duration
		at    time.Duration // since start, when the call begins
		call  call
		want  time.Duration // the call's deadline, since start
	}{
		{"PutMetricData first", ctx, 0, 0, callPutMetricData, 2 * time.Second},
		{"DescribeTable first", ctx, 0, 0, callDescribeTable, 1500 * time.Millisecond},
		{"history late", ctx, 0, 4 * time.Second, callHistoryPut, 4500 * time.Millisecond},
		{"Publish after a cold start of 1 s", ctx, time.Second, 3 * time.Second, callPublish, 3500 * time.Millisecond},
		{"past the end", ctx, 0, 5 * time.Second, callPublish, 4500 * time.Millisecond},
		{"no deadline: the template's timeout", context.Background(), 0, 4 * time.Second, callPutMetricData, 4500 * time.Millisecond},
	} {
		clock = start
		b := newBudget(tc.ctx, start, tc.spent, now)
		clock = start.Add(tc.at)
		if got := b.deadline(tc.call).Sub(start); got != tc.want {
			t.Errorf("%s: deadline at %s, want %s", tc.name, got, tc.want)
		}
	}
	// A 3-s timeout, as TestRIEInvokeTimeout gives: 0.45 s for the calls.
	short, cancel := context.WithDeadline(context.Background(), start.Add(3*time.Second))
	defer cancel()
	clock = start
	if got := newBudget(short, start, 0, now).deadline(callPutMetricData).Sub(start); got != 450*time.Millisecond {
		t.Errorf("3-s timeout: PutMetricData's deadline at %s, want 450ms", got)
	}
	// The zero budget has no time at all.
	cctx, cancel := (&budget{}).call(context.Background(), callPublish)
	defer cancel()
	if cctx.Err() == nil {
		t.Error("a call of the zero budget has time")
	}
}

// TestCallCapsFitTheBudget: one dependency's worst case fits within the
// calls' share of the budget at the template's timeout, and a call's cap
// holds its client's retries (retryAttempts, retryMaxBackoff apart).
func TestCallCapsFitTheBudget(t *testing.T) {
	share := time.Duration((budgetFraction - budgetReserve) * float64(defaultTimeout))
	for c := call(0); c < numCalls; c++ {
		if callCaps[c] > share {
			t.Errorf("%s's cap %s is over the calls' share of the budget, %s", c, callCaps[c], share)
		}
		if backoff := (retryAttempts - 1) * retryMaxBackoff; callCaps[c] < 2*backoff {
			t.Errorf("%s's cap %s leaves the retries' %s of backoff too little time", c, callCaps[c], backoff)
		}
	}
}
