package rie

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
)

// Response is the RIE's answer to one invocation.
type Response struct {
	// RequestID is the invocation's id, as the function's context and the
	// START, END and REPORT lines show it.
	RequestID string
	// Status is the HTTP status: 200 when the function answered (and on a
	// timeout), 502 when it failed.
	Status int
	// Body is the function's response, its error document, or the RIE's
	// timeout message.
	Body []byte
}

// FunctionError is a failed invocation's error document: what the function
// posted to the Runtime API (aws-lambda-go: a returned error, or a panic
// with its stackTrace), or what the RIE says for a runtime that exited
// during the invocation (Runtime.ExitError).
type FunctionError struct {
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
	// Body is the document as the RIE returned it.
	Body []byte `json:"-"`
}

func (e *FunctionError) Error() string { return e.Type + ": " + e.Message }

var timedOut = regexp.MustCompile(`^Task timed out after [0-9]+\.[0-9]{2} seconds$`)

// Err says how the invocation failed: nil when the function answered,
// ErrTimedOut, ErrInitFailed, or a *FunctionError.
//
// Lambda marks a function error with the X-Amz-Function-Error header; the
// RIE drops it. A function that returned an error is answered 200 with the
// error document, so a 200 answer is taken for an error when it is a JSON
// object of errorType, errorMessage and, optionally, stackTrace, and nothing
// else (aws-lambda-go's shape). A runtime that exited during the invocation
// (a panic, for aws-lambda-go exits after reporting one) is answered 502.
func (r Response) Err() error {
	switch {
	case r.Status == http.StatusOK && timedOut.Match(r.Body):
		return fmt.Errorf("%w: %s", ErrTimedOut, r.Body)
	case r.Status == http.StatusOK:
		if fe := errorDocument(r.Body); fe != nil {
			return fe
		}
		return nil
	case r.Status == http.StatusBadGateway && len(bytes.TrimSpace(r.Body)) == 0:
		return ErrInitFailed
	case r.Status == http.StatusBadGateway:
		if fe := errorDocument(r.Body); fe != nil {
			return fe
		}
		return fmt.Errorf("rie: status 502 with a body that is no error document: %.200q", r.Body)
	}
	return fmt.Errorf("rie: unexpected status %d: %.200q", r.Status, r.Body)
}

// errorDocument decodes an error document, or returns nil.
func errorDocument(body []byte) *FunctionError {
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return nil
	}
	fe := &FunctionError{Body: body}
	if json.Unmarshal(doc["errorType"], &fe.Type) != nil || fe.Type == "" || json.Unmarshal(doc["errorMessage"], &fe.Message) != nil {
		return nil
	}
	delete(doc, "errorType")
	delete(doc, "errorMessage")
	delete(doc, "stackTrace")
	if len(doc) != 0 {
		return nil
	}
	return fe
}
