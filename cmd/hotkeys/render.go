package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/report"
)

// reportWriter prints the reports of closed windows as they come: a
// stream's (report.Report) or a client's (report.ClientReport).
type reportWriter[R any] interface {
	Write(reps []R) error
	Close() error
}

// newReportWriter returns the writer of a stream's reports in format: one
// JSON document, or with live one JSON line per batch of windows (watch), or
// a table per window.
func newReportWriter(format string, w io.Writer, live bool) reportWriter[report.Report] {
	return newWriter(format, w, live, streamTable)
}

// newClientReportWriter returns the writer of a client's reports in format:
// the same JSON document, or a table per window.
func newClientReportWriter(format string, w io.Writer) reportWriter[report.ClientReport] {
	return newWriter(format, w, false, clientTable)
}

// newWriter returns the writer of format; table prints one window for
// people.
func newWriter[R any](format string, w io.Writer, live bool, table func(*strings.Builder, *R)) reportWriter[R] {
	switch {
	case format == "json" && live:
		return &jsonLines[R]{w: w}
	case format == "json":
		return &jsonDocument[R]{w: w}
	}
	return &tableWriter[R]{w: w, window: table}
}

// jsonDocument writes {"windows":[...]} as one JSON document, streamed
// window by window so that a long replay never holds every report.
type jsonDocument[R any] struct {
	w       io.Writer
	started bool
	n       int
}

func (j *jsonDocument[R]) Write(reps []R) error {
	for _, r := range reps {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		sep := ",\n  "
		if !j.started {
			sep = "{\"windows\": [\n  "
			j.started = true
		}
		if _, err := fmt.Fprintf(j.w, "%s%s", sep, b); err != nil {
			return err
		}
		j.n++
	}
	return nil
}

func (j *jsonDocument[R]) Close() error {
	if !j.started {
		_, err := io.WriteString(j.w, "{\"windows\": []}\n")
		return err
	}
	_, err := io.WriteString(j.w, "\n]}\n")
	return err
}

// jsonLines writes one {"windows":[...]} document per line, each holding the
// windows closed at that moment: watch's live form of the same shape.
type jsonLines[R any] struct{ w io.Writer }

func (j *jsonLines[R]) Write(reps []R) error {
	if len(reps) == 0 {
		return nil
	}
	b, err := json.Marshal(struct {
		Windows []R `json:"windows"`
	}{reps})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.w, "%s\n", b)
	return err
}

func (j *jsonLines[R]) Close() error { return nil }

// tableWriter prints a report per window for people.
type tableWriter[R any] struct {
	w      io.Writer
	window func(*strings.Builder, *R)
}

func (t *tableWriter[R]) Close() error { return nil }

func (t *tableWriter[R]) Write(reps []R) error {
	for i := range reps {
		var b strings.Builder
		t.window(&b, &reps[i])
		if _, err := io.WriteString(t.w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// streamTable prints a stream's window: its totals and warnings, the hot
// keys with their diagnoses, the top keys, the stream shards, and in full
// the keys the columns cut.
func streamTable(b *strings.Builder, r *report.Report) {
	name := printable(r.Table, 60)
	if r.Index != "" {
		name += " · index " + printable(r.Index, 60)
	}
	writeTitle(b, name, r.Window, "")
	streamTotals(b, r)
	var cut keyNotes
	if len(r.HotKeys) == 0 {
		b.WriteString("\nno hot keys\n")
	} else {
		b.WriteString("\nHOT KEYS\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  SEVERITY\tKEY\tPATTERN\tWCU [bounds]\tSHARE\t\tPEAK WCU/s\tSHARDS\t")
		for _, k := range r.HotKeys {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%5.1f%%\t%s\t%s\t\n", severityCell(&k.KeyFigures), cut.cell(k.Key), k.Pattern,
				bounds(&k.KeyFigures), bar(k.Share, 20), k.Share*100, count(uint64(k.PeakWCUPerSecond+0.5)), shardsCell(&k.KeyFigures))
		}
		tw.Flush()
		for _, k := range r.HotKeys {
			fmt.Fprintf(b, "  ▸ %s: %s\n", cut.cell(k.Key), k.Diagnosis)
		}
	}
	if len(r.TopKeys) > 0 {
		b.WriteString("\nTOP KEYS\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  KEY\tTYPE\tWCU [bounds]\tSHARE\t\tAVG WCU/s\tPEAK WCU/s\t")
		for _, k := range r.TopKeys {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%5.1f%%\t%.1f\t%s\t\n", cut.cell(k.Key), k.Type, bounds(&k.KeyFigures),
				bar(k.Share, 20), k.Share*100, k.AvgWCUPerSecond, count(uint64(k.PeakWCUPerSecond+0.5)))
		}
		tw.Flush()
	}
	streamPatterns(b, r, &cut, windowPatterns)
	streamShards(b, r)
	cut.writeFull(b)
	b.WriteString("\n")
}

// writeTitle writes a window's title line, ruled to 100 columns.
func writeTitle(b *strings.Builder, name string, w report.Window, suffix string) {
	title := fmt.Sprintf("── %s · %s – %s UTC %s", name, w.Start.Format("2006-01-02 15:04:05"), w.End.Format("15:04:05"), suffix)
	b.WriteString(title + strings.Repeat("─", max(0, 100-utf8.RuneCountInString(title))) + "\n")
}

// streamTotals writes what the window counted, and what makes its figures
// incomplete.
func streamTotals(b *strings.Builder, r *report.Report) {
	fmt.Fprintf(b, "records %s   WCU %s%s   distinct keys ≈ %s   TTL deletes %s   malformed %s",
		count(r.Records), count(r.WCU), lowerBoundNote(r.WCUIsLowerBound), count(r.DistinctKeys), count(r.TTLDeletes), count(r.Malformed))
	if r.Late > 0 {
		fmt.Fprintf(b, "   late %s", count(r.Late))
	}
	// Only a stored window (history) can have some: the CLI itself stops
	// at its first internal error (exit status 3).
	if r.InternalErrors > 0 {
		fmt.Fprintf(b, "   internal errors %s", count(r.InternalErrors))
	}
	if r.TTLWCU > 0 {
		fmt.Fprintf(b, "   entries removed by TTL %s WCU (free)", count(r.TTLWCU))
	}
	b.WriteString("\n")
	if r.TerminatedEarly {
		b.WriteString("! Lambda ended this window early: the figures cover only part of it.\n")
	}
	if r.InternalErrors > 0 {
		fmt.Fprintf(b, "! hotkeys skipped %s record(s) for a bug of its own (the function's log has an ERROR \"internal error\" with the stack): the figures undercount.\n", count(r.InternalErrors))
	}
}

// streamShards writes the stream shards' load.
func streamShards(b *strings.Builder, r *report.Report) {
	if len(r.Shards) == 0 {
		return
	}
	b.WriteString("\nSTREAM SHARDS (≈ table partitions)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SHARD\tRECORDS\tWCU\tSHARE\t\tPEAK WCU/s\t")
	for _, s := range r.Shards {
		share := 0.0
		if r.WCU > 0 {
			share = float64(s.WCU) / float64(r.WCU)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%5.1f%%\t%s\t\n", printable(s.Shard, 50), count(s.Records), count(s.WCU),
			bar(share, 20), share*100, count(uint64(s.PeakWCUPerSecond+0.5)))
	}
	tw.Flush()
	for _, s := range r.Shards {
		if s.Saturated {
			fmt.Fprintf(b, "! %s saturated for %d s: its partition's successful writes were pinned at the limit, so its writes were most likely throttled, whichever keys share it.\n",
				printable(s.Shard, 50), s.SaturatedSeconds)
		}
	}
}

// severityCell is a flagged key's severity, and whether it is saturated.
func severityCell(k *report.KeyFigures) string {
	if k.Saturated {
		return string(k.Severity) + " (saturated)"
	}
	return string(k.Severity)
}

// shardsCell is a key's recommended shard count, "≥ n" when only a lower
// bound is known (a saturated key's true demand is hidden).
func shardsCell(k *report.KeyFigures) string {
	if k.RecommendedShardsIsLowerBound {
		return fmt.Sprintf("≥ %d", k.RecommendedShards)
	}
	return fmt.Sprint(k.RecommendedShards)
}

// keyCellWidth is the widest a key is shown in a table column.
const keyCellWidth = 40

// keyNotes collects the keys a window's table had to cut, in order of first
// appearance.
type keyNotes []string

// cell returns key as a table cell: whole when it fits, else cut and
// marked with its note's number, which the window's footer prints in full.
func (n *keyNotes) cell(key string) string {
	s := printable(key, keyCellWidth)
	if s == printable(key, -1) {
		return s
	}
	i := slices.Index(*n, key)
	if i < 0 {
		*n = append(*n, key)
		i = len(*n) - 1
	}
	mark := fmt.Sprintf(" [%d]", i+1)
	return printable(key, keyCellWidth-utf8.RuneCountInString(mark)) + mark
}

// writeFull writes the keys cut above in full: keys of up to 2,048 bytes
// do not fit a column, and two that differ only at the end would look
// alike there.
func (n keyNotes) writeFull(b *strings.Builder) {
	if len(n) == 0 {
		return
	}
	b.WriteString("\nKEYS CUT ABOVE, IN FULL\n")
	for i, k := range n {
		fmt.Fprintf(b, "  [%d] %s\n", i+1, printable(k, -1))
	}
}

func lowerBoundNote(lower bool) string {
	if lower {
		return " (lower bound: some records lacked an image)"
	}
	return ""
}

func bounds(k *report.KeyFigures) string {
	if k.WCULower == k.WCUUpper {
		return count(k.WCU) + " [exact]"
	}
	return fmt.Sprintf("%s [%s–%s]", count(k.WCU), count(k.WCULower), count(k.WCUUpper))
}

// bar draws share as a bar of width cells.
func bar(share float64, width int) string {
	n := int(share*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return strings.Repeat("█", n) + strings.Repeat("░", width-n)
}

// count writes n with thousands separators.
func count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// printable makes a key safe for a terminal: a key is arbitrary user data
// and may hold control characters or escape sequences. Keys longer than
// width runes are cut; width < 0 never cuts.
func printable(s string, width int) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r < 0xa0) {
			s = strconv.Quote(s)
			break
		}
	}
	if width >= 0 && utf8.RuneCountInString(s) > width {
		rs := []rune(s)
		s = string(rs[:width-1]) + "…"
	}
	return s
}
