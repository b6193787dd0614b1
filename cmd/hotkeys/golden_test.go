package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// The golden files of testdata/golden were written by the build before the
// report vocabulary left the detector: these tests hold the CLI's whole
// output, text and JSON, to what it was.

// runGolden runs the command and compares its exit status, stdout and
// stderr with testdata/golden/name.
func runGolden(t *testing.T, name string, args ...string) {
	t.Helper()
	code, out, errs := hotkeys(t, "", args...)
	got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs)
	golden.Equal(t, filepath.Join("testdata/golden", name), []byte(got))
}

func TestCommandsGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"replay-json.golden", []string{"replay", "--format", "json", "testdata/hot.json"}},
		{"replay-table.golden", []string{"replay", "testdata/hot.json"}},
		{"replay-malformed.golden", []string{"replay", "--format", "json", "testdata/one-malformed.json"}},
	} {
		t.Run(c.name, func(t *testing.T) { runGolden(t, c.name, c.args...) })
	}
}

// TestDemoGolden: the demo's JSON, and the heatmap it draws, from one run
// (the demo's table output: TestDemoPrintsOnsets).
func TestDemoGolden(t *testing.T) {
	code, out, errs, page := demo(t, true, "--format", "json")
	golden.Equal(t, "testdata/golden/demo-json.golden", fmt.Appendf(nil, "exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs))
	golden.Equal(t, "testdata/golden/demo-heatmap.html", page)
}

// TestFlagErrorsGolden: a configuration the detector refuses is told in
// the flags' names.
func TestFlagErrorsGolden(t *testing.T) {
	var got bytes.Buffer
	for _, args := range [][]string{
		{"replay", "--window", "0s", "x"},
		{"replay", "--window", "1500ms", "x"},
		{"replay", "--share-threshold", "2", "x"},
		{"replay", "--min-wcu-per-second", "-1", "x"},
		{"replay", "--critical-wcu-per-second", "50", "x"},
		{"replay", "--min-wcu-per-second", "900", "x"},
		{"replay", "--partition-limit", "0", "x"},
		{"replay", "--top", "-1", "x"},
		{"replay", "--top", "1001", "x"},
		{"replay", "--saturation-fraction", "2", "x"},
		{"replay", "--saturation-seconds", "-1", "x"},
		{"replay", "--width", "10", "x"},
		{"demo", "--share-threshold", "0"},
		{"watch", "--table", "T", "--window", "16m"},
		{"client-demo", "--endpoint", "http://127.0.0.1:1", "--critical-wcu-per-second", "1"},
	} {
		code, out, errs := hotkeys(t, "", args...)
		fmt.Fprintf(&got, "%v: exit %d, stdout %q\n%s", args, code, out, errs)
	}
	golden.Equal(t, "testdata/golden/flag-errors.golden", got.Bytes())
}

// TestRenderGolden writes the sample reports of package report, stream and
// client, in every form, in two batches as a run does.
func TestRenderGolden(t *testing.T) {
	stream := golden.Lines[report.Report](t, "../../report/testdata/stream.jsonl")
	client := golden.Lines[report.ClientReport](t, "../../report/testdata/client.jsonl")
	for _, c := range []struct {
		name   string
		format string
		live   bool
	}{
		{"render-stream-table.golden", "table", false},
		{"render-stream-json.golden", "json", false},
		{"render-stream-lines.golden", "json", true},
	} {
		o := testOutput(c.format)
		o.live = c.live
		renderGolden(t, c.name, stream, func(w io.Writer) reportWriter[report.Report] { return closeAtEnd{newStreamWriter(o, w)} })
	}
	renderGolden(t, "render-empty-json.golden", nil, func(w io.Writer) reportWriter[report.Report] {
		return closeAtEnd{newStreamWriter(testOutput("json"), w)}
	})
	for _, format := range []string{"table", "json"} {
		renderGolden(t, "render-client-"+format+".golden", client, func(w io.Writer) reportWriter[report.ClientReport] {
			return newClientReportWriter(format, w, defaultWidth)
		})
	}
	// No command prints a client's reports live, but the shape is the
	// same: one {"windows":[...]} line per batch.
	renderGolden(t, "render-client-lines.golden", client, func(w io.Writer) reportWriter[report.ClientReport] {
		return newWriter("json", w, true, func(b *strings.Builder, r *report.ClientReport) { clientTable(b, r, defaultWidth) })
	})
}

// testOutput is how the tests write a stream's reports: in format, to
// defaultWidth, as replay does.
func testOutput(format string) outputOptions {
	return outputOptions{format: format, onsets: true, table: tableOptions{width: defaultWidth, limit: 1000, keyDoubt: func() string { return "" }}}
}

// closeAtEnd is a streamWriter closed as a reportWriter: with no warnings.
type closeAtEnd struct{ streamWriter }

func (c closeAtEnd) Close() error { return c.streamWriter.Close(nil) }

// renderGolden writes reps in two batches, as a run does, and compares the
// whole output with testdata/golden/name.
func renderGolden[R any](t *testing.T, name string, reps []R, writer func(io.Writer) reportWriter[R]) {
	t.Helper()
	var out bytes.Buffer
	w := writer(&out)
	half := len(reps) / 2
	if err := w.Write(reps[:half]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(reps[half:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	golden.Equal(t, filepath.Join("testdata/golden", name), out.Bytes())
}
