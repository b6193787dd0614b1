// Package fault is how the test fakes of AWS services (fakecloudwatch,
// fakesns, fakesecretsmanager) and the DynamoDB fault proxy (faultproxy)
// misbehave on demand, the same five ways for each: they hang, fail with
// a server error, throttle, deny access, or answer slowly. Each fake
// answers a fault in its service's own wire format (CloudWatch's RPC v2
// CBOR error, SNS's XML ErrorResponse, Secrets Manager's and DynamoDB's
// JSON errors); this package holds what they share: the modes, and an
// Injector that holds or delays a request before the fake answers it.
package fault

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"
)

// Mode is how a dependency misbehaves.
type Mode int

const (
	// None: the fake answers as the service does.
	None Mode = iota
	// Hang: every request is held, unanswered, until the client gives up
	// (closes the connection, as it does when its context ends); the
	// request is not served.
	Hang
	// ServerError: every request is answered with the service's internal
	// error, HTTP 500, which the SDK retries.
	ServerError
	// Throttle: every request is answered with the service's throttling
	// error, which the SDK retries.
	Throttle
	// Denied: every request is answered with the service's access-denied
	// error (the role lacks the permission), which the SDK does not retry.
	Denied
	// Slow: every request is served as the service serves it, after the
	// Injector's delay, even when the client has given up by then (a
	// server does not know the client left): its effect happens, late.
	Slow
)

// Modes are the five faults, in order, for table-driven tests.
var Modes = []Mode{Hang, ServerError, Throttle, Denied, Slow}

func (m Mode) String() string {
	switch m {
	case None:
		return "none"
	case Hang:
		return "hang"
	case ServerError:
		return "500"
	case Throttle:
		return "throttle"
	case Denied:
		return "denied"
	case Slow:
		return "slow"
	}
	return "unknown"
}

// Injector holds a fake's fault. The zero value injects none. It is safe
// for concurrent use.
type Injector struct {
	mu      sync.Mutex
	mode    Mode
	delay   time.Duration
	faulted int
}

// Set makes every later request misbehave as m; delay is Slow's.
func (i *Injector) Set(m Mode, delay time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.mode, i.delay = m, delay
}

// Faulted counts the requests a fault was injected into.
func (i *Injector) Faulted() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.faulted
}

// Apply is the first thing a fake does with a request. Under Hang it
// holds the request until the client gives up and returns Hang: the fake
// writes nothing. Under Slow it waits the delay and returns None: the fake
// serves the request as usual (the delay is not cut short when the client
// leaves). Otherwise it returns the mode, and the fake answers
// ServerError, Throttle or Denied in its service's format, or serves the
// request (None).
func (i *Injector) Apply(r *http.Request) Mode {
	i.mu.Lock()
	m, d := i.mode, i.delay
	if m != None {
		i.faulted++
	}
	i.mu.Unlock()
	switch m {
	case Hang:
		// The server notices the client leave only once the body is
		// read: until then nothing reads the connection.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	case Slow:
		time.Sleep(d)
		return None
	}
	return m
}

// Case is one fault a fake's own test puts the SDK's real client
// through: the error code the client must see (ServerError, Throttle,
// Denied) and how many requests the fake must get.
type Case struct {
	Mode     Mode
	Code     string
	Attempts int
}

// Cases are the five faults of a service that answers a 500, a throttle
// and a denial with the codes given, against a client that makes up to
// attempts attempts of a call it retries (a 500, a throttle); a hang, a
// denial and a slow answer take one.
func Cases(serverError, throttle, denied string, attempts int) []Case {
	return []Case{{Hang, "", 1}, {ServerError, serverError, attempts}, {Throttle, throttle, attempts}, {Denied, denied, 1}, {Slow, "", 1}}
}

// CallContext is the context a fake's own test calls it under. Under Hang
// the caller gives up as soon as the fake holds the request (faulted, the
// fake's Faulted, counts it), as a caller's deadline would, however long
// the client takes to send it (under -race on a loaded machine, longer
// than any short timeout): the call's error is then context.Canceled.
// Under every other mode it has a minute.
func CallContext(m Mode, faulted func() int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	if m == Hang {
		go func() {
			for faulted() == 0 && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
	}
	return ctx, cancel
}

// CheckCall checks what a real client's call returned under m, in a fake's
// own test: the caller giving up under Hang, the error code under
// ServerError, Throttle and Denied, and success, no sooner than delay,
// under Slow; took is how long the call took.
func CheckCall(t testing.TB, m Mode, err error, code string, took, delay time.Duration) {
	t.Helper()
	var ae smithy.APIError
	switch m {
	case Hang:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want the call given up by its caller", m, err)
		}
	case Slow:
		if err != nil || took < delay {
			t.Errorf("%s: %v after %s; want success after at least %s", m, err, took, delay)
		}
	default:
		if !errors.As(err, &ae) || ae.ErrorCode() != code {
			t.Errorf("%s: %v, want %s", m, err, code)
		}
	}
}
