// Package fakesecretsmanager is a stand-in for AWS Secrets Manager's
// GetSecretValue in tests: an httptest server that speaks the service's
// real wire protocol, awsJson1_1 (POST /, Content-Type
// application/x-amz-json-1.1, X-Amz-Target: secretsmanager.GetSecretValue,
// a SigV4-signed JSON body), and answers as the service does, including its
// AccessDeniedException and ResourceNotFoundException error shapes.
//
// Point a real client at it with Server.Client, or, for a child process
// that loads the default AWS configuration, with
// AWS_ENDPOINT_URL_SECRETS_MANAGER=<URL> plus dummy credentials and a
// region.
package fakesecretsmanager

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// Target is the X-Amz-Target of GetSecretValue, the one operation served.
const Target = "secretsmanager.GetSecretValue"

// ContentType is awsJson1_1's.
const ContentType = "application/x-amz-json-1.1"

// Server is a fake Secrets Manager endpoint. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the endpoint, for secretsmanager.Options.BaseEndpoint or
	// AWS_ENDPOINT_URL_SECRETS_MANAGER.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	secrets  map[string]secret // by ARN
	denied   map[string]bool   // ARNs the caller may not read
	requests []string          // SecretId of every well-formed request
	rejected []string
	fault    fault.Injector
}

type secret struct {
	name   string
	value  string
	binary []byte
}

// New starts a server. Close it when done.
func New() *Server {
	s := &Server{secrets: map[string]secret{}, denied: map[string]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Client returns a real Secrets Manager client pointed at the server;
// optFns can adjust it, e.g. set a Retryer.
func (s *Server) Client(optFns ...func(*secretsmanager.Options)) *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, optFns...)
}

// PutString stores a secret whose SecretString is value, under its full
// ARN (arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-SUFFIX).
func (s *Server) PutString(arn, value string) {
	s.put(arn, secret{value: value})
}

// PutBinary stores a secret whose SecretBinary is value.
func (s *Server) PutBinary(arn string, value []byte) {
	s.put(arn, secret{binary: append([]byte(nil), value...)})
}

func (s *Server) put(arn string, sec secret) {
	name := arn[strings.LastIndex(arn, ":")+1:]
	if i := strings.LastIndex(name, "-"); i > 0 {
		name = name[:i] // the 6-character suffix Secrets Manager adds
	}
	sec.name = name
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[arn] = sec
}

// Deny makes GetSecretValue of arn fail as it does for a role without
// secretsmanager:GetSecretValue on it.
func (s *Server) Deny(arn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[arn] = true
}

// SetFault makes every later request misbehave as m (Slow: served after
// delay), in Secrets Manager's own answers: InternalServiceError (500),
// ThrottlingException (400), AccessDeniedException (400, as for a role
// without secretsmanager:GetSecretValue). fault.None ends it.
func (s *Server) SetFault(m fault.Mode, delay time.Duration) { s.fault.Set(m, delay) }

// Faulted counts the requests SetFault's fault was injected into.
func (s *Server) Faulted() int { return s.fault.Faulted() }

// Requests returns the SecretId of every well-formed GetSecretValue, in
// order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Rejected returns why each malformed request was turned away.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// serve answers GetSecretValue as the service does: the secret, or the
// error the service gives for a missing or refused one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.faulted(w, r) {
		return
	}
	body, ok := s.readRequest(w, r)
	if !ok {
		return
	}
	var in struct {
		SecretID     *string `json:"SecretId"`
		VersionID    *string `json:"VersionId"`
		VersionStage *string `json:"VersionStage"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.SecretID == nil || *in.SecretID == "" {
		writeError(w, http.StatusBadRequest, "ValidationException", "1 validation error detected: Value null at 'secretId' failed to satisfy constraint: Member must not be null")
		s.note(fmt.Sprintf("body %q: %v", body, err))
		return
	}
	id := *in.SecretID

	s.mu.Lock()
	s.requests = append(s.requests, id)
	arn, sec, found := s.lookup(id)
	denied := s.denied[arn] || s.denied[id]
	s.mu.Unlock()

	switch {
	case denied:
		// IAM answers before the service looks the secret up.
		writeError(w, http.StatusBadRequest, "AccessDeniedException", deniedMessage(id))
		return
	case !found:
		writeError(w, http.StatusBadRequest, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	out := map[string]any{
		"ARN":           arn,
		"Name":          sec.name,
		"VersionId":     "00000000-0000-4000-8000-000000000001",
		"VersionStages": []string{"AWSCURRENT"},
		"CreatedDate":   1.7637e9,
	}
	if sec.binary != nil {
		out["SecretBinary"] = sec.binary // base64, as encoding/json writes []byte
	} else {
		out["SecretString"] = sec.value
	}
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("X-Amzn-Requestid", "fake-request-id")
	json.NewEncoder(w).Encode(out)
}

// faulted answers r as SetFault's fault asks, if it asks for one, and
// says whether it did (a hung request is answered by nothing at all).
func (s *Server) faulted(w http.ResponseWriter, r *http.Request) bool {
	switch s.fault.Apply(r) {
	case fault.Hang:
	case fault.ServerError:
		writeError(w, http.StatusInternalServerError, "InternalServiceError", "An error occurred on the server side.")
	case fault.Throttle:
		writeError(w, http.StatusBadRequest, "ThrottlingException", "Rate exceeded")
	case fault.Denied:
		writeError(w, http.StatusBadRequest, "AccessDeniedException", deniedMessage("the secret"))
	default:
		return false
	}
	return true
}

// deniedMessage is IAM's refusal of GetSecretValue on resource.
func deniedMessage(resource string) string {
	return "User: arn:aws:sts::123456789012:assumed-role/hotkeys-HotKeysFunctionRole/hotkeys is not authorized to perform: secretsmanager:GetSecretValue on resource: " + resource +
		" because no identity-based policy allows the secretsmanager:GetSecretValue action"
}

// readRequest reads r's body, once r is a GetSecretValue request as the
// SDK sends it (awsJson1_1, signed for secretsmanager); otherwise it
// answers as the service would, notes why, and returns false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		s.reject(w, "reading the body: "+err.Error())
		return nil, false
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/":
		s.reject(w, fmt.Sprintf("%s %s: awsJson1_1 posts to /", r.Method, r.URL.Path))
		return nil, false
	case !strings.HasPrefix(r.Header.Get("Content-Type"), ContentType):
		s.reject(w, "Content-Type "+r.Header.Get("Content-Type"))
		return nil, false
	case r.Header.Get("X-Amz-Target") != Target:
		writeError(w, http.StatusBadRequest, "UnknownOperationException", "")
		s.note("X-Amz-Target " + r.Header.Get("X-Amz-Target"))
		return nil, false
	case !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") ||
		!strings.Contains(r.Header.Get("Authorization"), "/secretsmanager/aws4_request"):
		writeError(w, http.StatusBadRequest, "IncompleteSignature", "the request is not signed for secretsmanager")
		s.note("Authorization " + r.Header.Get("Authorization"))
		return nil, false
	}
	return body, true
}

// lookup finds a secret by ARN or by name, as the service does.
func (s *Server) lookup(id string) (string, secret, bool) {
	if sec, ok := s.secrets[id]; ok {
		return id, sec, true
	}
	for arn, sec := range s.secrets {
		if sec.name == id {
			return arn, sec, true
		}
	}
	return id, secret{}, false
}

func (s *Server) note(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejected = append(s.rejected, reason)
}

func (s *Server) reject(w http.ResponseWriter, reason string) {
	s.note(reason)
	writeError(w, http.StatusBadRequest, "SerializationException", reason)
}

// writeError answers as awsJson1_1 services do: the shape's name in
// __type, its text in Message.
func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("X-Amzn-Requestid", "fake-request-id")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": code, "Message": message})
}
