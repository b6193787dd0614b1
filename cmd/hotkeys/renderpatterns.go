package main

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/hotkeys-dev/hotkeys/report"
)

// windowPatterns is how many healthy patterns a window's table lists
// under its hazardous ones; `hotkeys audit` lists them all.
const windowPatterns = 5

// streamPatterns writes a window's key patterns: the hazardous ones, then
// the heaviest healthy ones up to healthy (-1: all), each hazard's fix
// below.
func streamPatterns(b *strings.Builder, r *report.Report, cut *keyNotes, healthy int) {
	if len(r.Patterns) == 0 {
		return
	}
	var shown []*report.KeyPattern
	for i := range r.Patterns {
		if r.Patterns[i].Hazard() {
			shown = append(shown, &r.Patterns[i])
		}
	}
	hazards := len(shown)
	for i := range r.Patterns {
		if p := &r.Patterns[i]; !p.Hazard() && (healthy < 0 || len(shown)-hazards < healthy) {
			shown = append(shown, p)
		}
	}
	fmt.Fprintf(b, "\nKEY PATTERNS (%d at risk of %d)\n", hazards, len(r.Patterns))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PATTERN\tVERDICT\tKEYS\tRECORDS\tWCU\tSHARE\tTOP KEY\tCEILING WCU/s\t")
	for _, p := range shown {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%5.1f%%\t%5.1f%%\t%s\t\n", cut.cell(p.Pattern, keyCellWidth), p.Verdict, cardinality(p),
			count(p.Records), count(p.WCU), p.Share*100, p.TopKeyShare*100, ceilingCell(p.CeilingWCUPerSecond))
	}
	tw.Flush()
	if more := len(r.Patterns) - len(shown); more > 0 {
		fmt.Fprintf(b, "  … %d more healthy pattern(s) (hotkeys audit lists them all)\n", more)
	}
	if o := r.PatternsOther; o != nil {
		fmt.Fprintf(b, "  other patterns (past the table's bound): records %s, WCU %s\n", count(o.Records), count(o.WCU))
	}
	for _, p := range shown[:hazards] {
		fmt.Fprintf(b, "  ▸ %s: %s\n", cut.cell(p.Pattern, keyCellWidth), p.Diagnosis)
	}
}

// cardinality writes a pattern's distinct keys: exact, or ≈ the estimate
// ± its standard error.
func cardinality(p *report.KeyPattern) string {
	if p.DistinctKeysExact {
		return count(p.DistinctKeys)
	}
	return fmt.Sprintf("≈%s ±%.1f%%", count(p.DistinctKeys), p.DistinctKeysError*100)
}

func ceilingCell(c float64) string {
	if math.IsInf(c, 1) || c > 1e15 {
		return "∞"
	}
	return count(uint64(c + 0.5))
}
