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
func streamPatterns(b *strings.Builder, r *report.Report, cut *keyNotes, healthy, width int) {
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
	var rows strings.Builder
	tw := tabwriter.NewWriter(&rows, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PATTERN\tVERDICT\tKEYS\tWCU\tSHARE\tTOP KEY\tCEILING WCU/s")
	for _, p := range shown {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%5.1f%%\t%5.1f%%\t%s\n", cut.cell(p.Pattern, patternCellWidth), p.Verdict, cardinality(p),
			count(p.WCU), p.Share*100, p.TopKeyShare*100, ceilingCell(p.CeilingWCUPerSecond))
	}
	tw.Flush()
	for line := range strings.Lines(rows.String()) {
		writeLine(b, strings.TrimSuffix(line, "\n"))
	}
	if more := len(r.Patterns) - len(shown); more > 0 {
		wrap(b, "  ", "  ", fmt.Sprintf("… %d more healthy pattern(s) (hotkeys audit lists them all)", more), width)
	}
	if o := r.PatternsOther; o != nil {
		wrap(b, "  ", "  ", fmt.Sprintf("other patterns (past the table's bound): records %s, WCU %s", count(o.Records), count(o.WCU)), width)
	}
	for _, p := range shown[:hazards] {
		wrap(b, "  ▸ "+cut.cell(p.Pattern, patternCellWidth)+": ", "    ", p.Diagnosis, width)
	}
}

// patternCellWidth is the widest a pattern is shown in a table column.
const patternCellWidth = 24

// cardinality writes a pattern's distinct keys: exact, or ≈ the estimate
// ± its standard error.
func cardinality(p *report.KeyPattern) string {
	if p.DistinctKeysExact {
		return count(p.DistinctKeys)
	}
	return "≈" + count(p.DistinctKeys) // the JSON has its error
}

func ceilingCell(c float64) string {
	if math.IsInf(c, 1) || c > 1e15 {
		return "∞"
	}
	return count(uint64(c + 0.5))
}
