package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesecretsmanager"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
)

// The secrets every test function's Secrets Manager holds. The test secret
// is a canary: it must never come out of any output.
const (
	testSecret      = "canary-secret-9f1c2e7a4b"
	testSecretArn   = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hotkeys-key-redaction-AbCdEf"
	deniedSecretArn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:someone-elses-Zz9Yy8"
	shortSecretArn  = "arn:aws:secretsmanager:us-east-1:123456789012:secret:too-short-Qq1Ww2"
	missingArn      = "arn:aws:secretsmanager:us-east-1:123456789012:secret:deleted-Mm3Nn4"
)

// redactionEnv turns redaction on as the template does: the secret's ARN,
// never the secret.
var redactionEnv = map[string]string{"HOTKEYS_KEY_REDACTION": "hash", "HOTKEYS_KEY_REDACTION_SECRET_ARN": testSecretArn}

func newSecretsManager() *fakesecretsmanager.Server {
	sm := fakesecretsmanager.New()
	sm.PutString(testSecretArn, testSecret)
	sm.PutString(deniedSecretArn, "a secret the role may not read")
	sm.Deny(deniedSecretArn)
	sm.PutString(shortSecretArn, "pepper")
	return sm
}

// TestColdStartWithoutTheSecret: when the secret cannot be read, or is too
// weak to key the hash, the cold start fails with an error that names the
// secret's ARN and what to grant or fix; the function never serves an
// invocation with unkeyed hashes.
func TestColdStartWithoutTheSecret(t *testing.T) {
	for _, tc := range []struct {
		name, arn string
		want      []string
	}{
		{"no permission", deniedSecretArn, []string{deniedSecretArn, "AccessDeniedException", "needs secretsmanager:GetSecretValue", "kms:Decrypt", "does not start"}},
		{"no such secret", missingArn, []string{missingArn, "ResourceNotFoundException", "KeyRedactionSecretArn"}},
		{"short secret", shortSecretArn, []string{shortSecretArn, "6 bytes", "at least 16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFunction(t, map[string]string{"HOTKEYS_KEY_REDACTION": "hash", "HOTKEYS_KEY_REDACTION_SECRET_ARN": tc.arn})
			resp, err := f.invokeRaw([]byte(`{"Records":[]}`))
			if err != nil || !errors.Is(resp.Err(), rie.ErrInitFailed) {
				t.Fatalf("invocation: %d %q, %v, %v; want the cold start to fail", resp.Status, resp.Body, resp.Err(), err)
			}
			out := f.output()
			for _, w := range tc.want {
				if !strings.Contains(out, "hotkeys: ") || !strings.Contains(out, w) {
					t.Errorf("the output does not say %q: %s", w, out)
				}
			}
			if got := f.sm.Requests(); len(got) == 0 || got[0] != tc.arn {
				t.Errorf("Secrets Manager was asked for %v, want %s", got, tc.arn)
			}
			if strings.Contains(out, "pepper") || strings.Contains(out, "a secret the role") {
				t.Errorf("the output carries a secret's value: %s", out)
			}
		})
	}
}

var cli struct {
	once sync.Once
	path string
	err  error
}

// hotkeysPath builds the CLI once, next to the bootstrap.
func hotkeysPath(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(bootstrapPath(t))
	cli.once.Do(func() {
		cli.path = filepath.Join(dir, "hotkeys")
		if out, err := exec.Command("go", "build", "-trimpath", "-o", cli.path, "../cmd/hotkeys").CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("go build ../cmd/hotkeys: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.path
}

// runCLI runs the built hotkeys with the given secret in its environment
// (none when ""), and returns its stdout and stderr.
func runCLI(t testing.TB, secret string, stdin []byte, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(hotkeysPath(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	if secret != "" {
		cmd.Env = append(cmd.Env, "HOTKEYS_KEY_REDACTION_SECRET="+secret)
	}
	var out, errb strings.Builder
	cmd.Stdin = strings.NewReader(string(stdin))
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestRedactedDimensionIsHashKey: the function reads the secret once per
// container, and the PartitionKey dimension it publishes for the hot key is
// what `hotkeys hash-key` prints for it with the same secret.
func TestRedactedDimensionIsHashKey(t *testing.T) {
	s := sampleByFile("hot-key-ops-log.json")
	runSample(t, s, redactionEnv, func(t *testing.T, f *function, w windowCheck) {
		want, errs, err := runCLI(t, testSecret, nil, "hash-key", "OPS_LOG")
		if err != nil {
			t.Fatalf("hotkeys hash-key: %v: %s", err, errs)
		}
		want = strings.TrimSpace(want)
		var got []string
		for _, d := range f.cw.Data() {
			if d.MetricName == "KeyPeakWCUPerSecond" {
				got = append(got, d.Dimension("PartitionKey"))
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("published PartitionKey dimensions %v, want [%s] (hotkeys hash-key OPS_LOG)", got, want)
		}
		// A second invocation in the same container reads nothing more.
		tumblingResponse(t, f.invoke(t, shiftEvent(readSample(t, s.File), recentShift())))
		if got := f.sm.Requests(); len(got) != 1 || got[0] != testSecretArn {
			t.Errorf("Secrets Manager requests %v, want one for %s at cold start", got, testSecretArn)
		}
	})
}
