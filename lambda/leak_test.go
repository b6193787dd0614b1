package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// An output is one place hotkeys writes what it found. TestNoRawKeyOrSecretInAnyOutput
// runs every producer below over the same samples, with and without redaction,
// and checks every output: ADD NEW OUTPUTS (stored history, pictures, …) HERE, as
// a producer or as one more output of an existing producer, and they are
// checked like the rest.
type output struct {
	name string
	// showsKeys: without redaction the output names keys, so the check that
	// it no longer does with redaction is not vacuous; with redaction it
	// must show their stand-ins.
	showsKeys bool
	text      string
}

// producer runs one part of hotkeys over a sample, with the key-redaction
// secret when redacted is true, and returns what each of its outputs got.
// A producer that makes its own workload (ownKeys not nil) runs once, with
// no sample, and ownKeys are the keys it writes.
type producer struct {
	name    string
	run     func(t *testing.T, s *sample, redacted bool) []output
	ownKeys []string
}

var producers = []producer{
	{"the Lambda function (HOTKEYS_METRICS=both)", lambdaOutputs, nil},
	{"hotkeys replay --format table", replayOutputs("table"), nil},
	{"hotkeys replay --format json", replayOutputs("json"), nil},
	{"hotkeys client-demo (the client-side detector, against DynamoDB Local)", clientDemoOutputs,
		[]string{"PROFILE#celebrity", "COUNTER#page-views", "USER#"}},
}

// clientDemoOutputs runs the built CLI's client-demo, which reports what
// an instrumented DynamoDB client saw, against DynamoDB Local.
func clientDemoOutputs(t *testing.T, _ *sample, redacted bool) []output {
	args := []string{"client-demo", "--endpoint", dynamodblocal.Endpoint(t), "--calls", "400", "--format", "json"}
	secret := ""
	if redacted {
		args = append(args, "--key-redaction", "hash")
		secret = testSecret
	}
	stdout, stderr, err := runCLI(t, secret, nil, args...)
	if err != nil || stdout == "" {
		t.Fatalf("hotkeys %v: %v, no report; stderr: %s", args, err, stderr)
	}
	return []output{
		{"report (diagnoses included)", true, stdout},
		{"stderr", false, stderr},
	}
}

// lambdaOutputs runs the bootstrap with metrics both as EMF and through
// PutMetricData, so that every channel of the function is used at once.
func lambdaOutputs(t *testing.T, s *sample, redacted bool) []output {
	env := map[string]string{"HOTKEYS_METRICS": "both"}
	for k, v := range s.Env {
		env[k] = v
	}
	if redacted {
		for k, v := range redactionEnv {
			env[k] = v
		}
	}
	f := startFunction(t, env)
	f.invoke(t, shiftEvent(readSample(t, s.File), recentShift()))
	var found, emf, other []string
	for _, l := range f.lines(t) {
		b, _ := json.Marshal(l)
		switch {
		case l.str("msg") == "hot partition key":
			found = append(found, string(b))
		case l["_aws"] != nil:
			emf = append(emf, string(b))
		default:
			other = append(other, string(b))
		}
	}
	if s.Want.Malformed > 0 && !strings.Contains(strings.Join(other, "\n"), "malformed record skipped") {
		t.Errorf("%s: no malformed-record warning logged, so that output went unchecked", s.File)
	}
	var sent []string
	for _, r := range f.cw.Requests() {
		sent = append(sent, fmt.Sprintf("%+v", r))
	}
	return []output{
		{"findings log (diagnoses included)", true, strings.Join(found, "\n")},
		{"EMF log lines", true, strings.Join(emf, "\n")},
		{"other log lines (malformed records, warnings)", false, strings.Join(other, "\n")},
		{"the whole output, stderr included (one stream under the RIE, as in CloudWatch Logs)", false, f.output()},
		{"PutMetricData requests, dimensions included", true, strings.Join(sent, "\n")},
	}
}

// replayOutputs runs the built CLI over the sample file.
func replayOutputs(format string) func(*testing.T, *sample, bool) []output {
	return func(t *testing.T, s *sample, redacted bool) []output {
		args := []string{"replay", "--format", format, "--partition-key", s.PKName}
		secret := ""
		if redacted {
			args = append(args, "--key-redaction", "hash")
			secret = testSecret
		}
		path, err := filepath.Abs(filepath.Join("..", "events", s.File))
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(t.TempDir(), "heatmap.html")
		args = append(args, "--heatmap", page)
		stdout, stderr, _ := runCLI(t, secret, nil, append(args, path)...) // exit 1 for malformed records
		if stdout == "" {
			t.Fatalf("hotkeys %v printed no report; stderr: %s", args, stderr)
		}
		if s.Want.Malformed > 0 && !strings.Contains(stderr, "skipped malformed record") {
			t.Errorf("%s: no malformed-record note on stderr, so that output went unchecked: %q", s.File, stderr)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatalf("hotkeys %v wrote no heatmap: %v", args, err)
		}
		return []output{
			{"report (diagnoses included)", true, stdout},
			{"stderr (malformed-record notes)", false, stderr},
			{"heatmap page (--heatmap)", true, string(html)},
		}
	}
}

// TestNoRawKeyOrSecretInAnyOutput: with redaction on, no output carries a
// partition key of the input, the base of a sharded key, or the secret;
// the outputs that name keys show their stand-ins, the ones `hotkeys
// hash-key` prints. The samples cover a hot key, a sharded key whose
// diagnosis names its base, and a malformed record.
func TestNoRawKeyOrSecretInAnyOutput(t *testing.T) {
	h, err := redact.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range producers {
		t.Run(p.name, func(t *testing.T) {
			// Per output, over all samples: did it name a key without
			// redaction, and a stand-in with it? (Not every sample flags a
			// key: the malformed one only counts.)
			showedKey, showedStandIn := map[string]bool{}, map[string]bool{}
			keysShown := map[string]bool{}
			inputs := []string{"hot-key-ops-log.json", "uneven-shards.json", "malformed-record.json"}
			if p.ownKeys != nil {
				inputs = []string{"its own workload"}
			}
			for _, file := range inputs {
				var s *sample
				keys := p.ownKeys
				if p.ownKeys == nil {
					s = sampleByFile(file)
					tr, err := analyse(s.PKName, readSample(t, s.File))
					if err != nil {
						t.Fatal(err)
					}
					keys = tr.keysOf()
					if file == "uneven-shards.json" {
						keys = append(keys, "ORDERS") // BASE of ORDERS#<shard>
					}
				}
				plain, redacted := p.run(t, s, false), p.run(t, s, true)
				if len(plain) != len(redacted) {
					t.Fatalf("%s: %d outputs without redaction, %d with", file, len(plain), len(redacted))
				}
				for i, out := range redacted {
					keysShown[out.name] = keysShown[out.name] || out.showsKeys
					for _, k := range keys {
						if strings.Contains(out.text, k) {
							t.Errorf("%s: %s carries the raw key %q", file, out.name, k)
						}
					}
					if strings.Contains(out.text, testSecret) {
						t.Errorf("%s: %s carries the secret", file, out.name)
					}
					if slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(plain[i].text, k) }) {
						showedKey[out.name] = true
					}
					if slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(out.text, h.Key('S', []byte(k))) }) {
						showedStandIn[out.name] = true
					}
				}
			}
			for name, shows := range keysShown {
				if !shows {
					continue
				}
				if !showedKey[name] {
					t.Errorf("%s named no key even without redaction: its check proves nothing", name)
				}
				if !showedStandIn[name] {
					t.Errorf("%s showed no key's stand-in under redaction", name)
				}
			}
		})
	}
}

// TestWindowStateIsTheException pins what docs/security.md says of the one
// place raw keys go under redaction: the tumbling-window state the function
// hands back to Lambda while a window is open holds them as they are (the
// detector must merge and name keys across a window's batches), so this is
// deliberately not one of the outputs above.
func TestWindowStateIsTheException(t *testing.T) {
	s := sampleByFile("tumbling-window-1.json")
	raw := readSample(t, s.File)
	tr, err := analyse(s.PKName, raw)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = v
	}
	for k, v := range redactionEnv {
		env[k] = v
	}
	f := startFunction(t, env)
	var resp struct {
		State map[string]string `json:"state"`
	}
	if err := json.Unmarshal(f.invoke(t, shiftEvent(raw, recentShift())), &resp); err != nil {
		t.Fatal(err)
	}
	state, err := base64.StdEncoding.DecodeString(resp.State["hotkeys.window"])
	if err != nil || len(state) == 0 {
		t.Fatalf("no window state in the response: %v", err)
	}
	found := 0
	for _, k := range tr.keysOf() {
		if bytes.Contains(state, []byte(k)) {
			found++
		}
	}
	if found == 0 {
		t.Errorf("the window state holds none of the %d keys as they are: docs/security.md says it does", len(tr.keysOf()))
	}
	if bytes.Contains(state, []byte(testSecret)) {
		t.Error("the window state holds the secret")
	}
}
