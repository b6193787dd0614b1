package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
	"github.com/hotkeys-dev/hotkeys/redact"
)

var built struct {
	once           sync.Once
	dir            string
	bootstrap, rie string
	err            error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// builds makes what `make invoke` makes: the bootstrap for this machine,
// as build-HotKeysFunction builds it, and the RIE.
func builds(t *testing.T) (bootstrap, emulator string) {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "hotkeys-invoke-test-"); built.err != nil {
			return
		}
		built.bootstrap = filepath.Join(built.dir, "bootstrap")
		cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", built.bootstrap, "../../../lambda")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ../../../lambda: %w\n%s", err, out)
			return
		}
		built.rie, built.err = rie.Build(built.dir)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bootstrap, built.rie
}

// result is what one run of the command printed.
type result struct {
	code           int
	stdout, stderr string
}

// invoke runs the command as `make invoke` does, with make's
// PartitionKeyName=PK before params, and env as its environment.
func invoke(t *testing.T, env map[string]string, params string, args ...string) result {
	t.Helper()
	bootstrap, emulator := builds(t)
	all := append([]string{"-template", "../../../template.yaml", "-bootstrap", bootstrap, "-rie", emulator,
		"-parameter-overrides", strings.TrimSpace("PartitionKeyName=PK " + params)}, args...)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), all, func(k string) string { return env[k] }, &stdout, &stderr)
	r := result{code, stdout.String(), stderr.String()}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("invoke %q, exit %d\nstdout:\n%s\nstderr:\n%s", all, r.code, r.stdout, r.stderr)
		}
	})
	return r
}

// finding is one flagged key, as the findings log line says it.
type finding struct{ Key, Severity, Pattern string }

// flagged returns the findings log lines and the PartitionKey of each key
// EMF line, from the function's output on stderr.
func (r result) flagged(t *testing.T) (found []finding, emfKeys []string) {
	t.Helper()
	for _, line := range strings.Split(r.stderr, "\n") {
		var l struct {
			Msg          string `json:"msg"`
			Key          string `json:"key"`
			Severity     string `json:"severity"`
			Pattern      string `json:"pattern"`
			AWS          any    `json:"_aws"`
			PartitionKey string `json:"PartitionKey"`
		}
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if l.Msg == "hot partition key" {
			found = append(found, finding{l.Key, l.Severity, l.Pattern})
		}
		if l.AWS != nil && l.PartitionKey != "" {
			emfKeys = append(emfKeys, l.PartitionKey)
		}
	}
	return found, emfKeys
}

// published returns the lines that say which windows were published.
func (r result) published() []string {
	var out []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(line, "invoke: published ") {
			out = append(out, line)
		}
	}
	return out
}

// eventCase is one command of docs/events.md and what it must give.
type eventCase struct {
	file    string
	params  string    // PARAMS
	window  string    // the published window: records, WCU, malformed, TTL deletes, hot keys
	flagged []finding // in the order logged
	open    bool      // a tumbling batch before the window's last: the state must be carried
	fails   []string  // the function fails, and stderr says these
	// malformed: every record was malformed (exit 4), and stderr's lines
	// after the bootstrap's peak memory are testdata/<malformed>.
	malformed string
}

func (c eventCase) command() string {
	s := "make invoke EVENT=events/" + c.file
	if c.params != "" {
		s += ` PARAMS="` + c.params + `"`
	}
	return s
}

var eventCases = []eventCase{
	{file: "hot-key-ops-log.json", window: "340 records, 350 WCU, malformed 0, TTL deletes 0, hot keys 1", flagged: []finding{{"OPS_LOG", "warning", "single_key"}}},
	{file: "low-cardinality-status.json", window: "270 records, 270 WCU, malformed 0, TTL deletes 0, hot keys 1", flagged: []finding{{"STATUS#ACTIVE", "warning", "low_cardinality"}}},
	{file: "time-bucket.json", window: "300 records, 300 WCU, malformed 0, TTL deletes 0, hot keys 1", flagged: []finding{{"DATE#2026-11-22", "warning", "time_bucket"}}},
	{file: "uneven-shards.json", window: "335 records, 335 WCU, malformed 0, TTL deletes 0, hot keys 2",
		flagged: []finding{{"ORDERS#<shard>", "warning", "sharded_uneven"}, {"ORDERS#SHARD_0", "warning", "sharded_uneven"}}},
	{file: "ttl-delete-storm.json", window: "270 records, 20 WCU, malformed 0, TTL deletes 250, hot keys 0"},
	{file: "tumbling-window-1.json", open: true},
	{file: "tumbling-window-2.json", open: true},
	{file: "tumbling-window-final.json", window: "60 records, 60 WCU, malformed 0, TTL deletes 0, hot keys 0"},
	{file: "keys-only.json", window: "180 records, 180 WCU, malformed 0, TTL deletes 0, hot keys 1", flagged: []finding{{"OPS_LOG", "warning", "single_key"}}},
	{file: "malformed-record.json", window: "24 records, 28 WCU, malformed 1, TTL deletes 0, hot keys 0"},
	{file: "plain-batch.json", window: "100 records, 160 WCU, malformed 0, TTL deletes 0, hot keys 0"},
	{file: "global-counter.json", params: "PartitionKeyName=", window: "200 records, 200 WCU, malformed 0, TTL deletes 0, hot keys 1",
		flagged: []finding{{"GLOBAL#page-views", "warning", "single_item"}}},
	{file: "global-counter.json", malformed: "all-malformed.golden"},
	{file: "describe-table-lookup.json", params: "PartitionKeyName=customerId", window: "200 records, 200 WCU, malformed 0, TTL deletes 0, hot keys 1",
		flagged: []finding{{"CUSTOMER#0042", "warning", "single_key"}}},
	{file: "describe-table-lookup.json", params: "PartitionKeyName=", fails: []string{
		"AccessDeniedException: make invoke runs without an AWS account: DynamoDB_20120810.DescribeTable was not sent to AWS",
		"invoke: HOTKEYS_PARTITION_KEY is the template's PartitionKeyName"}},
}

// TestEveryEventFile runs every file of events/ through the command, as
// docs/events.md gives each one's command, and checks the outcome it
// documents: the response, the keys flagged in the findings log and in the
// EMF lines, or the failure.
func TestEveryEventFile(t *testing.T) {
	files, err := filepath.Glob("../../../events/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.ContainsFunc(eventCases, func(c eventCase) bool { return c.file == filepath.Base(f) }) {
			t.Errorf("events/%s has no case here, nor a command in docs/events.md", filepath.Base(f))
		}
	}
	docs, err := os.ReadFile("../../../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range eventCases {
		t.Run(c.command(), func(t *testing.T) {
			if !bytes.Contains(docs, []byte(c.command())) {
				t.Errorf("docs/events.md does not give the command %s", c.command())
			}
			r := invoke(t, nil, c.params, "-event", "../../../events/"+c.file)
			if c.fails != nil {
				if r.code != exitFailed {
					t.Errorf("exit %d, want %d", r.code, exitFailed)
				}
				for _, w := range c.fails {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("stderr does not say %q", w)
					}
				}
				return
			}
			if c.malformed != "" {
				if r.code != exitAllMalformed {
					t.Errorf("exit %d, want %d", r.code, exitAllMalformed)
				}
				_, tail, _ := strings.Cut(r.stderr, "not a measurement\n")
				golden.Equal(t, filepath.Join("testdata", c.malformed), fmt.Appendf(nil, "exit %d\n%s", r.code, tail))
			} else if r.code != exitOK {
				t.Fatalf("exit %d", r.code)
			}
			checkResponse(t, r.stdout, c.open)
			if got := r.published(); (c.window == "") != (len(got) == 0) || (c.window != "" && (len(got) != 1 || !strings.HasSuffix(got[0], ": "+c.window))) {
				t.Errorf("published %q, want one window with %q", got, c.window)
			}
			found, emfKeys := r.flagged(t)
			if diff := cmp.Diff(c.flagged, found); diff != "" {
				t.Errorf("flagged (-want +got):\n%s", diff)
			}
			var want []string
			for _, f := range c.flagged {
				want = append(want, f.Key)
			}
			if !cmp.Equal(want, emfKeys) {
				t.Errorf("EMF key lines for %q, want %q", emfKeys, want)
			}
		})
	}
}

// checkResponse: the response is the function's, and a batch before a
// window's last carries the window in its state.
func checkResponse(t *testing.T, stdout string, open bool) {
	t.Helper()
	var resp struct {
		State    map[string]string `json:"state"`
		Failures *[]any            `json:"batchItemFailures"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil || resp.Failures == nil || len(*resp.Failures) != 0 {
		t.Fatalf("stdout is not a response without batch item failures: %q (%v)", stdout, err)
	}
	if open != (len(resp.State) > 0) {
		t.Errorf("state of %d entries; want it carried: %v", len(resp.State), open)
	}
}

// TestWindow is `make invoke-window`: the tumbling samples in order, each
// response's state carried into the next batch with -out and -state, ends
// with TENANT#acme flagged.
func TestWindow(t *testing.T) {
	dir := t.TempDir()
	var last result
	for i, f := range []string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"} {
		args := []string{"-event", "../../../events/" + f, "-out", filepath.Join(dir, fmt.Sprint(i+1))}
		if i > 0 {
			args = append(args, "-state", filepath.Join(dir, fmt.Sprint(i)))
		}
		last = invoke(t, nil, "", args...)
		if last.code != exitOK {
			t.Fatalf("%s: exit %d", f, last.code)
		}
		checkResponse(t, last.stdout, i < 2)
	}
	found, _ := last.flagged(t)
	if diff := cmp.Diff([]finding{{"TENANT#acme", "warning", "single_key"}}, found); diff != "" {
		t.Errorf("flagged after the final batch (-want +got):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSpace(last.stderr), "\n")
	if end := lines[len(lines)-1]; !strings.HasPrefix(end, "invoke: flagged TENANT#acme in Orders: warning, single_key, 180 WCU, 60% of the window's WCU, peak 120 WCU/s") {
		t.Errorf("the last line is %q; want it to say TENANT#acme is flagged", end)
	}
}

// TestUsageErrors: what cannot be invoked as asked is refused before the
// function runs, with a message that says what to do.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`"`+strings.Repeat("x", rie.MaxPayloadBytes-1)+`"`), 0o644); err != nil {
		t.Fatal(err)
	}
	notResponse := filepath.Join(dir, "not-a-response.json")
	if err := os.WriteFile(notResponse, []byte(`{"batchItemFailures":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ops := "../../../events/hot-key-ops-log.json"
	for _, tc := range []struct {
		name   string
		params string
		args   []string
		want   string
	}{
		{"no event", "", nil, "no event: give one with EVENT=events/<file>.json"},
		{"an event over 6,000,000 bytes", "", []string{"-event", big}, "is 6000001 bytes, over 6000000: Lambda refuses an invocation over 6 MB"},
		{"an unknown parameter", "Nope=1", []string{"-event", ops}, "PARAMS: Nope is not a parameter of ../../../template.yaml; its parameters are AlarmEmail, BatchSize,"},
		{"a token that is no Name=Value", "PartitionKeyName", []string{"-event", ops}, `PARAMS: "PartitionKeyName": want Name=Value`},
		// Refused by MaxValue or by AllowedPattern, whichever the template
		// declares; the message ends with the parameter's description.
		{"a value out of range", "WindowSeconds=2000", []string{"-event", ops}, `WindowSeconds="2000": `},
		{"a value out of range, described", "WindowSeconds=2000", []string{"-event", ops}, `(WindowSeconds: Tumbling-window length in seconds`},
		{"a value not allowed", "MetricsMode=loud", []string{"-event", ops}, `MetricsMode="loud": want one of api, emf, both, off`},
		{"a value against the pattern", "AlarmEmail=nobody", []string{"-event", ops}, `AlarmEmail="nobody": must be empty or an e-mail address`},
		{"metrics through the API", "MetricsMode=api", []string{"-event", ops}, "MetricsMode=api would call CloudWatch's PutMetricData, which make invoke never calls"},
		{"state into a plain batch", "", []string{"-event", "../../../events/plain-batch.json", "-state", ops}, `STATE: the event has no "window"`},
		{"state from what is no response", "", []string{"-event", ops, "-state", notResponse}, "not a tumbling-window response"},
		{"an argument", "", []string{"-event", ops, "extra"}, `unexpected arguments ["extra"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"-template", "../../../template.yaml", "-parameter-overrides", tc.params}, tc.args...)
			code := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
				t.Errorf("exit %d (want %d), stdout %q, stderr:\n%s\nwant it to say %q", code, exitUsage, stdout.String(), stderr.String(), tc.want)
			}
		})
	}
}

// TestHelp: -h teaches: what it does, with which services, examples.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, os.Getenv, &stdout, &stderr); code != exitOK {
		t.Errorf("exit %d", code)
	}
	for _, w := range []string{"usage: make invoke EVENT=FILE", "make invoke-window", "CloudWatch", "DescribeTable", "Secrets Manager", "History table", "-parameter-overrides", "-dynamodb-endpoint"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("-h does not mention %q", w)
		}
	}
}

// TestNothingBuilt: without the bootstrap, the command says how to get it.
func TestNothingBuilt(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-template", "../../../template.yaml", "-event", "../../../events/hot-key-ops-log.json",
		"-parameter-overrides", "PartitionKeyName=PK", "-bootstrap", filepath.Join(t.TempDir(), "bootstrap")}, os.Getenv, &stdout, &stderr)
	if code != exitInternal || !strings.Contains(stderr.String(), "make invoke builds it") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// TestRedactionLocally: KeyRedaction=hash works without an account, with
// the secret of HOTKEYS_KEY_REDACTION_SECRET: the key is flagged under the
// stand-in `hotkeys hash-key` prints, and is nowhere in the output. A
// secret too short to key the hash fails the cold start.
func TestRedactionLocally(t *testing.T) {
	const secret = "a-local-secret-of-enough-bytes"
	r := invoke(t, map[string]string{"HOTKEYS_KEY_REDACTION_SECRET": secret}, "KeyRedaction=hash", "-event", "../../../events/hot-key-ops-log.json")
	h, err := redact.New([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	found, emfKeys := r.flagged(t)
	want := h.Key('S', []byte("OPS_LOG"))
	if r.code != exitOK || !cmp.Equal([]finding{{want, "warning", "single_key"}}, found) || !cmp.Equal([]string{want}, emfKeys) {
		t.Errorf("exit %d, flagged %v, EMF keys %v; want %s", r.code, found, emfKeys, want)
	}
	if strings.Contains(r.stdout+r.stderr, "OPS_LOG") || strings.Contains(r.stdout+r.stderr, secret) {
		t.Error("the output holds the key or the secret")
	}

	r = invoke(t, map[string]string{"HOTKEYS_KEY_REDACTION_SECRET": "short"}, "KeyRedaction=hash", "-event", "../../../events/hot-key-ops-log.json")
	if r.code != exitFailed || !strings.Contains(r.stderr, "its cold start failed") || !strings.Contains(r.stderr, "at least 16") {
		t.Errorf("a short secret: exit %d; want a failed cold start that says the secret is too short", r.code)
	}
}

// TestHistoryWithoutAnAccount: History=on without DynamoDB: the write is
// denied, the function logs it and counts it, and the batch succeeds with
// its window published.
func TestHistoryWithoutAnAccount(t *testing.T) {
	r := invoke(t, nil, "History=on", "-event", "../../../events/hot-key-ops-log.json")
	found, _ := r.flagged(t)
	if r.code != exitOK || len(found) != 1 {
		t.Fatalf("exit %d, %d findings", r.code, len(found))
	}
	for _, w := range []string{`"HistoryWriteErrors":1`, `"level":"ERROR","msg":"history: the window's summary could not be stored`, "AccessDeniedException: make invoke runs without an AWS account: DynamoDB_20120810.PutItem"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q", w)
		}
	}
}

// TestDescribeTableWithDynamoDBLocal: with DYNAMODB pointing at DynamoDB
// Local, which holds the table, the function looks the partition key up
// there, as it does in AWS.
func TestDescribeTableWithDynamoDBLocal(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "CustomerOrders", HashKey: "customerId", RangeKey: "createdAt"})
	raw, err := os.ReadFile("../../../events/describe-table-lookup.json")
	if err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, bytes.ReplaceAll(raw, []byte("table/CustomerOrders/"), []byte("table/"+table+"/")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke(t, nil, "PartitionKeyName=", "-event", event, "-dynamodb-endpoint", dynamodblocal.Endpoint(t))
	found, _ := r.flagged(t)
	if r.code != exitOK || !cmp.Equal([]finding{{"CUSTOMER#0042", "warning", "single_key"}}, found) {
		t.Errorf("exit %d, flagged %v", r.code, found)
	}
	if !strings.Contains(r.stderr, `"msg":"partition key looked up","table":"`+table+`","partition_key":"customerId"`) {
		t.Error("no log line says DescribeTable gave customerId")
	}
	if strings.Contains(r.stderr, "IndexAnalysis=off") {
		t.Error("with DYNAMODB, IndexAnalysis should keep the template's default")
	}
}
