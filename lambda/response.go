package main

// The function's answers to Lambda. Every batch succeeds as a whole (no
// record is reported failed: a bad one is counted and skipped), so
// BatchItemFailures is always empty, and never null.

type itemFailure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

// timeWindowResponse is DynamoDBTimeWindowEventResponse: State must never be
// null, or Lambda fails the invocation.
type timeWindowResponse struct {
	State             map[string]string `json:"state"`
	BatchItemFailures []itemFailure     `json:"batchItemFailures"`
}

// batchResponse is a plain batch's DynamoDBEventResponse.
type batchResponse struct {
	BatchItemFailures []itemFailure `json:"batchItemFailures"`
}
