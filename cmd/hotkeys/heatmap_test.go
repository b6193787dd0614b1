package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/headless"
)

// demoHeatmap runs the demo with --heatmap and returns the page, and the
// map laid out again from the reports the same run printed.
func demoHeatmap(t *testing.T, args ...string) (string, []byte, []*heatmap.Map) {
	t.Helper()
	code, out, errs, html := demo(t, true, append([]string{"--format", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	page := filepath.Join(t.TempDir(), "demo.html")
	if err := os.WriteFile(page, html, 0o600); err != nil {
		t.Fatal(err)
	}
	b := heatmap.New(heatmap.Options{PartitionLimit: detector.DefaultPartitionLimit})
	b.Add(decodeReport(t, out).Windows...)
	maps := b.Maps()
	var again bytes.Buffer
	if err := heatmap.WriteHTML(&again, maps); err != nil {
		t.Fatal(err)
	}
	// The page draws exactly the reports the run printed.
	if !bytes.Equal(html, again.Bytes()) {
		t.Errorf("--heatmap page (%d bytes) differs from the page drawn from the printed reports (%d bytes)", len(html), again.Len())
	}
	return page, html, maps
}

// TestDemoHeatmapInBrowser renders the demo's heatmap in headless Chromium
// and checks the screenshot's pixels at known cells: the time bucket's
// critical minute is drawn in the critical band's red, a cold write shard
// of ORDERS in the palest band, and a minute where DATE# wrote nothing
// in the grey of unlisted cells.
func TestDemoHeatmapInBrowser(t *testing.T) {
	page, _, maps := demoHeatmap(t)
	// The table first, then its index GSI1 on a map of its own: an index's
	// partitions are not the table's.
	if len(maps) != 2 || maps[0].Table != "Shop" || maps[0].Index != "" || maps[1].Table != "Shop" || maps[1].Index != "GSI1" {
		t.Fatalf("maps %v, want the table Shop, then its index GSI1", mapNames(maps))
	}
	if r := maps[1].Rows[0]; r.Name != "OPS_LOG" {
		t.Errorf("GSI1's heaviest row is %q, want OPS_LOG", r.Name)
	}
	m := maps[0]
	w, h := m.Size()
	shot := headless.Screenshot(t, page, w, h)

	row := func(name string) int {
		for i, r := range m.Rows {
			if r.Name == name {
				return i
			}
		}
		t.Fatalf("no row %q", name)
		return -1
	}
	checks := []struct {
		what     string
		row, col int
		want     string
	}{
		{"DATE#2026-11-22 in its minute (~990 WCU/s, critical)", row("DATE#2026-11-22"), 2, "#e31a1c"},
		{"EVENTS#SHARD_0 in its minute (~850 WCU/s, critical)", row("EVENTS#SHARD_0"), 5, "#e31a1c"},
		{"ORDERS#SHARD_1 in its minute (~60 WCU/s)", row("ORDERS#SHARD_1"), 4, "#ffffcc"},
		{"DATE#2026-11-22 in the first minute (no writes)", row("DATE#2026-11-22"), 0, heatmap.UnlistedColour},
	}
	for _, c := range checks {
		cell := m.Rows[c.row].Cells[c.col]
		if got := heatmap.CellColour(m.Rows[c.row].Kind, cell, m.Limit); got != c.want {
			t.Errorf("%s: the layout colours it %s, want %s (cell %+v)", c.what, got, c.want, cell)
		}
		r := m.Cell(c.row, c.col)
		centre := image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
		if got := shot.At(centre.X, centre.Y); !near(got, hex(t, c.want)) {
			t.Errorf("%s: pixel %v is %v, want %s", c.what, centre, got, c.want)
		}
	}
	// Hot reads hot and cold does not: red dominates at the hot cell only.
	hot, cold := rgb(shot.At(centreOf(m.Cell(checks[0].row, 2)))), rgb(shot.At(centreOf(m.Cell(checks[2].row, 4))))
	if !(hot[0] > 200 && hot[1] < 60) || cold[1] < 200 {
		t.Errorf("hot cell %v should be red, cold cell %v pale", hot, cold)
	}
}

// TestDemoHeatmapRedacted: with --key-redaction hash, no demo key reaches
// the page, not even a logical sharded key's base.
func TestDemoHeatmapRedacted(t *testing.T) {
	t.Setenv(secretEnv, testSecret)
	_, html, maps := demoHeatmap(t, "--key-redaction", "hash")
	for _, leak := range []string{"OPS_LOG", "STATUS#", "DATE#", "COUNTER#", "ORDERS", "EVENTS", "SHARD_", "USER#", "SESSION#"} {
		if bytes.Contains(html, []byte(leak)) {
			t.Errorf("redacted heatmap contains %q", leak)
		}
	}
	var keyRows int
	for _, r := range maps[0].Rows {
		if r.Kind == heatmap.KeyRow {
			keyRows++
			if !strings.HasPrefix(r.Name, "h:") {
				t.Errorf("key row %q is not redacted", r.Name)
			}
		}
	}
	if keyRows < 6 {
		t.Errorf("%d key rows: want at least the demo's 6 hot keys", keyRows)
	}
}

func TestReplayHeatmap(t *testing.T) {
	page := filepath.Join(t.TempDir(), "hot.html")
	code, _, errs := hotkeys(t, "", "replay", "--heatmap", page, "testdata/hot.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(">OPS_LOG</text>")) {
		t.Errorf("replay's heatmap has no OPS_LOG row:\n%s", html)
	}
	code, _, errs = hotkeys(t, "", "replay", "--heatmap", filepath.Join(t.TempDir(), "no", "such", "dir.html"), "testdata/hot.json")
	if code != exitInputError || !strings.Contains(errs, "--heatmap") {
		t.Errorf("unwritable --heatmap: exit %d, stderr %q; want 1 and a message naming --heatmap", code, errs)
	}
}

func centreOf(r image.Rectangle) (int, int) { return (r.Min.X + r.Max.X) / 2, (r.Min.Y + r.Max.Y) / 2 }

func hex(t *testing.T, s string) color.RGBA {
	t.Helper()
	var c color.RGBA
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &c.R, &c.G, &c.B); err != nil {
		t.Fatalf("colour %q: %v", s, err)
	}
	c.A = 255
	return c
}

func rgb(c color.Color) [3]int {
	r, g, b, _ := c.RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// near allows a few levels of difference per channel: the browser may
// convert colours through a profile.
func near(got color.Color, want color.RGBA) bool {
	g := rgb(got)
	w := [3]int{int(want.R), int(want.G), int(want.B)}
	for i := range g {
		if d := g[i] - w[i]; d < -4 || d > 4 {
			return false
		}
	}
	return true
}

func mapNames(maps []*heatmap.Map) []string {
	var names []string
	for _, m := range maps {
		names = append(names, m.Table+"/"+m.Index)
	}
	return names
}
