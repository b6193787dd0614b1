package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
)

// What the Lambda Runtime Interface Emulator does with the function when
// things go wrong: the invoke timeout, a panic, an exit, a failed cold
// start, and the cold start again after a crash. Each test reads the RIE's
// real answer.

// Events that make the bootstrap built with testdata/faults/faults.go
// panic, exit or never answer.
const (
	faultPanic = `"hotkeys-test-fault: panic"`
	faultExit  = `"hotkeys-test-fault: exit"`
	faultHang  = `"hotkeys-test-fault: hang"`
)

var faulty struct {
	once sync.Once
	path string
	err  error
}

// faultyBootstrapPath builds, once per run, the bootstrap with the faults of
// testdata/faults/faults.go: go build -overlay adds that file to package
// main and replaces main.go with a copy that starts withFaults(h). The
// function is otherwise the one deployed.
func faultyBootstrapPath(t testing.TB) string {
	t.Helper()
	bootstrapPath(t) // makes built.dir
	faulty.once.Do(func() {
		faulty.err = func() error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			src, err := os.ReadFile("main.go")
			if err != nil {
				return err
			}
			const start = "lambda.Start(h)"
			if n := strings.Count(string(src), start); n != 1 {
				return fmt.Errorf("main.go calls %s %d times, want once: update faultyBootstrapPath", start, n)
			}
			mainCopy := filepath.Join(built.dir, "main-with-faults.go")
			if err := os.WriteFile(mainCopy, []byte(strings.Replace(string(src), start, "lambda.Start(withFaults(h))", 1)), 0o644); err != nil {
				return err
			}
			overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
				filepath.Join(wd, "main.go"):      mainCopy,
				filepath.Join(wd, "zz_faults.go"): filepath.Join(wd, "testdata", "faults", "faults.go"),
			}})
			if err != nil {
				return err
			}
			overlayFile := filepath.Join(built.dir, "overlay.json")
			if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
				return err
			}
			faulty.path = filepath.Join(built.dir, "bootstrap-with-faults")
			return goBuild(faulty.path, overlayFile)
		}()
	})
	if faulty.err != nil {
		t.Fatal(faulty.err)
	}
	return faulty.path
}

// mustInvoke posts an event and returns the RIE's answer, whatever it is.
func (f *function) mustInvoke(t testing.TB, payload []byte) rie.Response {
	t.Helper()
	resp, err := f.invokeRaw(payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	return resp
}

// pid returns the running bootstrap's process id.
func (f *function) pid(t testing.TB) int {
	t.Helper()
	pid, err := f.em.BootstrapPID()
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether process pid has ended: reaped, or a zombie.
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// TestRIEInvokeTimeout: with AWS_LAMBDA_FUNCTION_TIMEOUT, the function
// keeps to the deadline the RIE gives it even when CloudWatch never
// answers; a function that does not answer is stopped at the timeout, and
// the next invocation gets a new bootstrap.
func TestRIEInvokeTimeout(t *testing.T) {
	shift := recentShift()
	s := sampleByFile("hot-key-ops-log.json")
	raw := readSample(t, s.File)
	payload := shiftEvent(raw, shift)
	t.Run("CloudWatch never answers", func(t *testing.T) {
		// A listener that accepts and never answers: at a 3-s timeout
		// the budget gives the calls 0.45 s (budget.go); PutMetricData
		// waits until alert's reserve before that (a fifth of the time
		// left), then the metrics go out as EMF.
		hole, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer hole.Close()
		go func() {
			var held []net.Conn
			for {
				c, err := hole.Accept()
				if err != nil {
					for _, c := range held {
						c.Close()
					}
					return
				}
				held = append(held, c)
			}
		}()
		tr, err := analyse(s.PKName, raw)
		if err != nil {
			t.Fatal(err)
		}
		f := startFunction(t, map[string]string{"HOTKEYS_PARTITION_KEY": "PK", "AWS_LAMBDA_FUNCTION_TIMEOUT": "3",
			"AWS_ENDPOINT_URL_CLOUDWATCH": "http://" + hole.Addr().String()})
		tumblingResponse(t, f.invoke(t, payload))
		lines := f.lines(t)
		checkWindow(t, windowCheck{table: s.Table, start: s.Window.Add(shift), want: s.Want, truth: tr, shard: true}, fromEMF(t, lines), findings(lines))
		said := false
		for _, l := range lines {
			said = said || (l.str("msg") == "cloudwatch PutMetricData failed" && l.str("error_code") == "DeadlineExceeded")
		}
		if !said {
			t.Error("no log line says PutMetricData ran out of time")
		}
	})
	t.Run("the function never answers", func(t *testing.T) {
		// Events that take no time, so that only the hang meets the
		// timeout, even under -race on a loaded machine (the RIE gives a
		// cold start the same limit: it passes the timeout to its init).
		empty := []byte(`{"Records":[]}`)
		f := startWith(t, faultyBootstrapPath(t), map[string]string{"HOTKEYS_PARTITION_KEY": "PK", "AWS_LAMBDA_FUNCTION_TIMEOUT": "2"})
		plainResponse(t, f.invoke(t, empty))
		before := f.pid(t)
		resp := f.mustInvoke(t, []byte(faultHang))
		if resp.Status != 200 || string(resp.Body) != "Task timed out after 2.00 seconds" || !errors.Is(resp.Err(), rie.ErrTimedOut) {
			t.Errorf("a hang: %d %q; want 200 and the RIE's timeout text", resp.Status, resp.Body)
		}
		plainResponse(t, f.invoke(t, empty))
		if after := f.pid(t); after == before || !gone(before) {
			t.Errorf("bootstrap %d before the timeout, %d after (the first gone: %v); want it stopped and a new one started", before, after, gone(before))
		}
	})
}

// TestRIEErrorShapes: what the RIE answers when the function panics (a bug
// of ours that escaped every recover) and when it exits, whole; and that
// the next invocation gets a new bootstrap, as in Lambda.
func TestRIEErrorShapes(t *testing.T) {
	f := startWith(t, faultyBootstrapPath(t), pkEnv)
	payload := shiftEvent(readSample(t, "hot-key-ops-log.json"), recentShift())
	tumblingResponse(t, f.invoke(t, payload))
	first := f.pid(t)

	// aws-lambda-go reports the panic with its stack, then exits.
	resp := f.mustInvoke(t, []byte(faultPanic))
	var doc struct {
		Type    string `json:"errorType"`
		Message string `json:"errorMessage"`
		Stack   []struct {
			Path  string `json:"path"`
			Line  int    `json:"line"`
			Label string `json:"label"`
		} `json:"stackTrace"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		t.Fatalf("a panic: %d %q: %v", resp.Status, resp.Body, err)
	}
	var fe *rie.FunctionError
	if resp.Status != 502 || !errors.As(resp.Err(), &fe) || doc.Type != "string" || doc.Message != "hotkeys test fault: a bug of ours" {
		t.Errorf("a panic: %d %s; want 502 with errorType string and the panic's value", resp.Status, resp.Body)
	}
	if !strings.Contains(fmt.Sprint(doc.Stack), "faulty.Invoke") {
		t.Errorf("the panic's stackTrace does not reach the function: %+v", doc.Stack)
	}
	tumblingResponse(t, f.invoke(t, payload))
	second := f.pid(t)

	resp = f.mustInvoke(t, []byte(faultExit))
	want := &rie.FunctionError{Type: "Runtime.ExitError", Message: "RequestId: " + resp.RequestID + " Error: Runtime exited with error: exit status 3"}
	if diff := cmp.Diff(want, errorOf(resp)); resp.Status != 502 || diff != "" {
		t.Errorf("an exit: status %d (want 502), error (-want +got):\n%s", resp.Status, diff)
	}
	tumblingResponse(t, f.invoke(t, payload))
	if third := f.pid(t); first == second || second == third || !gone(first) || !gone(second) {
		t.Errorf("bootstraps %d, then %d after the panic, then %d after the exit; want a new one each time", first, second, third)
	}
}

// errorOf returns the response's error document without its raw body, or the
// error Err returns.
func errorOf(resp rie.Response) any {
	var fe *rie.FunctionError
	if !errors.As(resp.Err(), &fe) {
		return resp.Err()
	}
	return &rie.FunctionError{Type: fe.Type, Message: fe.Message}
}

// TestRIEInitError: a bad environment value stops the cold start. The RIE
// answers 502 with no body (Lambda answers Runtime.ExitError), the output
// names the variable, and every invocation tries the cold start again.
func TestRIEInitError(t *testing.T) {
	f := startFunction(t, map[string]string{"HOTKEYS_TOP": "ten"})
	for range 2 {
		resp := f.mustInvoke(t, []byte(`{"Records":[]}`))
		if resp.Status != 502 || len(resp.Body) != 0 || !errors.Is(resp.Err(), rie.ErrInitFailed) {
			t.Errorf("invocation with HOTKEYS_TOP=ten: %d %q; want 502 with no body", resp.Status, resp.Body)
		}
	}
	out := f.output()
	if line := initErrorLine(out); line != `hotkeys: HOTKEYS_TOP="ten": detector: invalid configuration: not a whole number` {
		t.Errorf("the cold start's error: %q", line)
	}
	if n := strings.Count(out, `"msg":"configuration error"`); n != 2 {
		t.Errorf("%d cold starts failed, want 2 (one per invocation):\n%s", n, out)
	}
}

// TestRIEReinitAfterCrash: a tumbling window survives crashes of its
// execution environment, because its state travels in the events. The
// bootstrap exits during an invocation, then is killed between two; each
// time a new cold start follows (the key-redaction secret is read again),
// and the window published at the end is the one no crash gives.
//
// The RIE differs from Lambda in one respect here: a bootstrap that died
// between invocations fails the next one (Runtime.ExitError), which Lambda
// would retry with the same batch, as this test does.
func TestRIEReinitAfterCrash(t *testing.T) {
	shift := recentShift()
	p1 := shiftEvent(readSample(t, "tumbling-window-1.json"), shift)
	p2 := shiftEvent(readSample(t, "tumbling-window-2.json"), shift)
	p3 := shiftEvent(readSample(t, "tumbling-window-final.json"), shift)
	env := map[string]string{"HOTKEYS_PARTITION_KEY": "PK"}
	for k, v := range redactionEnv {
		env[k] = v
	}
	f := startWith(t, faultyBootstrapPath(t), env)
	coldStarts := func() int { return len(f.sm.Requests()) }

	s1 := tumblingResponse(t, f.invoke(t, withState(t, p1, map[string]string{})))
	first := f.pid(t)
	if resp := f.mustInvoke(t, []byte(faultExit)); resp.Status != 502 {
		t.Fatalf("exit during an invocation: %d %q", resp.Status, resp.Body)
	}
	s2 := tumblingResponse(t, f.invoke(t, withState(t, p2, s1)))
	second := f.pid(t)
	if first == second || coldStarts() != 2 {
		t.Errorf("after an exit: bootstrap %d then %d, %d cold starts; want a new one, 2", first, second, coldStarts())
	}

	// Killed between invocations, as by the kernel's OOM killer.
	if err := syscall.Kill(second, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	final := withState(t, p3, s2)
	resp := f.mustInvoke(t, final)
	want := &rie.FunctionError{Type: "Runtime.ExitError", Message: "RequestId: " + resp.RequestID + " Error: Runtime exited with error: signal: killed"}
	if diff := cmp.Diff(want, errorOf(resp)); resp.Status != 502 || diff != "" {
		t.Errorf("the invocation after a kill: status %d (want 502), error (-want +got):\n%s", resp.Status, diff)
	}
	if f.cw.Attempts() != 0 {
		t.Fatal("a failed final invocation published")
	}
	tumblingResponse(t, f.invoke(t, final)) // Lambda's retry of the batch
	if third := f.pid(t); third == second || coldStarts() != 3 {
		t.Errorf("after a kill: bootstrap %d then %d, %d cold starts; want a new one, 3", second, third, coldStarts())
	}
	checkWindow(t, windowCheck{table: "Orders", start: sampleByFile("tumbling-window-final.json").Window.Add(shift),
		want: tumblingSequence, truth: sequenceTruth(t), shard: true, redacted: true}, fromCloudWatch(t, f.cw), findings(f.lines(t)))
}

// TestPeakMemoryOfAFullBatch: a batch as large as Lambda sends (just under
// the RIE's and Lambda's 6 MB) fits in the memory template.yaml gives the
// function, by the bootstrap's VmHWM: the peak resident set, what Lambda's
// REPORT line calls Max Memory Used (the RIE prints the configured size
// there instead).
func TestPeakMemoryOfAFullBatch(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies the function's memory")
	}
	size := templateMemoryMB(t)
	// Records of about 1 KB (1 WCU each) over 2,000 customers, as many as
	// fit under rie.MaxPayloadBytes with room to spare: a first render
	// gives the size of a record.
	batch := func(n int) *sample {
		return &sample{Table: "Orders", PKName: "PK", SKName: "SK", Shape: tumblingFinal, Window: t0, Shard: "shardId-00000001795305600000-00b16b16",
			records: func(g *gen) {
				ids := make([]string, 2000)
				for i := range ids {
					ids[i] = "CUSTOMER#" + g.uuid()
				}
				for i := range n {
					g.insert(i*60/n, ids[g.rng.IntN(len(ids))], g.orderSK(), 1)
				}
			}}
	}
	n := 1000
	n = n * (rie.MaxPayloadBytes * 97 / 100) / len(batch(n).render())
	raw := batch(n).render()
	if len(raw) > rie.MaxPayloadBytes || len(raw) < rie.MaxPayloadBytes*9/10 {
		t.Fatalf("the batch is %d bytes: want just under %d", len(raw), rie.MaxPayloadBytes)
	}
	f := startFunction(t, pkEnv)
	tumblingResponse(t, f.invoke(t, shiftEvent(raw, recentShift())))
	peak, err := f.em.PeakMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %.1f MB batch of %d records: bootstrap VmHWM %.1f MiB of the template's %d MB", float64(len(raw))/1e6, n, float64(peak)/(1<<20), size)
	if peak >= int64(size)<<20 {
		t.Errorf("VmHWM %d bytes: over the function's MemorySize of %d MB", peak, size)
	}
}

// templateMemoryMB reads the function's MemorySize from template.yaml.
func templateMemoryMB(t testing.TB) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := cfn.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	stack, err := cfn.NewStack(tmpl, map[string]string{"StreamArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T00:00:00.000"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := stack.TypedNumbers().Resource("HotKeysFunction")
	if err != nil {
		t.Fatal(err)
	}
	props, _ := fn["Properties"].(map[string]any)
	mb, ok := props["MemorySize"].(int64)
	if !ok {
		t.Fatalf("template.yaml: HotKeysFunction's MemorySize is %v", props["MemorySize"])
	}
	return int(mb)
}
