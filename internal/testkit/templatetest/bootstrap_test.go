package templatetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// The function's own configuration reader (lambda/main.go) decides which
// parameter values a deployment can start with. It lives in package main,
// so the tests run the built function rather than a copy of its parser: a
// bootstrap built for this machine, started with a deployment's
// environment and no Lambda Runtime API, either stops on a configuration
// error ("hotkeys: HOTKEYS_TOP=...") or gets past its whole configuration
// and stops at lambda.Start, which finds no runtime to poll.

var bootstrapDir string // made by TestMain, removed after the tests

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hotkeys-templatetest-")
	if err != nil {
		panic(err)
	}
	bootstrapDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// bootstrap builds the function for this machine once per test binary, as
// the Makefile builds it (static, -tags lambda.norpc), and returns its path.
// The flags are those of the Lambda's own tests (lambda/bootstrap_test.go),
// so that the two builds share Go's build cache.
var bootstrap = sync.OnceValues(func() (string, error) {
	path := filepath.Join(bootstrapDir, "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", path, ".")
	cmd.Dir = filepath.Join(repoRoot, "lambda")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./lambda: %w\n%s", err, out)
	}
	return path, nil
})

// Outcomes of starting the function with a configuration.
const (
	// lambdaStartMessage is what aws-lambda-go's lambda.Start prints when it
	// finds no runtime API: the configuration was read and accepted.
	lambdaStartMessage = "expected AWS Lambda environment variables"
	// configErrorPrefix begins the line the function prints to stderr when
	// its configuration is refused (lambda/main.go, main).
	configErrorPrefix = "hotkeys: "
)

// deployedValues are what CloudFormation puts, in the function's
// environment, in place of a reference to a resource of the test stack.
var deployedValues = map[string]string{
	cfn.Ref("AlarmTopic"): alarmTopicArn,
}

// functionStarts reports whether the built function accepts env as its
// configuration, and when it does not, its error line. Any other outcome is
// an error, so that a changed message cannot pass for either. It may run
// on any goroutine.
func functionStarts(env map[string]string) (bool, string, error) {
	bin, err := bootstrap()
	if err != nil {
		return false, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	// No credentials, no shared config, no instance metadata: nothing here
	// reaches AWS, and a developer's settings cannot change the outcome.
	cmd.Env = []string{
		"AWS_REGION=eu-west-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"HOME=" + bootstrapDir,
	}
	for k, v := range env {
		if d, ok := deployedValues[v]; ok {
			v = d
		} else if strings.HasPrefix(v, "ref(") || strings.HasPrefix(v, "getatt(") {
			return false, "", fmt.Errorf("%s=%s: give deployedValues what a deployment puts there", k, v)
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	out := stderr.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, configErrorPrefix) {
			return false, line, nil
		}
	}
	if err != nil && strings.Contains(out, lambdaStartMessage) {
		return true, "", nil
	}
	return false, "", fmt.Errorf("the function neither refused its configuration nor reached lambda.Start (%v): %s", err, out)
}
