package report_test

import (
	"testing"

	"github.com/hotkeys-dev/hotkeys/report"
)

// TestSeverityWorse: Worse keeps the higher-ranked severity, whichever
// side it is on, over every pair.
func TestSeverityWorse(t *testing.T) {
	all := []report.Severity{report.None, report.Warning, report.Critical}
	for i, a := range all {
		for j, b := range all {
			want := all[max(i, j)]
			if got := a.Worse(b); got != want {
				t.Errorf("%q.Worse(%q) = %q, want %q", a, b, got, want)
			}
		}
	}
}
