package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// demoRuns holds the demo's runs that the tests share, by their arguments.
// The demo is seeded, so a run prints the same every time; under the race
// detector one takes a minute or two, and seven tests read four runs.
var demoRuns sync.Map // string -> *demoRun

// demoRun is what one run of `hotkeys demo` printed and, with --heatmap,
// drew.
type demoRun struct {
	once      sync.Once
	code      int
	out, errs string
	page      []byte
	err       error
}

// demo runs `hotkeys demo args...` once per test binary and returns what it
// printed; with heatmap, it adds --heatmap and returns the page too. A run
// that redacts reads the secret from the environment, so every caller
// asking for it must set the same secret (testSecret).
func demo(t *testing.T, heatmap bool, args ...string) (code int, out, errs string, page []byte) {
	t.Helper()
	key := fmt.Sprint(heatmap, args)
	v, _ := demoRuns.LoadOrStore(key, new(demoRun))
	r := v.(*demoRun)
	r.once.Do(func() {
		argv := append([]string{"demo"}, args...)
		if !heatmap {
			r.code, r.out, r.errs = hotkeys(t, "", argv...)
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
	return r.code, r.out, r.errs, r.page
}
