package rie

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/go-cmp/cmp"
)

// The function under the emulator in these tests is this test binary: with
// RIE_TEST_FUNCTION=1 in its environment it is a Go Lambda function built
// on aws-lambda-go, the runtime client the hotkeys bootstrap uses.
const (
	functionEnv = "RIE_TEST_FUNCTION"
	initFailEnv = "RIE_TEST_INIT_FAIL"
)

func TestMain(m *testing.M) {
	if os.Getenv(functionEnv) == "1" {
		if os.Getenv(initFailEnv) != "" {
			fmt.Fprintln(os.Stderr, "test function: "+initFailEnv+" is set, so the cold start fails")
			os.Exit(1)
		}
		lambda.Start(lambda.NewHandler(testFunction))
		return
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

var kept [][]byte // what "alloc" allocated, kept alive

// testFunction does what a JSON string event asks; any other event is
// answered with its length in bytes.
func testFunction(ctx context.Context, event json.RawMessage) (any, error) {
	var cmd string
	if json.Unmarshal(event, &cmd) != nil {
		return len(event), nil
	}
	switch {
	case cmd == "whoami":
		lc, _ := lambdacontext.FromContext(ctx)
		deadline, _ := ctx.Deadline()
		fmt.Println("whoami: printed on stdout")
		fmt.Fprintln(os.Stderr, "whoami: printed on stderr")
		return map[string]any{"request_id": lc.AwsRequestID, "deadline_ms": deadline.UnixMilli(), "pid": os.Getpid()}, nil
	case cmd == "fail":
		return nil, errors.New("asked to fail")
	case cmd == "panic":
		panic("asked to panic")
	case cmd == "exit":
		os.Exit(3)
	case cmd == "hang":
		time.Sleep(24 * time.Hour) // past any deadline (a timer, so Go sees no deadlock)
	case strings.HasPrefix(cmd, "alloc "):
		mb, _ := strconv.Atoi(strings.TrimPrefix(cmd, "alloc "))
		b := make([]byte, mb<<20)
		for i := range b {
			b[i] = 1 // touched, so resident
		}
		kept = append(kept, b)
		return mb, nil
	}
	return len(event), nil
}

var built struct {
	once sync.Once
	dir  string
	rie  string
	err  error
}

// buildOnce builds the RIE once per test run.
func buildOnce() (string, error) {
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "rie-test-"); built.err == nil {
			built.rie, built.err = Build(built.dir)
		}
	})
	return built.rie, built.err
}

// launch runs this test binary as a function under the RIE, with extra
// environment, and closes both when the test ends.
func launch(t *testing.T, env ...string) *Emulator {
	t.Helper()
	if _, err := buildOnce(); err != nil {
		t.Fatal(err)
	}
	env = append([]string{functionEnv + "=1", "PATH=" + os.Getenv("PATH"), "AWS_LAMBDA_FUNCTION_TIMEOUT=30"}, env...)
	e, err := Start(context.Background(), Config{RIE: built.rie, Bootstrap: os.Args[0], Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("function output:\n%s\nRIE log:\n%s", lastLines(e.Output(), 30), lastLines(e.Log(), 30))
		}
		e.Close()
	})
	return e
}

func invoke(t *testing.T, e *Emulator, event string) Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := e.Invoke(ctx, []byte(event))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestInvoke: the event reaches the function, which sees the request id and
// the deadline the RIE gives it; the answer comes back; the function's
// stdout and stderr are in Output, between START and END lines naming the
// request.
func TestInvoke(t *testing.T) {
	e := launch(t, "AWS_LAMBDA_FUNCTION_TIMEOUT=7")
	before := time.Now()
	r := invoke(t, e, `"whoami"`)
	after := time.Now()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var got struct {
		RequestID string `json:"request_id"`
		Deadline  int64  `json:"deadline_ms"`
		PID       int    `json:"pid"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("%s: %v", r.Body, err)
	}
	// The RIE sets the deadline 7 s (AWS_LAMBDA_FUNCTION_TIMEOUT) after it
	// takes the invocation, which it does while Invoke runs.
	lo, hi := before.Add(7*time.Second).UnixMilli()-1, after.Add(7*time.Second).UnixMilli()
	if got.RequestID != r.RequestID || got.Deadline < lo || got.Deadline > hi {
		t.Errorf("the function saw request %q with deadline %d ms; want %q and a deadline in [%d, %d], 7 s after the invocation", got.RequestID, got.Deadline, r.RequestID, lo, hi)
	}
	if pid, err := e.BootstrapPID(); err != nil || pid != got.PID {
		t.Errorf("BootstrapPID = %d, %v; the function is %d", pid, err, got.PID)
	}
	out := e.Output()
	want := []string{"START RequestId: " + r.RequestID, "whoami: printed on stdout", "whoami: printed on stderr", "END RequestId: " + r.RequestID, "REPORT RequestId: " + r.RequestID}
	last := -1
	for _, w := range want {
		i := strings.Index(out, w)
		if i <= last {
			t.Fatalf("output lacks %q after the lines before it:\n%s", w, out)
		}
		last = i
	}
}

// TestFailures: each way an invocation fails, as the RIE answers it, and
// what Response.Err makes of it.
func TestFailures(t *testing.T) {
	e := launch(t)
	// A returned error: 200, and the bootstrap lives on.
	r := invoke(t, e, `"fail"`)
	if diff := cmp.Diff(&FunctionError{Type: "errorString", Message: "asked to fail"}, docOf(r)); r.Status != 200 || diff != "" {
		t.Errorf("a returned error: status %d, (-want +got):\n%s", r.Status, diff)
	}

	r = invoke(t, e, `"panic"`)
	var fe *FunctionError
	if !errors.As(r.Err(), &fe) || fe.Type != "string" || fe.Message != "asked to panic" || !strings.Contains(string(fe.Body), `"label":"testFunction"`) {
		t.Errorf("a panic: status %d, %v; want errorType string, the message and a stackTrace through testFunction: %s", r.Status, r.Err(), r.Body)
	}

	// aws-lambda-go exits after a panic, so this starts a new bootstrap.
	r = invoke(t, e, `"exit"`)
	want := &FunctionError{Type: "Runtime.ExitError", Message: "RequestId: " + r.RequestID + " Error: Runtime exited with error: exit status 3"}
	if diff := cmp.Diff(want, docOf(r)); r.Status != 502 || diff != "" {
		t.Errorf("an exit: status %d, (-want +got):\n%s", r.Status, diff)
	}

	// A hang, in an environment whose timeout is 2 s (the RIE gives a cold
	// start the same limit, and 1 s could fail a slow one).
	e = launch(t, "AWS_LAMBDA_FUNCTION_TIMEOUT=2")
	r = invoke(t, e, `"hang"`)
	if !errors.Is(r.Err(), ErrTimedOut) || string(r.Body) != "Task timed out after 2.00 seconds" || r.Status != 200 {
		t.Errorf("a hang: status %d, %q, %v; want 200, the RIE's timeout text and ErrTimedOut", r.Status, r.Body, r.Err())
	}
	if r := invoke(t, e, `{}`); r.Err() != nil || string(r.Body) != "2" {
		t.Errorf("after the failures: %q, %v; want a new bootstrap answering 2", r.Body, r.Err())
	}
}

// docOf returns the response's error document, less its raw body, or
// the error Err returned.
func docOf(r Response) any {
	var fe *FunctionError
	if !errors.As(r.Err(), &fe) {
		return r.Err()
	}
	return &FunctionError{Type: fe.Type, Message: fe.Message}
}

// TestInitFailure: a bootstrap that exits before it asks for an event
// fails every invocation with ErrInitFailed, each a new cold start, and
// its output says why.
func TestInitFailure(t *testing.T) {
	e := launch(t, initFailEnv+"=1")
	for range 2 {
		if r := invoke(t, e, `{}`); !errors.Is(r.Err(), ErrInitFailed) || r.Status != 502 {
			t.Errorf("status %d, %q: %v; want 502 and ErrInitFailed", r.Status, r.Body, r.Err())
		}
	}
	if n := strings.Count(e.Output(), "the cold start fails"); n != 2 {
		t.Errorf("the function's message is in the output %d times, want 2 (one per cold start):\n%s", n, e.Output())
	}
}

// TestPayloadLimit: an event of MaxPayloadBytes reaches the function whole
// (the RIE would cut a larger one); a larger one is refused before it is
// sent.
func TestPayloadLimit(t *testing.T) {
	e := launch(t)
	event := `"` + strings.Repeat("x", MaxPayloadBytes-2) + `"`
	if r := invoke(t, e, event); r.Err() != nil || string(r.Body) != strconv.Itoa(MaxPayloadBytes) {
		t.Errorf("an event of %d bytes: %q, %v; want the function to get all of it", len(event), r.Body, r.Err())
	}
	if _, err := e.Invoke(context.Background(), []byte(event+" ")); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("an event of %d bytes: %v; want ErrPayloadTooLarge", len(event)+1, err)
	}
}

// TestPeakMemory: VmHWM follows what the function touches.
func TestPeakMemory(t *testing.T) {
	e := launch(t)
	invoke(t, e, `{}`)
	before, err := e.PeakMemory()
	if err != nil {
		t.Fatal(err)
	}
	if r := invoke(t, e, `"alloc 64"`); r.Err() != nil {
		t.Fatal(r.Err())
	}
	after, err := e.PeakMemory()
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 64<<20 {
		t.Errorf("VmHWM went from %d to %d bytes; the function touched 64 MiB", before, after)
	}
}

// TestClose: no process is left, and a closed emulator says so.
func TestClose(t *testing.T) {
	e := launch(t)
	invoke(t, e, `{}`)
	pid, err := e.BootstrapPID()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := startTime(pid)
	e.Close()
	if alive(pid, st) {
		t.Errorf("the bootstrap (pid %d) is still running", pid)
	}
	if _, err := startTime(e.cmd.Process.Pid); err == nil {
		t.Errorf("the emulator (pid %d) is still there", e.cmd.Process.Pid)
	}
	if _, err := e.Invoke(context.Background(), []byte(`{}`)); !errors.Is(err, ErrExited) {
		t.Errorf("Invoke after Close: %v, want ErrExited", err)
	}
	e.Close()
}

// TestPortTaken: when a chosen port was taken in the meantime, the RIE
// exits and start says so, for Start to try other ports.
func TestPortTaken(t *testing.T) {
	launch(t) // builds the RIE
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	taken := l.Addr().(*net.TCPAddr).Port
	for _, ports := range [][]int{{taken, free[0]}, {free[0], taken}} {
		e, err := start(context.Background(), Config{RIE: built.rie, Bootstrap: os.Args[0]}, os.Args[0], ports)
		if !errors.Is(err, errPortTaken) {
			t.Errorf("ports %v with %d taken: %v; want errPortTaken", ports, taken, err)
		}
		if e != nil {
			e.Close()
		}
	}
}

// TestResponseErr: how each answer of the RIE is read.
func TestResponseErr(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   any
	}{
		{200, `{"state":{},"batchItemFailures":[]}`, nil},
		{200, `{"errorType":"x","errorMessage":"a response that looks like an error, but is more","more":1}`, nil},
		{200, `not JSON at all`, nil},
		{200, `{"errorMessage":"m","errorType":"T"}`, &FunctionError{Type: "T", Message: "m"}},
		{200, `{"errorMessage":"m","errorType":"T","stackTrace":[]}`, &FunctionError{Type: "T", Message: "m"}},
		{200, `Task timed out after 30.00 seconds`, ErrTimedOut},
		{502, ``, ErrInitFailed},
		{502, `{"errorType":"Runtime.ExitError","errorMessage":"RequestId: r Error: Runtime exited with error: signal: killed"}`,
			&FunctionError{Type: "Runtime.ExitError", Message: "RequestId: r Error: Runtime exited with error: signal: killed"}},
	} {
		got := docOf(Response{Status: tc.status, Body: []byte(tc.body)})
		if err, ok := tc.want.(error); ok && !errors.As(err, new(*FunctionError)) {
			if !errors.Is(got.(error), err) {
				t.Errorf("%d %s: %v, want %v", tc.status, tc.body, got, err)
			}
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%d %s (-want +got):\n%s", tc.status, tc.body, diff)
		}
	}
	for _, status := range []int{400, 500, 504} {
		if err := (Response{Status: status}).Err(); err == nil || errors.Is(err, ErrInitFailed) {
			t.Errorf("status %d: %v, want an unexpected-status error", status, err)
		}
	}
}

// A function under the emulator: here this test binary, which answers an
// event that is not a JSON string with its length.
func Example() {
	emulator, err := buildOnce()
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := Start(context.Background(), Config{RIE: emulator, Bootstrap: os.Args[0],
		Env: []string{functionEnv + "=1", "AWS_LAMBDA_FUNCTION_TIMEOUT=30"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	r, err := e.Invoke(context.Background(), []byte(`{"Records":[]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, string(r.Body), r.Err())
	// Output: 200 14 <nil>
}
