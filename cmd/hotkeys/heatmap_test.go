package main

import (
	"bytes"
	"crypto/sha256"
	hexenc "encoding/hex"
	"fmt"
	"image"
	"image/color"
	stdpng "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/headless"
	"github.com/hotkeys-dev/hotkeys/report"
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

// TestDemoHeatmapNothingClipped renders the demo's whole page, both maps,
// at the size `make heatmap-png` takes it (every column), and checks that
// no line of text runs into a map's right edge: the last margin of every
// map is blank where its title, subtitle and notes are (a one-column map
// is narrower than its subtitle unless sized for it).
func TestDemoHeatmapNothingClipped(t *testing.T) {
	page, html, maps := demoHeatmap(t)
	notClipped(t, page, html, maps)
	// A map of one window of a table whose name is long: its title is
	// wider than its grid and legend.
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b := heatmap.New(heatmap.Options{PartitionLimit: detector.DefaultPartitionLimit})
	b.Add(report.Report{Window: report.Window{Table: strings.Repeat("CustomerOrderHistory", 3), Index: "byCustomerAndCreationDate", Start: start, End: start.Add(time.Minute)},
		Totals: report.Totals{Records: 1, WCU: 1}, DistinctKeys: 1, HotKeys: []report.KeyReport{}, Shards: []report.ShardReport{},
		TopKeys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "CUSTOMER#0042", Type: "S", WCU: 1, WCULower: 1, WCUUpper: 1, Share: 1, PeakWCUPerSecond: 1}}}})
	var narrow bytes.Buffer
	if err := heatmap.WriteHTML(&narrow, b.Maps()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "narrow.html")
	if err := os.WriteFile(file, narrow.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	notClipped(t, file, narrow.Bytes(), b.Maps())
}

// notClipped renders page (whose HTML is html) whole and checks that no
// map's text runs into its right edge.
func notClipped(t *testing.T, page string, html []byte, maps []*heatmap.Map) {
	t.Helper()
	w, h, ok := headless.PageSize(html)
	if !ok {
		t.Fatal("the page draws no map")
	}
	shot := headless.Screenshot(t, page, w, h)
	top := 0
	for _, m := range maps {
		mw, mh := m.Size()
		footY := top + mh - 48 // heatmap's footer: the notes' two lines
		for _, band := range [][2]int{{top, top + 56}, {footY, top + mh}} {
			for y := band[0]; y < band[1]; y++ {
				for x := mw - 12; x < mw; x++ {
					if c := rgb(shot.At(x, y)); c[0] < 200 && c[1] < 200 && c[2] < 200 {
						t.Fatalf("map %s: a dark pixel %v at (%d, %d), in the last 12 px of its %d px: its text is clipped", m.Table+" "+m.Index, c, x, y, mw)
					}
				}
			}
		}
		top += mh
	}
}

// TestDocsHeatmapIsCurrent: docs/heatmap.png is the demo's page as it is
// now, whole: it records the SHA-256 of the page it shows (`make
// heatmap-png` writes it) and has the page's size, every column in it.
// Pixels are not compared: they depend on the fonts of the machine that
// took the picture.
func TestDocsHeatmapIsCurrent(t *testing.T) {
	_, html, _ := demoHeatmap(t)
	png, err := os.ReadFile("../../docs/heatmap.png")
	if err != nil {
		t.Fatal(err)
	}
	text, err := headless.Text(png)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(html)
	if got := text["hotkeys-page-sha256"]; got != hexenc.EncodeToString(sum[:]) {
		t.Errorf("docs/heatmap.png is of a page with SHA-256 %q, the demo's is now %x: run `make heatmap-png`", got, sum)
	}
	cfg, err := stdpng.DecodeConfig(bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if w, h, _ := headless.PageSize(html); cfg.Width != w || cfg.Height != h {
		t.Errorf("docs/heatmap.png is %d×%d, the page %d×%d: run `make heatmap-png`", cfg.Width, cfg.Height, w, h)
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
	// A path that cannot be written is refused before any work, naming it
	// (not a temporary file), and nothing is printed.
	dir := t.TempDir()
	for _, c := range []struct{ path, says string }{
		{filepath.Join(dir, "no", "such", "dir.html"), "its directory " + filepath.Join(dir, "no", "such") + " does not exist"},
		{dir, "is a directory: name the file to write"},
	} {
		code, out, errs := hotkeys(t, "", "replay", "--heatmap", c.path, "testdata/hot.json")
		if want := "hotkeys: --heatmap " + c.path + ": " + c.says + "\n"; code != exitUsage || out != "" || errs != want {
			t.Errorf("unwritable --heatmap: exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, out, errs, want)
		}
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
