package forecast

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
)

// TestCoverageAndComparison runs the comparison of docs/forecast.md (200
// synthetic keys of each kind, every contender), holds this package to
// its stated guarantees on it, and holds the figures to
// testdata/comparison.md, which docs/forecast.md quotes whole:
//
//	go test -run TestCoverageAndComparison -v ./history/forecast
//
// prints them. It is pure arithmetic, one goroutine: under the race
// detector it is skipped, as it would find nothing and take a minute.
func TestCoverageAndComparison(t *testing.T) {
	if raceEnabled {
		t.Skip("pure arithmetic in one goroutine; run without -race")
	}
	figs := compare()
	ours := func(name string) tally { return figs[name][0] }
	for _, k := range kinds {
		got := ours(k.name)
		// Every kind's keys with a range are covered at 80 %, and with
		// four weeks of data or more all its keys are.
		cov := float64(got.rangeCovered) / float64(got.ranged)
		if k.name != "15 days" {
			cov = float64(got.covered) / float64(got.forecasts)
		}
		if cov < Coverage {
			t.Errorf("%s: coverage %.3f, under %.2f", k.name, cov, Coverage)
		}
	}
	// One outlier day moves the estimate by at most a third of its range's
	// width, and by 2 days or fewer in nine keys out of ten.
	out := ours("one outlier day")
	if worst, p90 := quantile(out.shares, 1), quantile(out.shifts, 0.9); worst > 1.0/3 || p90 > 2 {
		t.Errorf("one outlier day moves the estimate by up to %.2f of its range, %v days at the 90th percentile", worst, p90)
	}
	// Keys that do not grow: a date for at most 5 % of the flat ones, for
	// no shrinking one.
	for _, k := range steady {
		if d := ours(k.name).dated; d > seeds/20 || (k.name == "shrinking" && d > 0) {
			t.Errorf("%s: %d keys of %d got a date", k.name, d, seeds)
		}
	}
	var b bytes.Buffer
	writeComparison(&b, figs)
	t.Log("\n" + b.String())
	golden.Equal(t, filepath.Join("testdata", "comparison.md"), b.Bytes())
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "forecast.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), b.String()) {
		t.Error("docs/forecast.md does not quote testdata/comparison.md whole: copy it in")
	}
}
