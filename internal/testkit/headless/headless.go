// Package headless is test support for the tests that check pictures in a
// real browser: Debian's chromium-headless-shell, which `make test`
// installs when it is missing.
//
// Tests call Screenshot (or Binary) first: without the browser they skip on
// a developer's machine and fail in CI, so that CI can never go green by
// skipping them (the rule of internal/testkit/dynamodblocal).
package headless

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Browser is the command that renders pages.
const Browser = "chromium-headless-shell"

// Binary returns the browser's path. When it is not installed, the test is
// skipped, unless the CI environment variable is set: then it fails.
func Binary(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath(Browser)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed, and CI is set: run `make test`, which installs it (apt-get install -y %s)", Browser, Browser)
	}
	t.Skipf("%s is not installed: `apt-get install -y %s`, or run `make test`", Browser, Browser)
	return ""
}

// Args are the browser's arguments for a screenshot of page (a file path)
// at width×height CSS pixels into out: the same as `make heatmap-png`'s
// (docs/heatmap.md), with
// a profile directory of the test's own so that parallel runs never share
// one.
func Args(page, out string, width, height int) []string {
	abs, _ := filepath.Abs(page)
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot=" + out, "file://" + abs}
}

// Screenshot renders the page at width×height in the browser and returns
// the decoded PNG. The browser's output is shown only when it fails.
func Screenshot(t testing.TB, page string, width, height int) image.Image {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(Args(page, out, width, height), "--user-data-dir="+filepath.Join(dir, "profile"))
	cmd := exec.CommandContext(ctx, bin, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, log.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("%s wrote no screenshot: %v\n%s", Browser, err, log.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot is %v, want %dx%d (a device scale factor other than 1?)", b, width, height)
	}
	return img
}
