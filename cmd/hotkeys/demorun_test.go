package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// demoRuns holds the demo's runs that the tests share, by their arguments.
// The demo is seeded, so a run prints the same every time; under the race
// detector one takes a minute or two, and seven tests read four runs.
var demoRuns sync.Map // string -> *demoRun

// demoRun is what one run of `hotkeys demo` printed and, with --heatmap,
// drew; both, as a terminal shows them together, in both.
type demoRun struct {
	once            sync.Once
	code            int
	out, errs, both string
	page            []byte
	err             error
}

// demo runs `hotkeys demo args...` once per test binary and returns what it
// printed; with heatmap, it adds --heatmap and returns the page too. A run
// that redacts reads the secret from the environment, so every caller
// asking for it must set the same secret (testSecret).
func demo(t *testing.T, heatmap bool, args ...string) (code int, out, errs string, page []byte) {
	r := demoOf(t, heatmap, args...)
	return r.code, r.out, r.errs, r.page
}

// demoBoth is demo's run without a heatmap, as a terminal shows its
// standard output and error together.
func demoBoth(t *testing.T, args ...string) string { return demoOf(t, false, args...).both }

func demoOf(t *testing.T, heatmap bool, args ...string) *demoRun {
	t.Helper()
	key := fmt.Sprint(heatmap, args)
	v, _ := demoRuns.LoadOrStore(key, new(demoRun))
	r := v.(*demoRun)
	r.once.Do(func() {
		argv := append([]string{"demo"}, args...)
		if !heatmap {
			var out, errs, both bytes.Buffer
			r.code = run(context.Background(), argv, strings.NewReader(""), io.MultiWriter(&out, &both), io.MultiWriter(&errs, &both))
			r.out, r.errs, r.both = out.String(), errs.String(), both.String()
			return
		}
		dir, err := os.MkdirTemp("", "hotkeys-demo-")
		if err != nil {
			r.err = err
			return
		}
		defer os.RemoveAll(dir)
		p := filepath.Join(dir, "demo.html")
		r.code, r.out, r.errs = hotkeys(t, "", append(slices.Clip(argv), "--heatmap", p)...)
		if r.page, err = os.ReadFile(p); err != nil && !os.IsNotExist(err) {
			r.err = err
		}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r
}
