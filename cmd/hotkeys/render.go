package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/report"
)

// reportWriter prints the reports of closed windows as they come: a
// client's (report.ClientReport). A stream's have a writer of their own,
// streamWriter, which onsets and warnings go through too.
type reportWriter[R any] interface {
	Write(reps []R) error
	Close() error
}

// outputOptions say how a command writes its reports.
type outputOptions struct {
	format string // table or json
	live   bool   // json: one document per line, as windows close (watch)
	onsets bool   // json: the document carries the run's onsets (replay, demo)
	table  tableOptions
}

// newClientReportWriter returns the writer of a client's reports in format:
// the same JSON document, or a table per window.
func newClientReportWriter(format string, w io.Writer, width int) reportWriter[report.ClientReport] {
	return newWriter(format, w, false, func(b *strings.Builder, r *report.ClientReport) { clientTable(b, r, width) })
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
// window by window so that a long replay never holds every report; tail,
// when set, writes the document's other members at its close.
type jsonDocument[R any] struct {
	w       io.Writer
	started bool
	n       int
	tail    func() ([]byte, error)
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
	var tail []byte
	if j.tail != nil {
		var err error
		if tail, err = j.tail(); err != nil {
			return err
		}
	}
	end := "\n]"
	if !j.started {
		end = "{\"windows\": []"
	}
	_, err := fmt.Fprintf(j.w, "%s%s}\n", end, tail)
	return err
}

// jsonLines writes one {"windows":[...]} document per line, each holding the
// windows closed at that moment: watch's live form of the same shape.
type jsonLines[R any] struct{ w io.Writer }

func (j *jsonLines[R]) Write(reps []R) error {
	if len(reps) == 0 {
		return nil
	}
	return j.line(reps, nil, nil)
}

// line writes one document: windows (never null), and onsets and
// warnings when there are some.
func (j *jsonLines[R]) line(reps []R, onsets []report.Onset, warnings []string) error {
	if reps == nil {
		reps = []R{}
	}
	b, err := json.Marshal(struct {
		Windows  []R            `json:"windows"`
		Onsets   []report.Onset `json:"onsets,omitempty"`
		Warnings []string       `json:"warnings,omitempty"`
	}{reps, onsets, warnings})
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

// streamWriter writes what a stream run finds, in stream order: the
// reports of windows as they close, the onsets as they are found, and at
// the end what the run as a whole says (its warnings, and in a table its
// summary).
type streamWriter interface {
	Write(reps []report.Report) error
	WriteOnsets(onsets []report.Onset) error
	Close(warnings []string) error
}

// newStreamWriter returns the writer of a stream's reports as o says:
// tables for people, one JSON document, or (live) a JSON document per
// line.
func newStreamWriter(o outputOptions, w io.Writer) streamWriter {
	switch {
	case o.format == "json" && o.live:
		return &streamJSONLines{jsonLines[report.Report]{w: w}}
	case o.format == "json":
		d := &streamJSONDocument{onsets: o.onsets}
		d.doc = jsonDocument[report.Report]{w: w, tail: d.tail}
		return d
	}
	return &streamTableWriter{w: w, opt: o.table}
}

// streamJSONDocument is {"windows": [...], "onsets": [...]}, with
// "warnings" when there are some: the windows streamed as they close, the
// onsets (few: one per key and window at most) held to the end.
type streamJSONDocument struct {
	doc      jsonDocument[report.Report]
	onsets   bool
	held     []report.Onset
	warnings []string
}

func (d *streamJSONDocument) Write(reps []report.Report) error { return d.doc.Write(reps) }

func (d *streamJSONDocument) WriteOnsets(onsets []report.Onset) error {
	d.held = append(d.held, onsets...)
	return nil
}

func (d *streamJSONDocument) Close(warnings []string) error {
	d.warnings = warnings
	return d.doc.Close()
}

// tail writes the document's members after its windows.
func (d *streamJSONDocument) tail() ([]byte, error) {
	var b []byte
	if d.onsets {
		b = append(b, ",\n\"onsets\": ["...)
		for i := range d.held {
			o, err := json.Marshal(&d.held[i])
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n  "...)
			b = append(b, o...)
		}
		if len(d.held) > 0 {
			b = append(b, '\n')
		}
		b = append(b, ']')
	}
	if len(d.warnings) > 0 {
		w, err := json.Marshal(d.warnings)
		if err != nil {
			return nil, err
		}
		b = append(b, ",\n\"warnings\": "...)
		b = append(b, w...)
	}
	return b, nil
}

// streamJSONLines is watch's JSON: a document per line, of the windows
// that closed, or of the onsets just found, at that moment.
type streamJSONLines struct{ lines jsonLines[report.Report] }

func (j *streamJSONLines) Write(reps []report.Report) error { return j.lines.Write(reps) }

func (j *streamJSONLines) WriteOnsets(onsets []report.Onset) error {
	if len(onsets) == 0 {
		return nil
	}
	return j.lines.line(nil, onsets, nil)
}

func (j *streamJSONLines) Close(warnings []string) error {
	if len(warnings) == 0 {
		return nil
	}
	return j.lines.line(nil, nil, warnings)
}

// streamTableWriter prints each window as it closes, each onset as a line
// as it is found, and at the end the run's summary.
type streamTableWriter struct {
	w       io.Writer
	opt     tableOptions
	summary runSummary
}

func (t *streamTableWriter) Write(reps []report.Report) error {
	t.summary.addReports(reps)
	for i := range reps {
		var b strings.Builder
		writeStreamWindow(&b, &reps[i], &t.opt)
		if _, err := io.WriteString(t.w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

func (t *streamTableWriter) WriteOnsets(onsets []report.Onset) error {
	var b strings.Builder
	for i := range onsets {
		t.summary.addOnset(&onsets[i])
		writeOnset(&b, &onsets[i], t.opt.width)
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *streamTableWriter) Close(warnings []string) error {
	var b strings.Builder
	t.summary.write(&b, &t.opt, warnings)
	_, err := io.WriteString(t.w, b.String())
	return err
}

// writeOnset writes an onset as one line (wrapped when the width asks):
// the second, the key and where, what it certainly wrote in that second
// (a lower bound: the second may not be over), and its pattern so far:
// its window's report, at the close, has the final one.
func writeOnset(b *strings.Builder, o *report.Onset, width int) {
	where := printable(o.Table, 60)
	if o.Index != "" {
		where += " · " + printable(o.Index, 60)
	}
	line := fmt.Sprintf("▲ onset %s UTC  %s (%s)  ≥ %s WCU/s  pattern so far: %s", o.Second.UTC().Format("2006-01-02 15:04:05"),
		printable(o.Key.Key, keyCellWidth), where, count(o.SecondWCULower), o.Key.Pattern)
	fitLine(b, line, width)
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

// keyNotes collects the keys (and shard ids) a window's tables had to
// cut, in order of first appearance.
type keyNotes []string

// cell returns key as a table cell of at most width runes (width < 0:
// whole): whole when it fits, else cut and marked with its note's number,
// which the window's footer prints in full.
func (n *keyNotes) cell(key string, width int) string {
	s := printable(key, width)
	if s == printable(key, -1) {
		return s
	}
	i := slices.Index(*n, key)
	if i < 0 {
		*n = append(*n, key)
		i = len(*n) - 1
	}
	mark := fmt.Sprintf(" [%d]", i+1)
	return printable(key, max(2, width-utf8.RuneCountInString(mark))) + mark
}

// writeFull writes the keys cut above in full: keys of up to 2,048 bytes
// do not fit a column, and two that differ only at the end would look
// alike there. A key is written on one line, whatever the width: broken
// across lines, it could not be copied whole.
func (n keyNotes) writeFull(b *strings.Builder) {
	if len(n) == 0 {
		return
	}
	b.WriteString("\nCUT ABOVE, IN FULL\n")
	for i, k := range n {
		writeLine(b, fmt.Sprintf("  [%d] %s", i+1, printable(k, -1)))
	}
}

func lowerBoundNote(lower bool) string {
	if lower {
		return " (lower bound: some records lacked an image)"
	}
	return ""
}

// bar draws share as a bar of width cells.
func bar(share float64, width int) string {
	n := int(share*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return strings.Repeat("█", n) + strings.Repeat("░", width-n)
}

// count writes n with thousands separators, as every report does.
func count(n uint64) string { return report.Count(n) }

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
