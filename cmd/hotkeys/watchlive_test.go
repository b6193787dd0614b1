package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// pagesReader is a stream that gives watch pages of records, one batch at
// a time, and tells the test what watch had printed once each batch was
// analysed (Batch returns only then); then it ends, as a stream whose
// shards are all read does.
type pagesReader struct {
	shard string
	pages [][]byte
	out   *syncBuffer
	seen  []string // stdout after each batch
}

func (r *pagesReader) Run(ctx context.Context, h streams.Handler) error {
	for _, p := range r.pages {
		if err := h.Batch(r.shard, p); err != nil {
			return err
		}
		r.seen = append(r.seen, r.out.String())
	}
	return nil
}

// syncBuffer is a bytes.Buffer that watch's goroutines may write while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// samplePages splits the records of an event file into pages of n, as
// GetRecords gives them and watch passes them on: {"Records":[...]}.
func samplePages(t *testing.T, file string, n int) [][]byte {
	t.Helper()
	var ev struct {
		Records []json.RawMessage `json:"Records"`
	}
	decodeJSON(t, string(must(os.ReadFile(file))), &ev)
	var pages [][]byte
	for i := 0; i < len(ev.Records); i += n {
		page, err := json.Marshal(map[string]any{"Records": ev.Records[i:min(i+n, len(ev.Records))]})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
	}
	return pages
}

// watchPages runs watch on pages (no AWS is called: the stream is the
// test's, the partition key and indexes given), with the clock standing at
// the records' minute, and returns its exit status, output and reader.
func watchPages(t *testing.T, pages [][]byte, args ...string) (int, string, string, *pagesReader) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	var out syncBuffer
	r := &pagesReader{shard: "shardId-00000001795305600000-4f2a9c1b", pages: pages, out: &out}
	clock, reader := watchClock, watchReader
	t.Cleanup(func() { watchClock, watchReader = clock, reader })
	watchClock = func() time.Time { return time.Date(2026, 11, 22, 1, 0, 30, 0, time.UTC) }
	watchReader = func(*streams.Reader) streamReader { return r }
	var errs bytes.Buffer
	argv := append([]string{"watch", "--stream-arn", "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T00:00:00.000",
		"--partition-key", "PK", "--indexes", "off", "--critical-wcu-per-second", "110"}, args...)
	code := run(context.Background(), argv, nil, &out, &errs)
	return code, out.String(), errs.String(), r
}

// TestWatchPrintsOnsetsLive: watch prints an onset as soon as the batch
// that shows it is analysed, long before its window's report (which comes
// when watch stops), in the table and in JSON lines; --record saves what
// was read, and replay reads it back to the same windows and onsets.
func TestWatchPrintsOnsetsLive(t *testing.T) {
	pages := samplePages(t, "../../events/hot-key-ops-log.json", 40)
	for _, format := range []string{"table", "json"} {
		t.Run(format, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "records.json")
			code, out, errs, r := watchPages(t, pages, "--format", format, "--record", rec)
			golden.Equal(t, "testdata/golden/watch-onsets-"+format+".golden", fmt.Appendf(nil, "exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs))
			onset := "▲ onset 2026-11-22 01:00:05 UTC  OPS_LOG (Orders)"
			window := "── Orders · 2026-11-22 01:00:00"
			if format == "json" {
				onset, window = `{"windows":[],"onsets":[{"table":"Orders"`, `{"windows":[{"table":"Orders"`
			}
			first := -1
			for i, s := range r.seen {
				if strings.Contains(s, onset) && first < 0 {
					first = i
				}
				if strings.Contains(s, window) {
					t.Errorf("the window was reported after batch %d, while still open", i+1)
				}
			}
			if first < 0 || first == len(r.seen)-1 || !strings.Contains(out, window) {
				t.Fatalf("the onset was printed after batch %d of %d (want before the last), the window at the end: %v\n%s", first+1, len(r.seen), strings.Contains(out, window), out)
			}
			if strings.Contains(r.seen[first-1], "▲") || strings.Contains(r.seen[first-1], "onsets") {
				t.Errorf("something was announced before the batch that crossed")
			}
			// What watch saved, replay reads back to the same report.
			_, again, rerrs := hotkeys(t, "", "replay", "--partition-key", "PK", "--critical-wcu-per-second", "110", "--format", "json", rec)
			var live struct {
				Windows []json.RawMessage `json:"windows"`
			}
			var back struct {
				Windows []json.RawMessage `json:"windows"`
				Onsets  []json.RawMessage `json:"onsets"`
			}
			decodeJSON(t, again, &back)
			if format == "json" {
				for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
					var doc struct {
						Windows []json.RawMessage `json:"windows"`
					}
					decodeJSON(t, l, &doc)
					live.Windows = append(live.Windows, doc.Windows...)
				}
				if len(live.Windows) != 1 || len(back.Windows) != 1 || string(live.Windows[0]) != string(back.Windows[0]) || len(back.Onsets) != 1 {
					t.Errorf("replay of --record: %s\n%s\nwatch printed:\n%s", again, rerrs, out)
				}
			}
			if lines := strings.Count(string(must(os.ReadFile(rec))), "\n"); lines != len(pages) {
				t.Errorf("--record saved %d lines, watch read %d batches", lines, len(pages))
			}
		})
	}
}

// TestWatchWithoutCredentials: watch with no AWS credentials anywhere says
// so, and where it looked, instead of the last link of the chain's error.
func TestWatchWithoutCredentials(t *testing.T) {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true") // no instance here to ask
	code, out, errs := hotkeys(t, "", "watch", "--table", "Orders")
	golden.Equal(t, "testdata/golden/watch-no-credentials.golden", fmt.Appendf(nil, "exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs))
	if code != exitInputError || !strings.HasPrefix(errs, "hotkeys: watch: no AWS credentials found.") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestVersion: --version says the module version, or a checkout's commit,
// and the Go version, from what the toolchain recorded.
func TestVersion(t *testing.T) {
	var got strings.Builder
	for _, info := range []*debug.BuildInfo{
		{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hotkeys-dev/hotkeys", Version: "v1.4.0"}},
		{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hotkeys-dev/hotkeys", Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "84abbde0123456789abcdef0123456789abcdef0"}, {Key: "vcs.time", Value: "2026-11-28T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
		{GoVersion: "go1.26.8"},
	} {
		fmt.Fprintln(&got, versionOf(info))
	}
	golden.Equal(t, "testdata/golden/version.golden", []byte(got.String()))
	code, out, _ := hotkeys(t, "", "--version")
	if info, _ := debug.ReadBuildInfo(); code != exitOK || out != versionOf(info)+"\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// TestWatchWarnsOfTheSortKey: watch, given by hand a partition key that
// looks like the sort key, warns on stderr, in the summary and by exit
// status 4, as replay does.
func TestWatchWarnsOfTheSortKey(t *testing.T) {
	pages := samplePages(t, "../../events/hot-key-ops-log.json", 120)
	code, out, errs, _ := watchPages(t, pages, "--partition-key", "SK")
	golden.Equal(t, "testdata/golden/watch-sort-key.golden", fmt.Appendf(nil, "exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errs))
	if code != exitWarning || !strings.Contains(errs, "warning: --partition-key SK looks like the sort key") || !strings.Contains(flat(out), "! --partition-key SK looks like the sort key") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestWidthOfATerminal: table output takes the width of the terminal it
// writes to (a pseudo-terminal here), --width overrides it, and output
// that is not a terminal gets 100 columns.
func TestWidthOfATerminal(t *testing.T) {
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	defer pty.Close()
	if err := setWinsize(pty, 132); err != nil {
		t.Skipf("cannot size the pseudo-terminal: %v", err)
	}
	var o options
	if w := o.output(pty, false, false).table.width; w != 132 {
		t.Errorf("on a 132-column terminal: %d columns", w)
	}
	o.width = 80
	if w := o.output(pty, false, false).table.width; w != 80 {
		t.Errorf("--width 80 on a terminal: %d columns", w)
	}
	o.width = 0
	if w := o.output(&bytes.Buffer{}, false, false).table.width; w != defaultWidth {
		t.Errorf("not a terminal: %d columns, want %d", w, defaultWidth)
	}
}
