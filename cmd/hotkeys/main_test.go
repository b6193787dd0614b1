package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

// flat is s with every run of white space one space: text wrapped to a
// width, read as the words it says.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// hotkeys runs the command in-process and returns its exit status and output.
func hotkeys(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

type jsonReport struct {
	Windows []report.Report `json:"windows"`
}

func decodeReport(t *testing.T, s string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("output is not the JSON report: %v\n%s", err, s)
	}
	return r
}

func TestReplayFindsTheHotKey(t *testing.T) {
	code, out, errs := hotkeys(t, "", "replay", "--format", "json", "testdata/hot.json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, errs)
	}
	r := decodeReport(t, out)
	if len(r.Windows) != 1 {
		t.Fatalf("%d windows, want 1", len(r.Windows))
	}
	w := r.Windows[0]
	// testdata/hot.json: 3 s of OPS_LOG at 120 writes/s and 20 tail keys/s
	// (60 distinct), every item under 1 KB: 1 WCU each. 61 keys fit the
	// sketch's counters, so every figure is exact.
	want := report.Report{
		Window: report.Window{Table: "Orders", Start: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC)},
		Totals: report.Totals{Records: 420, WCU: 420}, DistinctKeys: 61,
		HotKeys: []report.KeyReport{{
			KeyFigures: report.KeyFigures{Key: "OPS_LOG", Type: "S", WCU: 360, WCULower: 360, WCUUpper: 360, Share: 360.0 / 420, AvgWCUPerSecond: 6, PeakWCUPerSecond: 120, Severity: report.Warning, Pattern: report.PatternSingleItem, RecommendedShards: 2},
		}},
		// 20 tail keys of 1 WCU each in every second: one left out of the
		// top 10 wrote 1.
		OtherKeysWCUUpper: 1,
		Shards:            []report.ShardReport{},
	}
	if diff := cmp.Diff(want, w, cmpopts.IgnoreFields(report.Report{}, "TopKeys"),
		cmpopts.IgnoreFields(report.KeyFigures{}, "Diagnosis")); diff != "" {
		t.Errorf("window (-want +got):\n%s", diff)
	}
	if len(w.HotKeys) == 1 && !strings.Contains(w.HotKeys[0].Diagnosis, "86%") {
		t.Errorf("diagnosis %q does not give the key's share", w.HotKeys[0].Diagnosis)
	}
	// The top keys: OPS_LOG, then nine tail keys of 1 WCU each, exactly.
	if len(w.TopKeys) != 10 || (len(w.HotKeys) == 1 && !cmp.Equal(w.TopKeys[0], w.HotKeys[0])) {
		t.Fatalf("top keys %+v, want 10 led by the hot key", w.TopKeys)
	}
	for _, k := range w.TopKeys[1:] {
		if k.WCU != 1 || k.WCULower != 1 || k.WCUUpper != 1 || k.Severity != report.None {
			t.Errorf("tail key %+v, want exactly 1 WCU and not flagged", k)
		}
	}
	// The documented shape, field by field.
	var raw struct {
		Windows []map[string]any `json:"windows"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	// Exactly the documented fields: none missing, none undocumented
	// (terminated_early is left out when false).
	fields := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	wantFields := []string{"distinct_keys", "end", "hot_keys", "internal_errors", "late", "malformed", "other_keys_wcu_upper", "records", "shards",
		"start", "table", "top_keys", "ttl_deletes", "wcu", "wcu_is_lower_bound"}
	if diff := cmp.Diff(wantFields, fields(raw.Windows[0])); diff != "" {
		t.Errorf("report fields (-want +got):\n%s", diff)
	}
	if raw.Windows[0]["start"] != "2026-11-22T10:00:00Z" {
		t.Errorf("start %v, want RFC 3339 UTC 2026-11-22T10:00:00Z", raw.Windows[0]["start"])
	}
	key := raw.Windows[0]["hot_keys"].([]any)[0].(map[string]any)
	wantKeyFields := []string{"avg_wcu_per_second", "diagnosis", "key", "pattern", "peak_wcu_per_second", "recommended_shards",
		"severity", "share", "type", "wcu", "wcu_lower", "wcu_upper"} // shards: for logical sharded keys only
	if diff := cmp.Diff(wantKeyFields, fields(key)); diff != "" {
		t.Errorf("key fields (-want +got):\n%s", diff)
	}
}

func TestReplayStdinAndTable(t *testing.T) {
	// Empty stdin: TestReplayEmptyInput.
	code, out, _ := hotkeys(t, "", "replay", "testdata/hot.json")
	if code != exitOK || !strings.Contains(out, "OPS_LOG") || !strings.Contains(out, "HOT KEYS") || !strings.Contains(out, "█") {
		t.Errorf("table output: exit %d\n%s", code, out)
	}
}

func TestReplayBadInput(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   []string
		analysed uint64 // records still analysed
	}{
		{"malformed record is skipped and counted", []string{"testdata/one-malformed.json"}, exitInputError, []string{"malformed", "Keys"}, 2},
		{"not JSON names file and offset", []string{"testdata/not-json.json"}, exitInputError, []string{"testdata/not-json.json", "byte 27"}, 0},
		{"other files still analysed", []string{"testdata/not-json.json", "testdata/hot.json"}, exitInputError, []string{"not-json.json"}, 420},
		{"missing file", []string{"testdata/nope.json"}, exitInputError, []string{"nope.json"}, 0},
		{"two key attributes need --partition-key", []string{"testdata/two-keys.json"}, exitUsage, []string{"--partition-key"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := hotkeys(t, "", append([]string{"replay", "--format", "json"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errs)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr does not mention %q: %s", s, errs)
				}
			}
			if tt.code == exitUsage {
				return
			}
			var n uint64
			for _, w := range decodeReport(t, out).Windows {
				n += w.Records
			}
			if n != tt.analysed {
				t.Errorf("%d records analysed, want %d", n, tt.analysed)
			}
		})
	}
	code, out, _ := hotkeys(t, "", "replay", "--format", "json", "testdata/one-malformed.json")
	if r := decodeReport(t, out); code != exitInputError || len(r.Windows) != 1 || r.Windows[0].Malformed != 1 {
		t.Errorf("malformed count not reported: %s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Usage"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"replay"}, "FILE"},
		{[]string{"replay", "--window", "0s", "x"}, "--window"},
		{[]string{"replay", "--share-threshold", "2", "x"}, "--share-threshold"},
		{[]string{"replay", "--format", "xml", "x"}, "--format"},
		{[]string{"replay", "--bogus", "x"}, "bogus"},
		{[]string{"watch"}, "--table"},
		{[]string{"replay", "--window", "soon", "x"}, `invalid value "soon" for flag -window: want a duration such as 90s, 5m or 1h`},
		{[]string{"replay", "--top", "ten", "x"}, `invalid value "ten" for flag -top: want a whole number such as 10`},
		{[]string{"replay", "--share-threshold", "half", "x"}, `invalid value "half" for flag -share-threshold: want a number such as 0.25 or 800`},
		{[]string{"history", "--table", "H", "--since", "a while"}, `invalid value "a while" for flag -since: want a duration`},
		{[]string{"watch", "--table", "Orders", "--from", "yesterday"}, `--from "yesterday": want latest`},
		{[]string{"demo", "--key-redaction", "rot13"}, "--key-redaction"},
	}
	for _, tt := range tests {
		code, _, errs := hotkeys(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("hotkeys %v: exit %d, stderr %q; want 2 and a message naming %q", tt.args, code, errs, tt.want)
		}
	}
	code, out, _ := hotkeys(t, "", "--help")
	if code != exitOK || !strings.Contains(out, "demo") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
	if code, _, errs := hotkeys(t, "", "replay", "-h"); code != exitOK || !strings.Contains(errs, "--partition-key") && !strings.Contains(errs, "-partition-key") {
		t.Errorf("replay -h: exit %d, %q", code, errs)
	}
}

// TestReplayEmptyInput: input without a record says so, rather than
// printing nothing.
func TestReplayEmptyInput(t *testing.T) {
	for _, stdin := range []string{"", `{"Records":[]}`, "\n\n"} {
		code, out, errs := hotkeys(t, stdin, "replay", "-")
		if code != exitOK || out != "" || errs != "hotkeys replay: no stream records in -: nothing to report\n" {
			t.Errorf("replay of %q: exit %d, stdout %q, stderr %q", stdin, code, out, errs)
		}
	}
	if _, _, errs := hotkeys(t, "", "replay", "--partition-key", "PK", "../../events/hot-key-ops-log.json"); strings.Contains(errs, "no stream records") {
		t.Errorf("a file of records: %q", errs)
	}
}

// TestHelpTeaches: every command's -h ends with example command lines,
// and the ones that need no AWS (replay's first, demo's first) run clean
// from the repository's root as written.
func TestHelpTeaches(t *testing.T) {
	for _, cmd := range []string{"replay", "demo", "watch", "history", "hash-key", "client-demo"} {
		code, _, errs := hotkeys(t, "", cmd, "-h")
		var examples []string
		for line := range strings.SplitSeq(errs, "\n") {
			if strings.HasPrefix(line, "  hotkeys "+cmd+" ") || line == "  hotkeys "+cmd {
				examples = append(examples, strings.TrimPrefix(line, "  hotkeys "))
			}
		}
		if code != exitOK || len(examples) == 0 {
			t.Errorf("%s -h: exit %d, no example in:\n%s", cmd, code, errs)
			continue
		}
		if cmd != "replay" && cmd != "demo" {
			continue
		}
		args := strings.Fields(strings.ReplaceAll(examples[0], "events/", "../../events/"))
		if cmd == "demo" && len(args) == 1 {
			code, _, errs, _ = demo(t, false) // the run TestDemoPrintsOnsets reads
		} else {
			code, _, errs = hotkeys(t, "", args...)
		}
		if code != exitOK {
			t.Errorf("the example %q: exit %d: %s", examples[0], code, errs)
		}
	}
}

// TestDemoShowsEveryAntiPattern checks what README's "What it finds" table promises of the demo:
// every anti-pattern is flagged with the right diagnosis and recommendation.
func TestDemoShowsEveryAntiPattern(t *testing.T) {
	code, out, errs, _ := demo(t, true, "--format", "json")
	if code != exitOK {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	r := decodeReport(t, out)
	var tables, indexes []report.Report
	for _, w := range r.Windows {
		if w.Index == "" {
			tables = append(tables, w)
		} else {
			indexes = append(indexes, w)
		}
	}
	if len(tables) != len(demoPhases) {
		t.Fatalf("%d table windows, want one per phase (%d)", len(tables), len(demoPhases))
	}
	// The last phase: the table is healthy, its index GSI1 is hot.
	if len(indexes) != 1 || indexes[0].Index != "GSI1" || !indexes[0].Start.Equal(tables[len(tables)-1].Start) {
		t.Fatalf("index windows %+v, want one of GSI1 in the last minute", indexes)
	}
	if hot := tables[len(tables)-1].HotKeys; len(hot) != 0 {
		t.Errorf("the daily-bucketed table is flagged: %+v", hot)
	}
	if hot := indexes[0].HotKeys; len(hot) != 1 || hot[0].Key != "OPS_LOG" || hot[0].Pattern != report.PatternConstantKey ||
		hot[0].Severity != report.Critical || hot[0].RecommendedShards != 2 ||
		!strings.Contains(hot[0].Diagnosis, "throttles the base table's writes") || !strings.Contains(hot[0].Diagnosis, "SHARD#n") {
		t.Errorf("index GSI1's hot keys %+v", hot)
	}
	want := []struct {
		key      string
		pattern  report.Pattern
		severity report.Severity
		shards   int
	}{
		{"OPS_LOG", report.PatternSingleKey, report.Warning, 2},
		{"STATUS#ACTIVE", report.PatternLowCardinality, report.Warning, 2},
		{"DATE#2026-11-22", report.PatternTimeBucket, report.Critical, 2},
		{"COUNTER#page_views", report.PatternSingleItem, report.Warning, 2},
		{"ORDERS#<shard>", report.PatternShardedUneven, report.Warning, 8},
		{"EVENTS#<shard>", report.PatternShardedTooFew, report.Critical, 3},
		{"CART#checkout", report.PatternSingleKey, report.Critical, 2},
	}
	var malformed uint64
	for i, w := range want {
		win := tables[i]
		malformed += win.Malformed
		var found *report.KeyReport
		for j := range win.HotKeys {
			if win.HotKeys[j].Key == w.key {
				found = &win.HotKeys[j]
			}
		}
		if found == nil {
			t.Errorf("window %d: %s not flagged; hot keys %+v", i, w.key, win.HotKeys)
			continue
		}
		if found.Pattern != w.pattern || found.Severity != w.severity || found.RecommendedShards != w.shards || found.Diagnosis == "" {
			t.Errorf("window %d: %s = %s/%s/%d shards, want %s/%s/%d", i, w.key, found.Pattern, found.Severity, found.RecommendedShards, w.pattern, w.severity, w.shards)
		}
		// The throttled minute: the admission model pins CART#checkout at
		// exactly 1,000 WCU/s for the whole minute.
		if c := found; w.key == "CART#checkout" && (!c.Saturated || c.SaturatedSeconds != 60 || !c.RecommendedShardsIsLowerBound || c.PeakWCUPerSecond != 1000) {
			t.Errorf("CART#checkout %+v, want saturated for the whole minute at exactly 1,000 WCU/s", c.KeyFigures)
		}
		for _, k := range win.HotKeys {
			if strings.HasPrefix(k.Key, "USER#") || strings.HasPrefix(k.Key, "SESSION#") {
				t.Errorf("window %d: tail key %s flagged", i, k.Key)
			}
		}
		if win.TTLDeletes == 0 || len(win.Shards) == 0 || win.DistinctKeys < 10000 {
			t.Errorf("window %d: ttl %d, shards %d, distinct %d", i, win.TTLDeletes, len(win.Shards), win.DistinctKeys)
		}
	}
	if malformed != 1 {
		t.Errorf("the demo's one malformed record was counted %d times", malformed)
	}
}

func TestDemoRedactsEveryKey(t *testing.T) {
	t.Setenv(secretEnv, testSecret)
	for _, format := range []string{"table", "json"} {
		code, out, errs, _ := demo(t, format == "json", "--format", format, "--key-redaction", "hash")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, leak := range []string{"OPS_LOG", "STATUS#", "DATE#", "COUNTER#", "ORDERS#", "EVENTS#", "USER#", "SESSION#"} {
			if strings.Contains(out+errs, leak) {
				t.Errorf("--format %s with redaction prints %q", format, leak)
			}
		}
		if !strings.Contains(out, "h:") {
			t.Errorf("--format %s: no redacted keys in output", format)
		}
	}
}

const testSecret = "correct horse battery staple"

// TestKeyRedactionNeedsASecret: hash without a secret is a usage error that
// says how to give one, never a silent unkeyed hash; so is every other way
// of getting the secret wrong.
func TestKeyRedactionNeedsASecret(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, short, empty := file("good", testSecret+"\n"), file("short", "pepper\n"), file("empty", "")
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []string // all in stderr
	}{
		{"no secret", nil, []string{"--key-redaction", "hash"}, []string{secretEnv, "--key-redaction-secret-file FILE", "dictionary"}},
		{"empty file", nil, []string{"--key-redaction", "hash", "--key-redaction-secret-file", empty}, []string{secretEnv, "--key-redaction-secret-file FILE"}},
		{"short file", nil, []string{"--key-redaction", "hash", "--key-redaction-secret-file", short}, []string{"6 bytes", "at least 16"}},
		{"short env", map[string]string{secretEnv: "pepper"}, []string{"--key-redaction", "hash"}, []string{"6 bytes", "at least 16"}},
		{"missing file", nil, []string{"--key-redaction", "hash", "--key-redaction-secret-file", dir + "/nope"}, []string{"--key-redaction-secret-file", "nope"}},
		{"two sources", map[string]string{secretEnv: testSecret}, []string{"--key-redaction", "hash", "--key-redaction-secret-file", good}, []string{"given twice", secretEnv}},
		{"old variable", map[string]string{oldSaltEnv: testSecret}, []string{"--key-redaction", "hash"}, []string{oldSaltEnv, "no longer read", secretEnv}},
		{"file without hash", nil, []string{"--key-redaction-secret-file", good}, []string{"did you mean --key-redaction hash"}},
		{"unknown mode", nil, []string{"--key-redaction", "rot13"}, []string{"--key-redaction", "hash-unsalted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(secretEnv, "")
			t.Setenv(oldSaltEnv, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			for _, cmd := range [][]string{{"replay"}, {"demo"}, {"watch", "--table", "Orders"}} {
				args := append(append(append([]string{}, cmd...), tc.args...), "testdata/hot.json")
				if cmd[0] != "replay" {
					args = args[:len(args)-1]
				}
				code, out, errs := hotkeys(t, "", args...)
				if code != exitUsage || out != "" {
					t.Errorf("hotkeys %v: exit %d, stdout %q; want 2 and nothing analysed", args, code, out)
				}
				for _, w := range tc.want {
					if !strings.Contains(errs, w) {
						t.Errorf("hotkeys %v: stderr %q does not say %q", args, errs, w)
					}
				}
				if strings.Contains(errs, testSecret) {
					t.Errorf("hotkeys %v: stderr prints the secret: %q", args, errs)
				}
			}
		})
	}
	// The secret from a file, with its trailing newline, is the same secret.
	t.Setenv(secretEnv, "")
	code, fromFile, errs := hotkeys(t, "", "replay", "--format", "json", "--key-redaction", "hash", "--key-redaction-secret-file", good, "testdata/hot.json")
	if code != exitOK {
		t.Fatalf("secret file: exit %d: %s", code, errs)
	}
	t.Setenv(secretEnv, testSecret)
	_, fromEnv, _ := hotkeys(t, "", "replay", "--format", "json", "--key-redaction", "hash", "testdata/hot.json")
	if fromFile != fromEnv || !strings.Contains(fromEnv, `"h:`) {
		t.Errorf("the same secret from a file and from $%s gives different reports:\n%s\n%s", secretEnv, fromFile, fromEnv)
	}
}

// TestHashKeyMatchesTheReports: hash-key prints what the reports show for
// the same key and secret, for S, N in any spelling, and B.
func TestHashKeyMatchesTheReports(t *testing.T) {
	t.Setenv(secretEnv, testSecret)
	code, out, errs := hotkeys(t, "", "replay", "--format", "json", "--key-redaction", "hash", "testdata/hot.json")
	if code != exitOK {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	r := decodeReport(t, out)
	if len(r.Windows) != 1 || len(r.Windows[0].HotKeys) != 1 {
		t.Fatalf("want one window with one hot key (OPS_LOG): %s", out)
	}
	code, got, errs := hotkeys(t, "", "hash-key", "OPS_LOG")
	if want := r.Windows[0].HotKeys[0].Key + "\n"; code != exitOK || got != want {
		t.Errorf("hash-key OPS_LOG = %q (exit %d, %s), the report shows %q", got, code, errs, want)
	}

	_, n, _ := hotkeys(t, "", "hash-key", "--type", "N", "42", "42.0", "4.2e1", "+42")
	if lines := strings.Split(strings.TrimSpace(n), "\n"); len(lines) != 4 || lines[0] != lines[1] || lines[0] != lines[2] || lines[0] != lines[3] {
		t.Errorf("the spellings of N 42 hash differently: %q", n)
	}
	_, s, _ := hotkeys(t, "", "hash-key", "42")
	if s == n[:len(s)] {
		t.Error("S 42 and N 42 hash alike")
	}
	_, b, _ := hotkeys(t, "", "hash-key", "--type", "B", "T1BTX0xPRw==")
	// B keys hash their decoded bytes (as the decoder keeps them) and
	// their type.
	h, err := redact.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	if want := h.Key('B', []byte("OPS_LOG")) + "\n"; b != want || b == got {
		t.Errorf("hash-key --type B base64(OPS_LOG) = %q, want %q (and not S OPS_LOG's %q)", b, want, got)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hash-key"}, "KEY"},
		{[]string{"hash-key", "--type", "X", "k"}, "--type"},
		{[]string{"hash-key", "--type", "N", "abc"}, "--type N"},
		{[]string{"hash-key", "--type", "B", "%%%"}, "base64"},
		{[]string{"hash-key", "--key-redaction", "none", "k"}, "hashes nothing"},
	} {
		if code, _, errs := hotkeys(t, "", tc.args...); code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("hotkeys %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	t.Setenv(secretEnv, "")
	if code, out, errs := hotkeys(t, "", "hash-key", "OPS_LOG"); code != exitUsage || out != "" || !strings.Contains(errs, secretEnv) {
		t.Errorf("hash-key without a secret: exit %d, %q, %q; want 2, nothing printed, and how to give one", code, out, errs)
	}
	if code, out, errs := hotkeys(t, "", "hash-key", "--key-redaction", "hash-unsalted", "OPS_LOG"); code != exitOK || out == got || !strings.HasPrefix(out, "h:") || !strings.Contains(errs, unsaltedNote) {
		t.Errorf("hash-key --key-redaction hash-unsalted: exit %d, %q, stderr %q; want a stand-in and the note that it is reversible", code, out, errs)
	}
	// Every command says so on stderr when it hashes without a secret.
	code, out, errs = hotkeys(t, "", "replay", "--key-redaction", "hash-unsalted", "testdata/hot.json")
	if code != exitOK || strings.Contains(out, "OPS_LOG") || !strings.Contains(errs, unsaltedNote) {
		t.Errorf("replay --key-redaction hash-unsalted: exit %d, stderr %q; want the report redacted and the note", code, errs)
	}
}

// TestInternalErrorExitStatus: a bug of ours exits 3 with its stack and a
// plea to report it, never 1 (the input's fault) or 0.
func TestInternalErrorExitStatus(t *testing.T) {
	var errb bytes.Buffer
	ie := &detector.InternalError{Table: "T", EventID: "e1", Cause: "boom", Stack: []byte("goroutine 1 [running]:\nmain.f()")}
	if code := exitCode(fmt.Errorf("replaying: %w", ie), &errb); code != exitInternal {
		t.Errorf("exit %d, want %d", code, exitInternal)
	}
	for _, want := range []string{"internal error", "boom", "a bug in hotkeys", "goroutine 1 [running]"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// decodeJSON decodes the JSON s into v, or fails the test.
func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}
