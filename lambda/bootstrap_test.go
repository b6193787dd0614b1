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
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesecretsmanager"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
)

// The function under test is the real bootstrap, built as `sam build` builds
// it (lambda.norpc, no cgo) for the host architecture, and run under AWS's
// Lambda Runtime Interface Emulator (internal/testkit/rie), the emulator `sam local
// invoke` runs in its container, here without Docker. CloudWatch is a fake
// that decodes the client's real CBOR requests, Secrets Manager a fake that
// speaks its JSON protocol.

// built holds what the tests build once per run: the bootstrap and the RIE
// (and, in faults_test.go, the bootstrap with injected faults).
var built struct {
	once      sync.Once
	dir       string
	bootstrap string
	rie       string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// goBuild builds the function into out, as `sam build` does but for the
// host, with overlay (go build -overlay) when not empty. Under `go test
// -race` the function runs with the race detector too; its reports are
// failures (see startWith).
func goBuild(out, overlay string) error {
	args := []string{"build", "-tags", "lambda.norpc", "-trimpath", "-o", out}
	env := append(os.Environ(), "CGO_ENABLED=0")
	if raceEnabled {
		args = append(args, "-race")
		env = append(os.Environ(), "CGO_ENABLED=1")
	}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Env = env
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %v: %w\n%s", args, err, msg)
	}
	return nil
}

// bootstrapPath builds the function and the RIE once per test run, side by
// side, and returns the bootstrap's path.
func bootstrapPath(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "hotkeys-bootstrap-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		var rieErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			built.rie, rieErr = rie.Build(dir)
		}()
		built.bootstrap = filepath.Join(dir, "bootstrap")
		built.err = goBuild(built.bootstrap, "")
		<-done
		if built.err == nil {
			built.err = rieErr
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bootstrap
}

// function is one execution environment: the RIE running the bootstrap,
// its CloudWatch and its Secrets Manager.
type function struct {
	em *rie.Emulator
	cw *fakecloudwatch.Server
	sm *fakesecretsmanager.Server
}

// baseEnv is the environment Lambda gives a provided.al2023 function that
// the RIE does not set itself, with every AWS endpoint local: the fakes, and
// for DynamoDB nothing unless a test says so.
func baseEnv(f *function, home string) map[string]string {
	return map[string]string{
		"PATH":                        os.Getenv("PATH"),
		"HOME":                        home,
		"LANG":                        "en_US.UTF-8",
		"TZ":                          ":UTC",
		"LAMBDA_RUNTIME_DIR":          "/var/runtime",
		"_HANDLER":                    "bootstrap",
		"AWS_LAMBDA_FUNCTION_NAME":    "hotkeys-HotKeysFunction-test",
		"AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
		// template.yaml's Timeout and MemorySize. The RIE stops an
		// invocation at the timeout; it only prints the memory size.
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     "30",
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
}

// startFunction starts the bootstrap under the RIE with the environment
// Lambda gives a provided.al2023 function, plus env (HOTKEYS_* and
// overrides; an empty value removes a variable). The cold start happens at
// the first invocation, as in Lambda.
func startFunction(t testing.TB, env map[string]string) *function {
	t.Helper()
	return startWith(t, bootstrapPath(t), env)
}

// startWith is startFunction for the bootstrap at bin.
func startWith(t testing.TB, bin string, env map[string]string) *function {
	t.Helper()
	bootstrapPath(t) // the RIE
	f := &function{cw: fakecloudwatch.New(), sm: newSecretsManager()}
	t.Cleanup(func() {
		f.cw.Close()
		f.sm.Close()
	})
	vars := baseEnv(f, t.TempDir())
	for k, v := range env {
		if v == "" {
			delete(vars, k)
		} else {
			vars[k] = v
		}
	}
	var list []string
	for k, v := range vars {
		list = append(list, k+"="+v)
	}
	em, err := rie.Start(context.Background(), rie.Config{RIE: built.rie, Bootstrap: bin, Env: list})
	if err != nil {
		t.Fatal(err)
	}
	f.em = em
	t.Cleanup(func() {
		out, log := em.Output(), em.Log()
		em.Close()
		if strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("the race detector found a data race in the function")
		}
		if t.Failed() {
			t.Logf("function output:\n%s", tail(out, 6000))
			t.Logf("RIE log:\n%s", tail(log, 3000))
		}
	})
	return f
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// output is everything the function wrote, stdout and stderr as one stream
// (as the RIE and CloudWatch Logs get them), with the RIE's START, END and
// REPORT lines.
func (f *function) output() string { return f.em.Output() }

// invokeRaw posts one event and returns the RIE's answer.
func (f *function) invokeRaw(payload []byte) (rie.Response, error) {
	// Past the function's 30 s timeout: the RIE answers by then.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return f.em.Invoke(ctx, payload)
}

// invoke posts one event and fails the test unless the function answers
// with a valid JSON response.
func (f *function) invoke(t testing.TB, payload []byte) []byte {
	t.Helper()
	resp, err := f.invokeRaw(payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	if err := resp.Err(); err != nil {
		t.Fatalf("invoke: the function failed: %v", err)
	}
	if !json.Valid(resp.Body) {
		t.Fatalf("invoke: response is not JSON: %q", resp.Body)
	}
	return resp.Body
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

// notOurs reports whether a line of the output is one the function does
// not write as JSON: the START, END and REPORT lines of the RIE (as of
// Lambda), and the lines of Go's standard logger, which aws-lambda-go (a
// returned error) and the AWS SDK ("SDK " first: DynamoDB Local's checksum
// warning) write to stderr, which the RIE, like Lambda, puts in the same
// stream.
func notOurs(line string) bool {
	for _, p := range []string{"START RequestId: ", "END RequestId: ", "REPORT RequestId: "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return stdLogLine.MatchString(line)
}

var stdLogLine = regexp.MustCompile(`^(SDK )?[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} `)

// lines decodes the function's output, one JSON object a line, and fails
// the test on a line that is not one: CloudWatch Logs Insights and the EMF
// extractor read only JSON lines. Lines the function does not write itself
// (notOurs) are skipped.
func (f *function) lines(t testing.TB) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(strings.NewReader(f.output()))
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || notOurs(sc.Text()) {
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
