package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/internal/fakesecretsmanager"
	"github.com/hotkeys-dev/hotkeys/internal/runtimeapi"
)

// The function under test is the real bootstrap, built as `sam build` builds
// it (lambda.norpc, no cgo) for the host architecture, and run as a child
// process against runtimeapi, an in-process Lambda Runtime API, with a fake
// CloudWatch that decodes the client's real CBOR requests. This replaces
// `sam local invoke`, which needs Docker.

var bootstrap struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bootstrap.dir != "" {
		os.RemoveAll(bootstrap.dir)
	}
	os.Exit(code)
}

// bootstrapPath builds the function once per test run.
func bootstrapPath(t testing.TB) string {
	t.Helper()
	bootstrap.once.Do(func() {
		dir, err := os.MkdirTemp("", "hotkeys-bootstrap-")
		if err != nil {
			bootstrap.err = err
			return
		}
		bootstrap.dir = dir
		bootstrap.path = filepath.Join(dir, "bootstrap")
		args := []string{"build", "-tags", "lambda.norpc", "-trimpath", "-o", bootstrap.path}
		env := append(os.Environ(), "CGO_ENABLED=0")
		if raceEnabled {
			// Under `go test -race` the function runs with the race
			// detector too; its reports are failures (see startFunction).
			args = append(args, "-race")
			env = append(os.Environ(), "CGO_ENABLED=1")
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			bootstrap.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if bootstrap.err != nil {
		t.Fatal(bootstrap.err)
	}
	return bootstrap.path
}

// function is one execution environment: the bootstrap process, its
// Runtime API, its CloudWatch, its Secrets Manager, and its captured output.
type function struct {
	rt     *runtimeapi.Server
	cw     *fakecloudwatch.Server
	sm     *fakesecretsmanager.Server
	cmd    *exec.Cmd
	stdout *os.File // files, not pipes: once the function has answered,
	stderr *os.File // everything it wrote before is there to read
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// startFunction starts the bootstrap with the environment Lambda gives a
// provided.al2023 function, plus env (HOTKEYS_* and overrides; an empty
// value removes a variable).
func startFunction(t testing.TB, env map[string]string) *function {
	t.Helper()
	bin := bootstrapPath(t)
	f := &function{rt: runtimeapi.New(), cw: fakecloudwatch.New(), sm: newSecretsManager(), exited: make(chan struct{})}
	home := t.TempDir()
	vars := map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"HOME":                            home,
		"LANG":                            "en_US.UTF-8",
		"TZ":                              ":UTC",
		"LAMBDA_TASK_ROOT":                filepath.Dir(bin),
		"LAMBDA_RUNTIME_DIR":              "/var/runtime",
		"_HANDLER":                        "bootstrap",
		"AWS_LAMBDA_RUNTIME_API":          f.rt.Addr(),
		"AWS_LAMBDA_FUNCTION_NAME":        "hotkeys-HotKeysFunction-test",
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/hotkeys-HotKeysFunction-test",
		"AWS_LAMBDA_LOG_STREAM_NAME":      "2026/11/22/[$LATEST]0123456789abcdef0123456789abcdef",
		"AWS_LAMBDA_INITIALIZATION_TYPE":  "on-demand",
		"AWS_REGION":                      "us-east-1",
		"AWS_DEFAULT_REGION":              "us-east-1",
		// Dummy credentials, as for any local endpoint; the developer's own
		// configuration files are kept out of reach.
		"AWS_ACCESS_KEY_ID":           "test",
		"AWS_SECRET_ACCESS_KEY":       "test",
		"AWS_CONFIG_FILE":             filepath.Join(home, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "no-credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL_CLOUDWATCH": f.cw.URL,
		// The SDK's standard variable for the service whose ID is
		// "Secrets Manager".
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": f.sm.URL,
		// DynamoDB is never reachable unless a test says so: a DescribeTable
		// the sample did not plan for fails fast instead of going out.
		"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9",
		// Likewise no index lookup unless a test asks for one (the samples'
		// tables have no index): TestIndexes* set auto or on.
		"HOTKEYS_INDEXES": "off",
	}
	for k, v := range env {
		if v == "" {
			delete(vars, k)
		} else {
			vars[k] = v
		}
	}
	f.cmd = exec.Command(bin)
	f.cmd.Dir = filepath.Dir(bin)
	for k, v := range vars {
		f.cmd.Env = append(f.cmd.Env, k+"="+v)
	}
	var err error
	if f.stdout, err = os.CreateTemp(home, "stdout"); err != nil {
		t.Fatal(err)
	}
	if f.stderr, err = os.CreateTemp(home, "stderr"); err != nil {
		t.Fatal(err)
	}
	f.cmd.Stdout, f.cmd.Stderr = f.stdout, f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		f.err = f.cmd.Wait()
		close(f.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-f.exited:
		default:
			f.cmd.Process.Kill()
			<-f.exited
		}
		f.rt.Close()
		f.cw.Close()
		f.sm.Close()
		if strings.Contains(f.readStderr(), "WARNING: DATA RACE") {
			t.Errorf("the race detector found a data race in the function")
		}
		if t.Failed() {
			t.Logf("function stdout:\n%s", tail(f.readStdout(), 6000))
			t.Logf("function stderr:\n%s", tail(f.readStderr(), 3000))
		}
		f.stdout.Close()
		f.stderr.Close()
	})
	return f
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func (f *function) readStdout() string { b, _ := os.ReadFile(f.stdout.Name()); return string(b) }
func (f *function) readStderr() string { b, _ := os.ReadFile(f.stderr.Name()); return string(b) }

// invokeRaw posts one event and waits for the answer, or for the process
// to die.
func (f *function) invokeRaw(payload []byte) ([]byte, *runtimeapi.FunctionError, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	go func() {
		select {
		case <-f.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	resp, fnErr, err := f.rt.Invoke(ctx, payload)
	if err != nil {
		select {
		case <-f.exited:
			return nil, nil, fmt.Errorf("the function exited (%v): %w", f.err, err)
		default:
		}
	}
	return resp, fnErr, err
}

// invoke posts one event and fails the test unless the function answers
// with a valid JSON response.
func (f *function) invoke(t testing.TB, payload []byte) []byte {
	t.Helper()
	resp, fnErr, err := f.invokeRaw(payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	if fnErr != nil {
		t.Fatalf("invoke: the function failed: %s: %s", fnErr.Type, fnErr.Message)
	}
	if !json.Valid(resp) {
		t.Fatalf("invoke: response is not JSON: %q", resp)
	}
	return resp
}

// logLine is one line of the function's stdout, decoded.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

func (l logLine) num(k string) float64 {
	n, ok := l[k].(float64)
	if !ok {
		return -1
	}
	return n
}

// lines decodes the function's stdout, one JSON object a line, and fails
// the test on a line that is not one: CloudWatch Logs Insights and the EMF
// extractor read only JSON lines.
func (f *function) lines(t testing.TB) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(strings.NewReader(f.readStdout()))
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l logLine
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := d.Decode(&l); err != nil || d.More() {
			t.Errorf("stdout line is not one JSON object: %.300s", sc.Text())
			continue
		}
		out = append(out, l)
	}
	return out
}

// findings returns the findings log lines (one per flagged key).
func findings(lines []logLine) []logLine {
	var out []logLine
	for _, l := range lines {
		if l.str("msg") == "hot partition key" {
			out = append(out, l)
		}
	}
	return out
}

// emf returns the Embedded Metric Format lines.
func emfLines(lines []logLine) []logLine {
	var out []logLine
	for _, l := range lines {
		if _, ok := l["_aws"]; ok {
			out = append(out, l)
		}
	}
	return out
}
