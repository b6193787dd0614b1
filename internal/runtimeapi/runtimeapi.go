// Package runtimeapi is an in-process implementation of the AWS Lambda
// Runtime API, for tests that run a function's real bootstrap binary as a
// child process, the way Lambda (or the Runtime Interface Emulator behind
// `sam local invoke`) runs it, but without Docker.
//
// It serves the documented endpoints of API version 2018-06-01
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html):
//
//	GET  /2018-06-01/runtime/invocation/next
//	POST /2018-06-01/runtime/invocation/{AwsRequestId}/response
//	POST /2018-06-01/runtime/invocation/{AwsRequestId}/error
//	POST /2018-06-01/runtime/init/error
//
// Start the function with AWS_LAMBDA_RUNTIME_API set to Addr, then call
// Invoke once per event: it queues the event, hands it to the runtime's next
// GET with the Lambda-Runtime-* headers, and waits for the runtime to post
// the response or the error, as a synchronous Invoke does. The payload and
// response limits are Lambda's: 6 MB each.
//
// Left out, because a stream-triggered function needs none of it: the
// Extensions and Telemetry APIs, response streaming, and the client-context
// and Cognito headers of mobile invocations. The deadline is announced but
// not enforced: Invoke waits as long as its context allows, where Lambda
// would stop the environment at the timeout.
package runtimeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Headers the Runtime API sets on an invocation event, and the header a
// runtime sets on an error it posts.
const (
	HeaderRequestID          = "Lambda-Runtime-Aws-Request-Id"
	HeaderDeadlineMs         = "Lambda-Runtime-Deadline-Ms"
	HeaderInvokedFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	HeaderTraceID            = "Lambda-Runtime-Trace-Id"
	HeaderFunctionErrorType  = "Lambda-Runtime-Function-Error-Type"
)

// MaxPayloadBytes is Lambda's limit on a synchronous invocation's request
// and on its response.
const MaxPayloadBytes = 6 * 1024 * 1024

// Sentinel errors returned by Invoke.
var (
	ErrClosed          = errors.New("runtimeapi: server closed")
	ErrInitFailed      = errors.New("runtimeapi: the runtime reported an init error")
	ErrPayloadTooLarge = errors.New("runtimeapi: payload over 6 MB")
)

// FunctionError is an error the runtime reported, for one invocation
// (POST …/{id}/error) or for its initialisation (POST …/init/error), or one
// the API itself charged to the function (a response over 6 MB).
type FunctionError struct {
	// Type is the errorType of the body, or else the
	// Lambda-Runtime-Function-Error-Type header.
	Type string
	// Message is the errorMessage of the body.
	Message string
	// Body is the body as posted.
	Body []byte
}

func (e *FunctionError) Error() string { return e.Type + ": " + e.Message }

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// FunctionARN is sent as Lambda-Runtime-Invoked-Function-Arn. Default
	// arn:aws:lambda:us-east-1:123456789012:function:hotkeys-test.
	FunctionARN string
	// Timeout is the function's timeout: each invocation's deadline
	// (Lambda-Runtime-Deadline-Ms) is this long after the runtime receives
	// it. Default 30 s.
	Timeout time.Duration
	// Now is the clock deadlines are computed from. Default time.Now; a test
	// that checks the deadline a function sees sets a fixed one.
	Now func() time.Time
}

// Server is a Lambda Runtime API for one function instance. Its methods are
// safe for concurrent use; invocations are handed out one at a time, in the
// order Invoke was called, as Lambda does for one execution environment.
type Server struct {
	opts Options
	srv  *httptest.Server

	queue  chan *invocation
	closed chan struct{}
	once   sync.Once
	seq    atomic.Uint64

	mu      sync.Mutex
	pending map[string]*invocation
	initErr *FunctionError
	failed  chan struct{} // closed when initErr is set
}

type invocation struct {
	id       string
	payload  []byte
	done     chan struct{}
	resp     []byte
	fnErr    *FunctionError
	answered bool
}

// New starts a Server with the default options. Close it when done.
func New() *Server { return NewWithOptions(Options{}) }

// NewWithOptions starts a Server. Close it when done.
func NewWithOptions(opts Options) *Server {
	if opts.FunctionARN == "" {
		opts.FunctionARN = "arn:aws:lambda:us-east-1:123456789012:function:hotkeys-test"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		opts:    opts,
		queue:   make(chan *invocation),
		closed:  make(chan struct{}),
		pending: map[string]*invocation{},
		failed:  make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", s.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", s.response)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", s.invocationError)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", s.initError)
	s.srv = httptest.NewServer(mux)
	return s
}

// Addr is the value for AWS_LAMBDA_RUNTIME_API: host:port, without scheme.
func (s *Server) Addr() string { return s.srv.Listener.Addr().String() }

// Close stops the server. A runtime blocked on next gets a 500, which makes
// it exit, and pending Invoke calls return ErrClosed.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.srv.Close()
}

// InitError returns the error the runtime posted to init/error, or nil.
func (s *Server) InitError() *FunctionError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initErr
}

// Invoke hands payload to the function and waits for its answer. It returns
// the response body on success, or the function's error. err is set when no
// answer came: ctx ended, the server was closed, or the runtime failed to
// initialise (ErrInitFailed, with the init error as fnErr).
func (s *Server) Invoke(ctx context.Context, payload []byte) (resp []byte, fnErr *FunctionError, err error) {
	if len(payload) > MaxPayloadBytes {
		return nil, nil, fmt.Errorf("%w: %d bytes", ErrPayloadTooLarge, len(payload))
	}
	inv := &invocation{
		id:      newRequestID(s.seq.Add(1)),
		payload: payload,
		done:    make(chan struct{}),
	}
	s.mu.Lock()
	s.pending[inv.id] = inv
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, inv.id)
		s.mu.Unlock()
	}()

	select {
	case s.queue <- inv:
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("runtimeapi: the runtime never asked for the invocation: %w", ctx.Err())
	case <-s.closed:
		return nil, nil, ErrClosed
	case <-s.failed:
		return nil, s.InitError(), ErrInitFailed
	}
	select {
	case <-inv.done:
		return inv.resp, inv.fnErr, nil
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("runtimeapi: no answer from the runtime: %w", ctx.Err())
	case <-s.closed:
		return nil, nil, ErrClosed
	case <-s.failed:
		return nil, s.InitError(), ErrInitFailed
	}
}

// newRequestID makes a request id shaped like Lambda's (a UUID).
func newRequestID(n uint64) string {
	return fmt.Sprintf("8f5c1a2e-6d3b-4c1e-9a7f-%012x", n)
}

func (s *Server) next(w http.ResponseWriter, r *http.Request) {
	var inv *invocation
	select {
	case inv = <-s.queue:
	case <-r.Context().Done():
		return
	case <-s.closed:
		writeStatus(w, http.StatusInternalServerError, "ServiceException", "runtime API shutting down")
		return
	}
	deadline := s.opts.Now().Add(s.opts.Timeout)
	h := w.Header()
	h.Set(HeaderRequestID, inv.id)
	h.Set(HeaderDeadlineMs, strconv.FormatInt(deadline.UnixMilli(), 10))
	h.Set(HeaderInvokedFunctionARN, s.opts.FunctionARN)
	h.Set(HeaderTraceID, fmt.Sprintf("Root=1-%08x-%024x;Parent=%016x;Sampled=0", deadline.Unix(), s.seq.Load(), s.seq.Load()))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(inv.payload)
}

// settle records the answer to invocation id. It reports false when the id
// is unknown or already answered.
func (s *Server) settle(id string, resp []byte, fnErr *FunctionError) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv := s.pending[id]
	if inv == nil || inv.answered {
		return false
	}
	inv.answered = true
	inv.resp, inv.fnErr = resp, fnErr
	close(inv.done)
	return true
}

// answer settles invocation id and answers the runtime: 202, or 400 for an
// unknown or already answered id, as Lambda does.
func (s *Server) answer(w http.ResponseWriter, id string, resp []byte, fnErr *FunctionError) {
	if !s.settle(id, resp, fnErr) {
		writeStatus(w, http.StatusBadRequest, "InvalidRequestID", "invalid or already answered request ID "+strconv.Quote(id))
		return
	}
	writeStatus(w, http.StatusAccepted, "", "")
}

func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayloadBytes+1))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "InvalidRequest", err.Error())
		return
	}
	// aws-lambda-go reports a response stream that failed mid-way in
	// trailers, which are readable once the body is.
	if typ := r.Trailer.Get(HeaderFunctionErrorType); typ != "" {
		s.answer(w, r.PathValue("id"), nil, &FunctionError{Type: typ, Message: "response stream failed", Body: body})
		return
	}
	if len(body) > MaxPayloadBytes {
		fe := &FunctionError{Type: "Function.ResponseSizeTooLarge", Message: "response payload over 6 MB"}
		s.settle(r.PathValue("id"), nil, fe)
		writeStatus(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", fe.Message)
		return
	}
	s.answer(w, r.PathValue("id"), body, nil)
}

func (s *Server) invocationError(w http.ResponseWriter, r *http.Request) {
	fe, err := readFunctionError(r)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "InvalidRequest", err.Error())
		return
	}
	s.answer(w, r.PathValue("id"), nil, fe)
}

func (s *Server) initError(w http.ResponseWriter, r *http.Request) {
	fe, err := readFunctionError(r)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "InvalidRequest", err.Error())
		return
	}
	s.mu.Lock()
	first := s.initErr == nil
	if first {
		s.initErr = fe
		close(s.failed)
	}
	s.mu.Unlock()
	if !first {
		writeStatus(w, http.StatusForbidden, "InvalidStateTransition", "init error already reported")
		return
	}
	writeStatus(w, http.StatusAccepted, "", "")
}

// readFunctionError reads the documented error body,
// {"errorMessage": …, "errorType": …, "stackTrace": […]}; a body that is not
// that JSON is kept as the message, as Lambda keeps it.
func readFunctionError(r *http.Request) (*FunctionError, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayloadBytes))
	if err != nil {
		return nil, err
	}
	fe := &FunctionError{Type: r.Header.Get(HeaderFunctionErrorType), Body: body}
	var doc struct {
		Message string `json:"errorMessage"`
		Type    string `json:"errorType"`
	}
	if json.Unmarshal(body, &doc) == nil && (doc.Message != "" || doc.Type != "") {
		fe.Message = doc.Message
		if doc.Type != "" {
			fe.Type = doc.Type
		}
	} else {
		fe.Message = string(bytes.TrimSpace(body))
	}
	if fe.Type == "" {
		fe.Type = "Unhandled"
	}
	return fe, nil
}

// writeStatus answers as the Runtime API does: {"status":"OK"} on success,
// an error document otherwise.
func writeStatus(w http.ResponseWriter, status int, errType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if errType == "" {
		io.WriteString(w, `{"status":"OK"}`)
		return
	}
	b, _ := json.Marshal(map[string]string{"errorMessage": msg, "errorType": errType})
	w.Write(b)
}
