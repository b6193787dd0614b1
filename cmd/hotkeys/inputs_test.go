package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestReplayInputsGolden: what replay makes of each kind of input, whole
// (exit status, standard output and error): the partition key named
// right, wrong (the sort key), missing from the records, or not at all;
// AWS CLI's get-records output, with v2's ISO 8601 times and v1's epoch
// seconds, and without a table name; a byte-order mark; onsets.
func TestReplayInputsGolden(t *testing.T) {
	bom := append([]byte("\xef\xbb\xbf"), must(os.ReadFile("testdata/hot.json"))...)
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"key-right.golden", "", []string{"replay", "--partition-key", "customerId", "../../events/describe-table-lookup.json"}},
		{"key-sort-key.golden", "", []string{"replay", "--partition-key", "createdAt", "../../events/describe-table-lookup.json"}},
		{"key-sort-key-json.golden", "", []string{"replay", "--partition-key", "createdAt", "--format", "json", "../../events/describe-table-lookup.json"}},
		{"key-missing.golden", "", []string{"replay", "--partition-key", "PK", "../../events/global-counter.json"}},
		{"key-ambiguous.golden", "", []string{"replay", "../../events/describe-table-lookup.json"}},
		{"get-records-cli-v2.golden", "", []string{"replay", "--partition-key", "PK", "../../events/captured/get-records-cli-v2.json"}},
		{"get-records-cli-v1.golden", "", []string{"replay", "--partition-key", "PK", "--format", "json", "testdata/get-records-cli-v1.json"}},
		{"get-records-unnamed.golden", "", []string{"replay", "--partition-key", "PK", "testdata/get-records-closed-shard.json"}},
		{"get-records-table-flag.golden", "", []string{"replay", "--partition-key", "PK", "--table", "Orders", "testdata/get-records-closed-shard.json"}},
		{"byte-order-mark.golden", string(bom), []string{"replay", "-"}},
		{"replay-onsets.golden", "", []string{"replay", "--partition-key", "PK", "--critical-wcu-per-second", "110", "../../events/hot-key-ops-log.json"}},
		{"replay-onsets-json.golden", "", []string{"replay", "--partition-key", "PK", "--critical-wcu-per-second", "110", "--format", "json", "../../events/hot-key-ops-log.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := hotkeys(t, c.stdin, c.args...)
			golden.Equal(t, filepath.Join("testdata/golden", c.name), fmt.Appendf(nil, "exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs))
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReplayRefusesOtherEvents: every kind of input that is not DynamoDB
// stream records (record/testdata/sources: events of Kinesis, SQS, SNS,
// S3, API Gateway, EventBridge, CloudWatch Logs; describe-table's output;
// {} and null) gets one line naming what it looks like, exit status 2, and
// no window; among other files, they are named and the others analysed.
func TestReplayRefusesOtherEvents(t *testing.T) {
	files, err := filepath.Glob("../../record/testdata/sources/*.json")
	if err != nil || len(files) < 11 {
		t.Fatalf("%d sample files: %v", len(files), err)
	}
	var got strings.Builder
	for _, f := range files {
		for _, format := range []string{"table", "json"} {
			code, out, errs := hotkeys(t, "", "replay", "--format", format, f)
			fmt.Fprintf(&got, "[replay --format %s %s]: exit %d, stdout %q\n%s", format, filepath.Base(f), code, out, errs)
			if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, one line", f, code, out, errs)
			}
		}
	}
	code, out, errs := hotkeys(t, "", "replay", "--format", "json", "../../record/testdata/sources/sqs.json", "testdata/hot.json", "../../record/testdata/sources/null.json")
	fmt.Fprintf(&got, "[replay sqs.json hot.json null.json]: exit %d\n%s", code, errs)
	if r := decodeReport(t, out); code != exitUsage || len(r.Windows) != 1 || r.Windows[0].Records != 420 {
		t.Errorf("among other files: exit %d, %+v", code, r)
	}
	golden.Equal(t, "testdata/golden/replay-other-events.golden", []byte(got.String()))
}

// TestGetRecordsReadsAsTheLambdaEvent: the capture of AWS CLI v2's
// get-records (ISO 8601 times in +01:00, no eventSourceARN) reads as the
// Lambda event it was taken from, figure for figure; only the stream
// shard is unknown (get-records is of one shard, but does not say which).
func TestGetRecordsReadsAsTheLambdaEvent(t *testing.T) {
	_, fromCLI, errs := hotkeys(t, "", "replay", "--partition-key", "PK", "--format", "json", "../../events/captured/get-records-cli-v2.json")
	_, fromLambda, _ := hotkeys(t, "", "replay", "--partition-key", "PK", "--format", "json", "../../events/hot-key-ops-log.json")
	a, b := decodeReport(t, fromCLI), decodeReport(t, fromLambda)
	if len(a.Windows) != 1 || len(b.Windows) != 1 {
		t.Fatalf("windows: %d and %d; stderr %s", len(a.Windows), len(b.Windows), errs)
	}
	if diff := cmp.Diff(b.Windows[0], a.Windows[0], cmpopts.IgnoreFields(report.Report{}, "Shards")); diff != "" {
		t.Errorf("get-records (+) against the Lambda event (-):\n%s", diff)
	}
	if !strings.Contains(errs, "times in ISO 8601") || a.Windows[0].Table != "Orders" {
		t.Errorf("table %q; stderr %s", a.Windows[0].Table, errs)
	}
}

// TestTailFoldedAndUnfolded: the top keys under 0.1% of a window are one
// line; --top N and --all list them; --all lists every stream shard.
func TestTailFoldedAndUnfolded(t *testing.T) {
	stream := golden.Lines[report.Report](t, "../../report/testdata/stream.jsonl")
	for _, c := range []struct {
		name string
		opt  func(*outputOptions)
	}{
		{"render-stream-table-all.golden", func(o *outputOptions) { o.table.all = true }},
		{"render-stream-table-top.golden", func(o *outputOptions) { o.table.top = true }},
	} {
		o := testOutput("table")
		c.opt(&o)
		renderGolden(t, c.name, stream[:2], func(w io.Writer) reportWriter[report.Report] { return closeAtEnd{newStreamWriter(o, w)} })
	}
	folded := string(must(os.ReadFile("testdata/golden/render-stream-table.golden")))
	if !strings.Contains(folded, "other keys: ≈ 18,368, each under 0.1% of the window's WCU") || strings.Contains(folded, "USER#") {
		t.Error("the default table output does not fold the tail")
	}
}

// TestTableToTheWidth: every line of a table fits the width asked for,
// down to the narrowest (a key in full below a window excepted), and none
// ends in a space.
func TestTableToTheWidth(t *testing.T) {
	stream := golden.Lines[report.Report](t, "../../report/testdata/stream.jsonl")
	client := golden.Lines[report.ClientReport](t, "../../report/testdata/client.jsonl")
	for _, width := range []int{minWidth, 60, 80, defaultWidth, 160} {
		o := testOutput("table")
		o.table.width = width
		var out strings.Builder
		w := newStreamWriter(o, &out)
		if err := w.Write(stream); err != nil {
			t.Fatal(err)
		}
		if err := w.Close([]string{"a warning long enough to be wrapped " + strings.Repeat("again and ", 20)}); err != nil {
			t.Fatal(err)
		}
		c := newClientReportWriter("table", &out, width)
		if err := c.Write(client); err != nil {
			t.Fatal(err)
		}
		inFull := false
		for l := range strings.SplitSeq(out.String(), "\n") {
			switch {
			case l == "CUT ABOVE, IN FULL":
				inFull = true
			case l == "":
				inFull = false
			case !inFull && runes(l) > width && width >= 60, strings.HasSuffix(l, " "):
				t.Errorf("width %d: a line of %d columns: %q", width, runes(l), l)
			}
		}
		if width == 60 {
			golden.Equal(t, "testdata/golden/render-table-60.golden", []byte(out.String()))
		}
	}
}

// TestEventSamplesNeeds: docs/events.md's table says what each sample
// needs to be replayed right; replayed so, each reads without a warning
// (malformed-record.json's one malformed record aside).
func TestEventSamplesNeeds(t *testing.T) {
	doc := string(must(os.ReadFile("../../docs/events.md")))
	n := 0
	for line := range strings.SplitSeq(doc, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 4 || !strings.HasPrefix(cells[0], "| `") || !strings.HasSuffix(cells[0], ".json`") {
			continue
		}
		file := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		_, forReplay, ok := strings.Cut(cells[2], "; ")
		if !ok {
			t.Errorf("%s: the needs column %q says nothing for replay", file, cells[2])
			continue
		}
		args := []string{"replay"}
		if strings.HasPrefix(forReplay, "`--") {
			args = append(args, strings.Fields(strings.Trim(forReplay, "`"))...)
		} else if forReplay != "nothing for replay" {
			t.Errorf("%s: %q is neither a flag nor nothing", file, forReplay)
		}
		code, _, errs := hotkeys(t, "", append(args, "../../events/"+file)...)
		want := exitOK
		if file == "malformed-record.json" {
			want = exitInputError
		}
		if code != want || strings.Contains(errs, "warning") {
			t.Errorf("hotkeys %v %s: exit %d, want %d:\n%s", args, file, code, want, errs)
		}
		n++
	}
	if files, _ := filepath.Glob("../../events/*.json"); n != len(files) {
		t.Errorf("docs/events.md's table has %d samples, events/ %d", n, len(files))
	}
}
