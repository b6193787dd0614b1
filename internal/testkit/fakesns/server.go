// Package fakesns is a stand-in for Amazon SNS's Publish in tests: an
// httptest server that speaks the service's real wire protocol, the AWS
// Query protocol (POST /, Content-Type application/x-www-form-urlencoded,
// Action=Publish&Version=2010-03-31&TopicArn=…&Subject=…&Message=…, SigV4
// signed, answered in XML), and checks what the service checks of a
// Publish: a Subject of fewer than 100 characters, printable, without line
// breaks; a Message of at most 256 KB. It answers as the service does, its
// ErrorResponse included.
//
// Point a real client at it with Server.Client, or, for a child process
// that loads the default AWS configuration, with AWS_ENDPOINT_URL_SNS=<URL>
// plus dummy credentials and a region.
package fakesns

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// MaxMessageBytes is SNS's limit on a message: 256 KB.
const MaxMessageBytes = 262_144

// Message is one accepted Publish.
type Message struct {
	TopicArn, Subject, Message string
}

// Server is a fake SNS endpoint. Its methods are safe for concurrent use.
type Server struct {
	// URL is the endpoint, for sns.Options.BaseEndpoint or
	// AWS_ENDPOINT_URL_SNS.
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	published []Message
	rejected  []string // why each refused request was refused
	failNext  int      // requests still to fail with failCode
	failCode  string
	attempts  int
	fault     fault.Injector
}

// statusOf is the HTTP status SNS answers each error code with.
var statusOf = map[string]int{
	"AuthorizationError": http.StatusForbidden,
	"InternalError":      http.StatusInternalServerError,
	"Throttled":          http.StatusTooManyRequests,
}

// New starts a server. Close it when done.
func New() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Client returns a real SNS client pointed at the server, which makes one
// attempt per call (no retries), so that tests count calls.
func (s *Server) Client() *sns.Client {
	return sns.New(sns.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(s.URL),
		Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
		RetryMaxAttempts: 1,
	})
}

// FailNext makes the next n Publish requests fail with an error of code:
// "AuthorizationError" (403), "Throttled" (429), "InternalError" (500),
// as SNS answers them.
func (s *Server) FailNext(n int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failCode = n, code
}

// SetFault makes every later request misbehave as m (Slow: served after
// delay), in SNS's own answers: InternalError (500), Throttled (429),
// AuthorizationError (403). fault.None ends it.
func (s *Server) SetFault(m fault.Mode, delay time.Duration) { s.fault.Set(m, delay) }

// Faulted counts the requests SetFault's fault was injected into.
func (s *Server) Faulted() int { return s.fault.Faulted() }

// Published returns the accepted messages, in order.
func (s *Server) Published() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.published...)
}

// Rejected returns why each refused request was refused (FailNext's
// included), in order.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// Attempts counts every request received.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
	code := map[fault.Mode]string{fault.ServerError: "InternalError", fault.Throttle: "Throttled", fault.Denied: "AuthorizationError"}
	mode := s.fault.Apply(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch mode {
	case fault.Hang:
		return
	case fault.ServerError, fault.Throttle, fault.Denied:
		s.fail(w, statusOf[code[mode]], code[mode], "injected by the test")
		return
	}
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		s.fail(w, http.StatusBadRequest, "InvalidAction", "want a form POST")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		s.fail(w, http.StatusForbidden, "MissingAuthenticationToken", "request is not signed")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.fail(w, http.StatusBadRequest, "MalformedQueryString", err.Error())
		return
	}
	f := r.PostForm
	if f.Get("Action") != "Publish" || f.Get("Version") != "2010-03-31" {
		s.fail(w, http.StatusBadRequest, "InvalidAction", "only Publish, version 2010-03-31, is served")
		return
	}
	m := Message{TopicArn: f.Get("TopicArn"), Subject: f.Get("Subject"), Message: f.Get("Message")}
	if s.failNext > 0 {
		s.failNext--
		s.fail(w, max(statusOf[s.failCode], http.StatusBadRequest), s.failCode, "injected by the test")
		return
	}
	if msg := check(m); msg != "" {
		s.fail(w, http.StatusBadRequest, "InvalidParameter", msg)
		return
	}
	s.published = append(s.published, m)
	fmt.Fprintf(w, `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>%08d-0000-4000-8000-000000000000</MessageId></PublishResult><ResponseMetadata><RequestId>req-%d</RequestId></ResponseMetadata></PublishResponse>`,
		len(s.published), s.attempts)
}

// check returns what SNS would refuse in m, or "".
func check(m Message) string {
	switch {
	case !strings.HasPrefix(m.TopicArn, "arn:") || !strings.Contains(m.TopicArn, ":sns:"):
		return "Invalid parameter: TopicArn"
	case m.Message == "":
		return "Invalid parameter: Empty message"
	case len(m.Message) > MaxMessageBytes:
		return "Invalid parameter: Message too long"
	case !utf8.ValidString(m.Message) || !utf8.ValidString(m.Subject):
		return "Invalid parameter: not UTF-8"
	case utf8.RuneCountInString(m.Subject) >= 100:
		return "Invalid parameter: Subject must be less than 100 characters"
	case strings.ContainsFunc(m.Subject, unicode.IsControl):
		return "Invalid parameter: Subject must not contain line breaks or control characters"
	}
	return ""
}

func (s *Server) fail(w http.ResponseWriter, status int, code, msg string) {
	s.rejected = append(s.rejected, code+": "+msg)
	kind := "Sender"
	if status >= 500 {
		kind = "Receiver"
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>req-%d</RequestId></ErrorResponse>`,
		kind, code, html.EscapeString(msg), s.attempts)
}
