// Command heatmappng is `make heatmap-png`: it takes the screenshot of a
// heatmap page that docs/heatmap.png is, in the browser the tests use, at
// the page's own size (every column, every map), and records in the PNG
// the SHA-256 of the page it shows, so that a test can tell that the
// picture is of the demo's current page. It is a tool of this checkout,
// built from the test support (internal/testkit/headless), like `make
// invoke`.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/headless"
)

// PageHashKey is the PNG text key of the page's SHA-256.
const PageHashKey = "hotkeys-page-sha256"

func main() {
	page := flag.String("page", "", "the heatmap `page` (HTML) to take")
	out := flag.String("out", "", "the PNG `file` to write")
	flag.Parse()
	if err := run(*page, *out); err != nil {
		fmt.Fprintf(os.Stderr, "heatmappng: %v\n", err)
		os.Exit(1)
	}
}

func run(page, out string) error {
	if page == "" || out == "" {
		return fmt.Errorf("give -page PAGE.html and -out FILE.png")
	}
	html, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	w, h, ok := headless.PageSize(html)
	if !ok {
		return fmt.Errorf("%s draws no map", page)
	}
	bin, err := exec.LookPath(headless.Browser)
	if err != nil {
		return fmt.Errorf("%s is not installed (make browser): %w", headless.Browser, err)
	}
	dir, err := os.MkdirTemp("", "heatmappng-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(headless.Args(page, shot, w, h), "--user-data-dir="+filepath.Join(dir, "profile"))...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", bin, err, b)
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(html)
	if png, err = headless.SetText(png, PageHashKey, hex.EncodeToString(sum[:])); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "heatmappng: %s, %d×%d, of %s (sha256 %x)\n", out, w, h, page, sum[:6])
	return os.WriteFile(out, png, 0o644)
}
