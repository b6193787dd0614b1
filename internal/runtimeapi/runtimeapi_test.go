package runtimeapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/hotkeys-dev/hotkeys/internal/runtimeapi"
)

// helperEnv makes the test binary act as a Lambda function built with
// aws-lambda-go: the real runtime client, run as a child process.
const helperEnv = "RUNTIMEAPI_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		lambda.Start(lambda.NewHandler(echo))
		return
	}
	os.Exit(m.Run())
}

// echo answers with what it knows of its invocation; "fail" and "panic"
// make it fail the two ways a Go function can.
func echo(ctx context.Context, in string) (string, error) {
	lc, _ := lambdacontext.FromContext(ctx)
	deadline, _ := ctx.Deadline()
	switch in {
	case "fail":
		return "", errors.New("asked to fail")
	case "panic":
		panic("asked to panic")
	}
	return fmt.Sprintf("%s|%s|%s|%d", strings.ToUpper(in), lc.AwsRequestID, lc.InvokedFunctionArn, deadline.UnixMilli()), nil
}

// clock is the servers' clock in these tests: the deadline a function is
// given is then known exactly, whenever and however slowly the test runs.
var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return clock }

func startFunction(t *testing.T, s *runtimeapi.Server) (exited <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{helperEnv + "=1", "AWS_LAMBDA_RUNTIME_API=" + s.Addr(), "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("function stderr:\n%s", stderr.String())
		}
	})
	return done
}

// TestRealRuntimeClient runs aws-lambda-go's own runtime client against the
// server: success, a returned error, the invocation context, and a panic,
// after which the runtime exits as it does on Lambda.
func TestRealRuntimeClient(t *testing.T) {
	s := runtimeapi.NewWithOptions(runtimeapi.Options{FunctionARN: "arn:aws:lambda:us-east-1:123456789012:function:echo", Timeout: 90 * time.Second, Now: fixedClock})
	defer s.Close()
	exited := startFunction(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var ids []string
	for _, in := range []string{"a", "bb"} {
		resp, fnErr, err := s.Invoke(ctx, []byte(strconv.Quote(in)))
		if err != nil || fnErr != nil {
			t.Fatalf("Invoke(%q) = %v, %v", in, fnErr, err)
		}
		var out string
		if _, err := fmt.Sscanf(string(resp), "%q", &out); err != nil {
			t.Fatalf("response %s: %v", resp, err)
		}
		parts := strings.Split(out, "|")
		deadline := strconv.FormatInt(clock.Add(90*time.Second).UnixMilli(), 10)
		if len(parts) != 4 || parts[0] != strings.ToUpper(in) || parts[2] != "arn:aws:lambda:us-east-1:123456789012:function:echo" || parts[3] != deadline {
			t.Errorf("Invoke(%q) = %q: want upper-cased input, request id, the function ARN and a 90 s deadline", in, out)
		}
		ids = append(ids, parts[1])
	}
	if ids[0] == "" || ids[0] == ids[1] {
		t.Errorf("request ids %q: want distinct, non-empty", ids)
	}

	_, fnErr, err := s.Invoke(ctx, []byte(`"fail"`))
	if err != nil || fnErr == nil || fnErr.Message != "asked to fail" || fnErr.Type != "errorString" {
		t.Fatalf("Invoke(fail) = %+v, %v: want the function's error", fnErr, err)
	}
	// The function is still up after a returned error.
	if resp, fnErr, err := s.Invoke(ctx, []byte(`"c"`)); err != nil || fnErr != nil || !bytes.HasPrefix(resp, []byte(`"C|`)) {
		t.Fatalf("Invoke after an error = %s, %v, %v", resp, fnErr, err)
	}

	_, fnErr, err = s.Invoke(ctx, []byte(`"panic"`))
	if err != nil || fnErr == nil || !strings.Contains(fnErr.Message, "asked to panic") {
		t.Fatalf("Invoke(panic) = %+v, %v: want the panic reported", fnErr, err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second): // only against a hang
		t.Fatal("the runtime did not exit after a panic")
	}
	// Nobody asks for the next one now: Invoke waits until its context
	// ends, whenever that is.
	short, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	if _, _, err := s.Invoke(short, []byte(`"d"`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Invoke with no runtime: err = %v, want the context's deadline", err)
	}
}

// rawClient speaks the Runtime API by hand, to reach the corners a real
// runtime never visits.
type rawClient struct {
	t    *testing.T
	base string
}

func (c rawClient) do(method, path, body string, header ...string) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

type result struct {
	resp  []byte
	fnErr *runtimeapi.FunctionError
	err   error
}

func invokeAsync(s *runtimeapi.Server, payload string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // only against a hang
		defer cancel()
		r, f, err := s.Invoke(ctx, []byte(payload))
		ch <- result{r, f, err}
	}()
	return ch
}

func TestProtocol(t *testing.T) {
	s := runtimeapi.NewWithOptions(runtimeapi.Options{Now: fixedClock})
	defer s.Close()
	c := rawClient{t, "http://" + s.Addr() + "/2018-06-01/runtime/"}

	// next: the event and its headers.
	ch := invokeAsync(s, `{"x":1}`)
	resp, body := c.do("GET", "invocation/next", "")
	id := resp.Header.Get(runtimeapi.HeaderRequestID)
	deadline, _ := strconv.ParseInt(resp.Header.Get(runtimeapi.HeaderDeadlineMs), 10, 64)
	switch {
	case resp.StatusCode != 200 || body != `{"x":1}`:
		t.Fatalf("next = %d %s", resp.StatusCode, body)
	case id == "":
		t.Error("no request id")
	case !time.UnixMilli(deadline).Equal(clock.Add(30 * time.Second)):
		t.Errorf("deadline %v, want the default timeout, 30 s, after %v", time.UnixMilli(deadline).UTC(), clock)
	case resp.Header.Get(runtimeapi.HeaderInvokedFunctionARN) == "" || !strings.HasPrefix(resp.Header.Get(runtimeapi.HeaderTraceID), "Root=1-"):
		t.Errorf("headers %v: want a function ARN and a trace id", resp.Header)
	}
	if r, _ := c.do("POST", "invocation/not-an-id/response", "{}"); r.StatusCode != 400 {
		t.Errorf("response to an unknown id: status %d, want 400", r.StatusCode)
	}
	if r, _ := c.do("POST", "invocation/"+id+"/response", `{"ok":true}`); r.StatusCode != 202 {
		t.Errorf("response: status %d, want 202", r.StatusCode)
	}
	if r, _ := c.do("POST", "invocation/"+id+"/response", `{"again":true}`); r.StatusCode != 400 {
		t.Errorf("second response to one id: status %d, want 400", r.StatusCode)
	}
	if got := <-ch; got.err != nil || got.fnErr != nil || string(got.resp) != `{"ok":true}` {
		t.Errorf("Invoke = %s, %v, %v", got.resp, got.fnErr, got.err)
	}

	// error: the documented body, and a bare one typed by the header.
	for _, tc := range []struct{ body, header, typ, msg string }{
		{`{"errorMessage":"boom","errorType":"MyError","stackTrace":[]}`, "", "MyError", "boom"},
		{`plain text`, "Runtime.Custom", "Runtime.Custom", "plain text"},
	} {
		ch := invokeAsync(s, `{}`)
		resp, _ := c.do("GET", "invocation/next", "")
		id := resp.Header.Get(runtimeapi.HeaderRequestID)
		if r, _ := c.do("POST", "invocation/"+id+"/error", tc.body, runtimeapi.HeaderFunctionErrorType, tc.header); r.StatusCode != 202 {
			t.Errorf("error: status %d, want 202", r.StatusCode)
		}
		got := <-ch
		if got.err != nil || got.fnErr == nil || got.fnErr.Type != tc.typ || got.fnErr.Message != tc.msg || string(got.fnErr.Body) != tc.body {
			t.Errorf("Invoke after error %s = %+v, %v; want type %q, message %q", tc.body, got.fnErr, got.err, tc.typ, tc.msg)
		}
	}

	// A response over 6 MB is the function's error, and the runtime is told.
	ch = invokeAsync(s, `{}`)
	resp, _ = c.do("GET", "invocation/next", "")
	if r, _ := c.do("POST", "invocation/"+resp.Header.Get(runtimeapi.HeaderRequestID)+"/response", strings.Repeat("x", runtimeapi.MaxPayloadBytes+1)); r.StatusCode != 413 {
		t.Errorf("oversized response: status %d, want 413", r.StatusCode)
	}
	if got := <-ch; got.fnErr == nil || got.fnErr.Type != "Function.ResponseSizeTooLarge" {
		t.Errorf("Invoke after an oversized response = %+v, %v", got.fnErr, got.err)
	}
	if _, _, err := s.Invoke(context.Background(), make([]byte, runtimeapi.MaxPayloadBytes+1)); !errors.Is(err, runtimeapi.ErrPayloadTooLarge) {
		t.Errorf("Invoke of 6 MB + 1: err = %v", err)
	}

	// init/error: pending and later invocations fail with it. Whether the
	// pending Invoke is already waiting when the error comes or starts
	// waiting just after, it fails the same way: no need to order them.
	ch = invokeAsync(s, `{}`)
	if r, _ := c.do("POST", "init/error", `{"errorMessage":"bad config","errorType":"Runtime.ExitError"}`); r.StatusCode != 202 {
		t.Errorf("init/error: status %d, want 202", r.StatusCode)
	}
	if got := <-ch; !errors.Is(got.err, runtimeapi.ErrInitFailed) || got.fnErr == nil || got.fnErr.Message != "bad config" {
		t.Errorf("pending Invoke after init error = %+v, %v", got.fnErr, got.err)
	}
	if got := <-invokeAsync(s, `{}`); !errors.Is(got.err, runtimeapi.ErrInitFailed) || got.fnErr == nil || got.fnErr.Message != "bad config" {
		t.Errorf("later Invoke after init error = %+v, %v", got.fnErr, got.err)
	}
	if fe := s.InitError(); fe == nil || fe.Type != "Runtime.ExitError" {
		t.Errorf("InitError() = %+v", fe)
	}
}

func TestCloseReleasesWaiters(t *testing.T) {
	s := runtimeapi.New()
	c := rawClient{t, "http://" + s.Addr() + "/2018-06-01/runtime/"}
	next := make(chan int, 1)
	go func() {
		resp, err := http.Get(c.base + "invocation/next")
		if err != nil {
			next <- -1
			return
		}
		resp.Body.Close()
		next <- resp.StatusCode
	}()
	ch := invokeAsync(s, `{}`) // taken by the runtime's next, never answered
	// next's answer is the event: the invocation is in flight.
	if code := <-next; code != 200 {
		t.Fatalf("next got status %d, want the queued event (200)", code)
	}
	s.Close()
	if got := <-ch; !errors.Is(got.err, runtimeapi.ErrClosed) {
		t.Errorf("pending Invoke after Close: err = %v, want ErrClosed", got.err)
	}
}
