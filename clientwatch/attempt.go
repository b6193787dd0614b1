package clientwatch

import (
	"bytes"
	"errors"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Each attempt's answer is read where the retry loop runs it, so that a
// throttled attempt counts whatever ends the call: the retries exhausted,
// or the caller's deadline during a backoff (the SDK then returns a
// cancellation error that no longer wraps the throttle) or in flight.
// DynamoDB's JSON 1.0 error body names the error in __type
// ("com.amazonaws.dynamodb.v20120810#ThrottlingException") and the header
// x-amzn-ErrorType says the same; throttling errors add ThrottlingReasons,
// and a cancelled transaction says per item why in CancellationReasons,
// "ThrottlingError" for an item DynamoDB throttled.

// Error codes DynamoDB throttles a request with.
var throttleCodes = []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}

// ReasonTransactionThrottled is the reason counted for a transaction item
// DynamoDB throttled (CancellationReasons[i].Code "ThrottlingError"), which
// carries no ThrottlingReasons of its own.
const ReasonTransactionThrottled = "ThrottlingError"

// readError reads an error answer and notes the attempt when DynamoDB
// throttled it, or throttled items of its transaction.
func (st *callState) readError(resp *smithyhttp.Response) {
	complete := st.buffer(resp)
	defer st.recoverWire()
	code := errorCode(resp.Header.Get("X-Amzn-Errortype"))
	var reasons []string
	var items []int
	if complete {
		if c, rs, its, ok := st.scanError(st.buf); ok {
			if c != "" {
				code = c
			}
			reasons, items = rs, its
		}
	}
	switch {
	case isThrottle(code):
		st.throttles = append(st.throttles, throttledAttempt{reasons: reasons})
	case code == "TransactionCanceledException" && len(items) > 0:
		st.throttles = append(st.throttles, throttledAttempt{items: items, tx: true})
	}
}

func isThrottle(code string) bool {
	for _, c := range throttleCodes {
		if code == c {
			return true
		}
	}
	return false
}

// errorCode reduces an error type as DynamoDB spells it
// ("com.amazonaws.dynamodb.v20120810#ThrottlingException", or the
// header's "ThrottlingException:http://…") to its code.
func errorCode(s string) string {
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// scanError reads an error body: its code, the ThrottlingReasons' reason
// strings, and the positions of the CancellationReasons that say
// ThrottlingError. Member names are matched without regard to case:
// DynamoDB's model spells them differently from one error to another.
func (st *callState) scanError(body []byte) (code string, reasons []string, items []int, ok bool) {
	err := st.sc.Members(body, func(name []byte, _, s, e int) error {
		v := body[s:e]
		switch {
		case bytes.EqualFold(name, []byte("__type")), bytes.EqualFold(name, []byte("code")):
			if str, ok := jsonString(v); ok {
				code = errorCode(str)
			}
		case bytes.EqualFold(name, []byte("ThrottlingReasons")):
			reasons = st.fieldOfEach(v, "reason", reasons, nil)
		case bytes.EqualFold(name, []byte("CancellationReasons")):
			i := 0
			st.fieldOfEach(v, "Code", nil, func(code string) {
				if code == ReasonTransactionThrottled {
					items = append(items, i)
				}
				i++
			})
		}
		return nil
	})
	return code, reasons, items, err == nil
}

// fieldOfEach reads member field of each object of the array arr: appended
// to dst, or passed to each (an element without it passes "").
func (st *callState) fieldOfEach(arr []byte, field string, dst []string, each func(string)) []string {
	if len(arr) == 0 || arr[0] != '[' {
		return dst
	}
	_ = st.sc1.Elements(arr, func(s, e int) error {
		obj := arr[s:e]
		var got string
		if len(obj) > 0 && obj[0] == '{' {
			_ = st.sc2.Members(obj, func(name []byte, _, vs, ve int) error {
				if bytes.EqualFold(name, []byte(field)) {
					got, _ = jsonString(obj[vs:ve])
				}
				return nil
			})
		}
		if each != nil {
			each(got)
		} else {
			dst = append(dst, got)
		}
		return nil
	})
	return dst
}

// jsonString returns a JSON string's text; escapes are rare enough in
// error codes and reasons to leave such a string out.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// invalidCodes are the errors of a call DynamoDB refused as invalid or
// unauthorized before doing any work: such a call is not load on any key,
// and is not counted.
var invalidCodes = []string{
	"ValidationException", "ResourceNotFoundException", "SerializationException",
	"UnrecognizedClientException", "AccessDeniedException", "InvalidSignatureException",
	"IncompleteSignatureException", "MissingAuthenticationTokenException", "ExpiredTokenException",
	"IdempotentParameterMismatchException", "UnknownOperationException",
}

// rejected reports whether err is DynamoDB refusing the call as invalid.
func rejected(err error) bool {
	return err != nil && invalid(err) // the nil test first: invalid's errors.As allocates
}

func invalid(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	code := ae.ErrorCode()
	for _, c := range invalidCodes {
		if code == c {
			return true
		}
	}
	return false
}
