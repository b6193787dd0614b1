package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestDemoTableGolden: the demo's table output, whole, as a terminal shows
// it with the narration of standard error: each minute's narration, then
// its onsets, then its window's report, findings first, every line within
// 100 columns and none ending in a space; the run ends with its summary.
func TestDemoTableGolden(t *testing.T) {
	code, out, _, _ := demo(t, false)
	both := demoBoth(t)
	golden.Equal(t, "testdata/golden/demo-table.golden", fmt.Appendf(nil, "exit %d\n%s", code, both))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		if runes(l) > defaultWidth || strings.HasSuffix(l, " ") {
			t.Errorf("line %d is %d columns, or ends in a space: %q", i+1, runes(l), l)
		}
	}
	t.Logf("the demo's table output: %d lines, the longest %d columns", len(lines), slices.Max(runesOf(lines)))

	// Stream order: minute i's narration, then its onsets, then its
	// window's report, then minute i+1's narration.
	all := strings.Split(both, "\n")
	at := func(prefix string) int {
		i := slices.IndexFunc(all, func(l string) bool { return strings.HasPrefix(l, prefix) })
		if i < 0 {
			t.Fatalf("no line %q in:\n%s", prefix, both)
		}
		return i
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for m := range demoPhases {
		told := at(fmt.Sprintf("hotkeys demo: minute %d:", m+1))
		report := at("── Shop · " + start.Add(time.Duration(m)*time.Minute).Format("2006-01-02 15:04:05"))
		if told > report || m > 0 && told < at("── Shop · "+start.Add(time.Duration(m-1)*time.Minute).Format("2006-01-02 15:04:05")) {
			t.Errorf("minute %d is told at line %d, its report at %d: out of order", m+1, told, report)
		}
		for i, l := range all {
			if strings.HasPrefix(l, "▲ onset "+start.Add(time.Duration(m)*time.Minute).Format("2006-01-02 15:04")) && (i < told || i > report) {
				t.Errorf("an onset of minute %d at line %d, not between its narration (%d) and its report (%d): %s", m+1, i, told, report, l)
			}
		}
	}
	if !strings.HasPrefix(all[at("── SUMMARY")], "── SUMMARY · 9 windows") {
		t.Errorf("the summary does not count the 9 windows: %s", all[at("── SUMMARY")])
	}
}

func runesOf(lines []string) []int {
	n := make([]int, len(lines))
	for i, l := range lines {
		n[i] = runes(l)
	}
	return n
}

// onsetLine is how the table output prints an onset.
var onsetLine = regexp.MustCompile(`^▲ onset (\S+ \S+) UTC  (\S+) \(([^)]*)\)  ≥ (\S+) WCU/s  pattern so far: (\S+)$`)

// TestDemoOnsetsAgree: the demo's onsets, in its table output and in its
// JSON, are the same, in stream order, each within the window it belongs
// to, with the pattern that window reports at its close for the key (a
// write shard's: its logical key's).
func TestDemoOnsetsAgree(t *testing.T) {
	_, out, _, _ := demo(t, false)
	_, js, _, _ := demo(t, true, "--format", "json")
	var doc struct {
		Windows []report.Report `json:"windows"`
		Onsets  []report.Onset  `json:"onsets"`
	}
	decodeJSON(t, js, &doc)
	var printed []string
	for l := range strings.SplitSeq(out, "\n") {
		if m := onsetLine.FindStringSubmatch(l); m != nil {
			printed = append(printed, m[2]+" "+m[5]+" "+m[1])
		} else if strings.HasPrefix(l, "▲") {
			t.Errorf("an onset line of another shape: %q", l)
		}
	}
	var fromJSON []string
	for i, o := range doc.Onsets {
		fromJSON = append(fromJSON, o.Key.Key+" "+string(o.Key.Pattern)+" "+o.Second.Format("2006-01-02 15:04:05"))
		if i > 0 && o.Second.Before(doc.Onsets[i-1].Second) {
			t.Errorf("onset %d (%v) comes after one at %v", i, o.Second, doc.Onsets[i-1].Second)
		}
		if o.Second.Before(o.Start) || !o.Second.Before(o.End) {
			t.Errorf("onset of %s at %v, outside its window %v–%v", o.Key.Key, o.Second, o.Start, o.End)
		}
		w := slices.IndexFunc(doc.Windows, func(w report.Report) bool { return w.Window == o.Window })
		if w < 0 {
			t.Errorf("onset of %s: no window %+v reported", o.Key.Key, o.Window)
			continue
		}
		k := slices.IndexFunc(doc.Windows[w].HotKeys, func(k report.KeyReport) bool { return k.Key == o.Key.Key })
		if k < 0 {
			t.Errorf("onset of %s: its window does not flag it", o.Key.Key)
			continue
		}
		final := doc.Windows[w].HotKeys[k]
		// The pattern is the window's; the shard count is what the
		// window so far needed (more data may raise it).
		if final.Pattern != o.Key.Pattern || final.Severity != report.Critical || o.Key.RecommendedShards > final.RecommendedShards {
			t.Errorf("onset of %s: %s, %d shards; its window reports %s, %s, %d shards", o.Key.Key, o.Key.Pattern, o.Key.RecommendedShards,
				final.Severity, final.Pattern, final.RecommendedShards)
		}
	}
	want := []string{
		"DATE#2026-11-22 time_bucket 2026-11-22 10:02:00",
		"EVENTS#SHARD_0 sharded_too_few 2026-11-22 10:05:00",
		"EVENTS#SHARD_1 sharded_too_few 2026-11-22 10:05:00",
		"CART#checkout single_key 2026-11-22 10:06:00",
		"OPS_LOG constant_key 2026-11-22 10:07:00",
	}
	if !slices.Equal(printed, want) || !slices.Equal(fromJSON, want) {
		t.Errorf("onsets printed\n%s\nin the JSON\n%s\nwant\n%s", strings.Join(printed, "\n"), strings.Join(fromJSON, "\n"), strings.Join(want, "\n"))
	}
}

// TestREADMEQuotesTheDemo: README's excerpt of the demo's output is the
// output: each of its lines is a line the demo prints, in the same order
// (its "⋮" lines stand for what it leaves out).
func TestREADMEQuotesTheDemo(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "<!-- the demo's output: TestREADMEQuotesTheDemo -->\n```\n")
	if !ok {
		t.Fatal("README has no excerpt of the demo's output after the marker")
	}
	excerpt, _, _ := strings.Cut(after, "```\n")
	_, out, _, _ := demo(t, false)
	lines := strings.Split(out, "\n")
	next, quoted := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(excerpt, "\n"), "\n") {
		if strings.TrimSpace(l) == "⋮" {
			continue
		}
		i := slices.Index(lines[next:], l)
		if i < 0 {
			t.Errorf("README quotes a line the demo does not print (after its line %d):\n%q", next, l)
			continue
		}
		next += i + 1
		quoted++
	}
	if quoted < 10 {
		t.Errorf("README quotes %d lines of the demo: the excerpt is gone", quoted)
	}
}
