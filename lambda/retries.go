package main

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// Retries are the SDK's, set once per client here, and the function
// retries nothing itself: two retry loops would multiply (five retries of
// ours of three attempts each took 12-20 s against a failing history
// table). Each client makes at most retryAttempts attempts of a call,
// retryMaxBackoff apart, all within the call's cap (budget.go): a
// dependency that answers 500 or throttles costs 2 × retryMaxBackoff plus
// three round trips; one that hangs costs the cap; a refusal (access
// denied) costs one round trip.
const (
	retryAttempts   = 3
	retryMaxBackoff = 200 * time.Millisecond
)

// retryer is the bounded retryer of one client, retrying what the SDK's
// standard retryer retries (throttling, 5xx, connection errors), or only
// what retryables say. Its retry quota (the SDK's token bucket) stays on:
// a dependency that keeps failing gets fewer retries from a warm
// container, never more.
func retryer(retryables ...retry.IsErrorRetryable) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts, o.MaxBackoff = retryAttempts, retryMaxBackoff
		if retryables != nil {
			o.Retryables = retryables
		}
	})
}

// publishRetryables: an SNS Publish is retried only when SNS throttled it,
// which means it refused the message. A 500, a timeout or a connection
// lost after the request went out may come after SNS took the message,
// and a retry would send the onset twice.
var publishRetryables = []retry.IsErrorRetryable{
	retry.NoRetryCanceledError{},
	retry.RetryableErrorCode{Codes: map[string]struct{}{"Throttled": {}, "ThrottlingException": {}, "Throttling": {}}},
}
