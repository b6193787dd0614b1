// Package fakecloudwatch is a stand-in for the CloudWatch PutMetricData
// endpoint in tests: an httptest server that speaks what aws-sdk-go-v2's
// cloudwatch client sends (smithy RPC v2 CBOR, gzip bodies), decodes every
// request with smithy-go's own CBOR decoder, checks it against CloudWatch's
// documented limits, and keeps what it accepted. Failures can be injected
// to exercise retries and fallbacks.
//
// Point a real client at it with Server.Client, or, for a child process
// that loads the default AWS configuration, with the environment variables
// AWS_ENDPOINT_URL_CLOUDWATCH=<URL>, AWS_ACCESS_KEY_ID=test,
// AWS_SECRET_ACCESS_KEY=test and AWS_REGION=us-east-1.
package fakecloudwatch

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/smithy-go/encoding/cbor"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// Path is where the client posts PutMetricData.
const Path = "/service/GraniteServiceVersion20100801/operation/PutMetricData"

// MaxBodyBytes is CloudWatch's limit on a PutMetricData request body.
const MaxBodyBytes = 1 << 20

// Failure is an injected error response.
type Failure struct {
	Status  int    // HTTP status, e.g. 500
	Code    string // error shape name, e.g. "InternalServiceFault"
	Message string
	// Stall makes the server hold the request until the client gives up
	// (its context ends) instead of answering.
	Stall bool
}

// InternalError is the failure CloudWatch answers when it is unwell; the
// client's retryer retries it.
var InternalError = Failure{Status: http.StatusInternalServerError, Code: "InternalServiceFault", Message: "internal service fault (injected)"}

// Throttled is CloudWatch's answer to a caller over its request rate: code
// Throttling (the X-Amzn-Query-Error header's, as the service is
// awsQuery-compatible), HTTP 400. The client's retryer retries it.
var Throttled = Failure{Status: http.StatusBadRequest, Code: "ThrottlingException", Message: "Rate exceeded"}

// Denied is CloudWatch's answer to a role without cloudwatch:PutMetricData:
// code AccessDenied, HTTP 403. The client does not retry it.
var Denied = Failure{Status: http.StatusForbidden, Code: "AccessDeniedException",
	Message: "User: arn:aws:sts::123456789012:assumed-role/hotkeys-HotKeysFunctionRole/hotkeys is not authorized to perform: cloudwatch:PutMetricData because no identity-based policy allows the cloudwatch:PutMetricData action"}

// Server is a fake CloudWatch endpoint. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the endpoint, for cloudwatch.Options.BaseEndpoint or
	// AWS_ENDPOINT_URL_CLOUDWATCH.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	now      func() time.Time
	requests []Request
	attempts int
	rejected []string
	failNext []Failure
	failAll  *Failure
	// failAll applies once passAll more requests have been served.
	passAll int
	fault   fault.Injector
}

// New starts a server. Close it when done.
func New() *Server {
	s := &Server{now: time.Now}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// SetClock sets the clock that CloudWatch's time range (two weeks back to
// two hours ahead) is checked against; the default is time.Now. Tests that
// fix time set it, so that their outcome does not depend on when they run.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Close shuts the server down, waiting for requests in flight.
func (s *Server) Close() { s.srv.Close() }

// Client returns a real CloudWatch client pointed at the server, with dummy
// static credentials. optFns can adjust it, e.g. set a faster Retryer.
func (s *Server) Client(optFns ...func(*cloudwatch.Options)) *cloudwatch.Client {
	return cloudwatch.New(cloudwatch.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, optFns...)
}

// FastRetries is a client option for tests: the SDK's standard retryer
// with maxAttempts attempts, no backoff delay and no retry quota, so that a
// failing server fails a test in milliseconds.
func FastRetries(maxAttempts int) func(*cloudwatch.Options) {
	return func(o *cloudwatch.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = maxAttempts
			so.Backoff = noBackoff{}
			so.RateLimiter = ratelimit.None
		})
	}
}

type noBackoff struct{}

func (noBackoff) BackoffDelay(int, error) (time.Duration, error) { return 0, nil }

// Requests returns the requests accepted so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Data returns every metric datum accepted so far, in arrival order.
func (s *Server) Data() []Datum {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Datum
	for _, r := range s.requests {
		out = append(out, r.Data...)
	}
	return out
}

// Attempts counts every HTTP request received: accepted, rejected or failed
// on purpose, retries included.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Rejected returns why requests that broke CloudWatch's rules were refused
// (with a 400 InvalidParameterValue, as CloudWatch does). A test of a
// correct client expects none.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rejected)
}

// FailNext makes the next n requests fail with f.
func (s *Server) FailNext(n int, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failNext = append(s.failNext, f)
	}
}

// FailAll makes every request fail with f until Reset.
func (s *Server) FailAll(f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAll, s.passAll = &f, 0
}

// FailAfter serves the next n requests normally, then makes every later
// request fail with f until Reset: CloudWatch going down mid-publish.
func (s *Server) FailAfter(n int, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAll, s.passAll = &f, n
}

// SetFault makes every later request misbehave as m (Slow: served after
// delay), in CloudWatch's own answers: InternalError, Throttled, Denied.
// fault.None ends it.
func (s *Server) SetFault(m fault.Mode, delay time.Duration) { s.fault.Set(m, delay) }

// Faulted counts the requests SetFault's fault was injected into.
func (s *Server) Faulted() int { return s.fault.Faulted() }

// Reset forgets the requests and the injected failures (SetFault's
// aside).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.rejected, s.failNext, s.failAll, s.passAll, s.attempts = nil, nil, nil, nil, 0, 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
	var fail *Failure
	switch s.fault.Apply(r) {
	case fault.Hang:
		return
	case fault.ServerError:
		fail = &InternalError
	case fault.Throttle:
		fail = &Throttled
	case fault.Denied:
		fail = &Denied
	}
	s.mu.Lock()
	switch {
	case fail != nil:
	case len(s.failNext) > 0:
		f := s.failNext[0]
		s.failNext = s.failNext[1:]
		fail = &f
	case s.failAll != nil && s.passAll > 0:
		s.passAll--
	case s.failAll != nil:
		f := *s.failAll
		fail = &f
	}
	s.mu.Unlock()

	// Drain the body first, as a server does, so that the client sees the
	// answer rather than a reset connection.
	wire, readErr := io.ReadAll(io.LimitReader(r.Body, 4*MaxBodyBytes))
	if fail != nil {
		if fail.Stall {
			<-r.Context().Done()
			return
		}
		writeError(w, fail.Status, fail.Code, fail.Message)
		return
	}
	if readErr != nil {
		s.reject(w, http.StatusBadRequest, "reading body: "+readErr.Error())
		return
	}
	req, status, err := s.check(r, wire)
	if err != nil {
		s.reject(w, status, err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
	w.Header().Set("Content-Type", "application/cbor")
	w.WriteHeader(http.StatusOK)
	w.Write(cbor.Encode(cbor.Map{})) // PutMetricDataOutput has no members
}

// check validates the HTTP envelope, decodes the body and applies
// CloudWatch's limits.
func (s *Server) check(r *http.Request, wire []byte) (Request, int, error) {
	switch {
	case r.Method != http.MethodPost || r.URL.Path != Path:
		return Request{}, http.StatusNotFound, fmt.Errorf("%s %s: not PutMetricData", r.Method, r.URL.Path)
	case r.Header.Get("Smithy-Protocol") != "rpc-v2-cbor":
		return Request{}, http.StatusBadRequest, fmt.Errorf("Smithy-Protocol %q", r.Header.Get("Smithy-Protocol"))
	case r.Header.Get("Content-Type") != "application/cbor":
		return Request{}, http.StatusBadRequest, fmt.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
	case !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="):
		return Request{}, http.StatusForbidden, fmt.Errorf("not signed with SigV4")
	case len(wire) > MaxBodyBytes:
		return Request{}, http.StatusRequestEntityTooLarge, fmt.Errorf("body of %d bytes over %d", len(wire), MaxBodyBytes)
	}
	body := wire
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "":
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err != nil {
			return Request{}, http.StatusBadRequest, fmt.Errorf("gzip: %w", err)
		}
		if body, err = io.ReadAll(io.LimitReader(zr, MaxBodyBytes+1)); err != nil {
			return Request{}, http.StatusBadRequest, fmt.Errorf("gzip: %w", err)
		}
	default:
		return Request{}, http.StatusBadRequest, fmt.Errorf("Content-Encoding %q", enc)
	}
	if len(body) > MaxBodyBytes {
		return Request{}, http.StatusRequestEntityTooLarge, fmt.Errorf("uncompressed body over %d bytes", MaxBodyBytes)
	}
	req, err := Decode(body)
	if err != nil {
		return Request{}, http.StatusBadRequest, err
	}
	req.ContentEncoding = r.Header.Get("Content-Encoding")
	req.WireBytes = len(wire)
	s.mu.Lock()
	now := s.now
	s.mu.Unlock()
	if err := req.Validate(now()); err != nil {
		return Request{}, http.StatusBadRequest, err
	}
	return req, 0, nil
}

func (s *Server) reject(w http.ResponseWriter, status int, reason string) {
	s.mu.Lock()
	s.rejected = append(s.rejected, reason)
	s.mu.Unlock()
	code := "InvalidParameterValueException"
	if status == http.StatusForbidden {
		code = "AccessDeniedException"
	}
	writeError(w, status, code, reason)
}

// writeError answers with an RPC v2 CBOR error: the shape's ID in __type.
func writeError(w http.ResponseWriter, status int, code, message string) {
	fault := "Sender"
	if status >= 500 {
		fault = "Receiver"
	}
	w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
	w.Header().Set("Content-Type", "application/cbor")
	w.Header().Set("X-Amzn-Query-Error", strings.TrimSuffix(code, "Exception")+";"+fault)
	w.WriteHeader(status)
	w.Write(cbor.Encode(cbor.Map{
		"__type":  cbor.String("com.amazonaws.cloudwatch#" + code),
		"message": cbor.String(message),
	}))
}
