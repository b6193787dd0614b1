package heatmap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

func TestColour(t *testing.T) {
	const limit = 1000
	tests := []struct {
		kind RowKind
		cell Cell
		want string
	}{
		{KeyRow, Cell{}, UnlistedColour},
		{shardRow, Cell{}, emptyColour},
		{othersRow, Cell{}, emptyColour},
		{KeyRow, Cell{Listed: true, Peak: 0}, "#ffffcc"},
		{KeyRow, Cell{Listed: true, Peak: 99}, "#ffffcc"},
		{KeyRow, Cell{Listed: true, Peak: 100}, "#ffeda0"},
		{KeyRow, Cell{Listed: true, Peak: 499}, "#feb24c"},
		{KeyRow, Cell{Listed: true, Peak: 799}, "#fc4e2a"},
		{KeyRow, Cell{Listed: true, Peak: 800}, "#e31a1c"}, // where the detector calls a key critical
		{shardRow, Cell{Listed: true, Peak: 999}, "#e31a1c"},
		{shardRow, Cell{Listed: true, Peak: 1000}, "#800026"}, // at the limit
		{KeyRow, Cell{Listed: true, Peak: 1e9}, "#800026"},
		{othersRow, Cell{Listed: true, Share: 0.1, Peak: 5000}, "#eff3ff"}, // by share, never by rate
		{othersRow, Cell{Listed: true, Share: 0.95}, "#3182bd"},
	}
	for _, tc := range tests {
		if got := CellColour(tc.kind, tc.cell, limit); got != tc.want {
			t.Errorf("CellColour(%s, %+v) = %s, want %s", tc.kind, tc.cell, got, tc.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	tests := map[string]string{
		"DATE#2026-11-22":       "DATE#2026-11-22",
		"naïve ✓ 東京":            "naïve ✓ 東京",
		"a\x00b":                `a\u0000b`,
		"tab\there\n":           `tab\u0009here\u000a`,
		"bad\xffutf8":           `bad\xffutf8`,
		"rtl\u202eoverride":     `rtl\u202eoverride`,
		"<b>\"a&b'</b>":         "<b>\"a&b'</b>", // markup is escaped on output, not here
		strings.Repeat("é", 40): strings.Repeat("é", 40),
	}
	for in, want := range tests {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := truncate(strings.Repeat("é", 40), 5), "éééé…"; got != want {
		t.Errorf("truncate: %q, want %q", got, want)
	}
	if got, want := truncateLeft("shardId-00000001763769600000-a1b2c3d4", 10), "…-a1b2c3d4"; got != want {
		t.Errorf("truncateLeft: %q, want %q", got, want)
	}
}

// selfContained fails the test if the page could run code or fetch
// anything.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<script", "http:", "https:", "@import", "url(", "<link", "<img", "src=", "href=", "on" + "mouseover", "javascript:"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func TestEscaping(t *testing.T) {
	evil := "<b>\"a&b'</b>\x00"
	b := New(Options{MinShare: -1})
	b.Add(minute(0, 100, 0, []report.KeyReport{key(evil, 90, 90, 50, report.Warning)}))
	var buf bytes.Buffer
	if err := WriteHTML(&buf, b.Maps()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	selfContained(t, page)
	if strings.Contains(page, "<b>") || strings.Contains(page, "\x00") {
		t.Errorf("the key's markup or NUL reached the page raw")
	}
	// The label, the row title, the cell title and the diagnosis all
	// carry it escaped.
	if got, want := strings.Count(page, `&lt;b&gt;&#34;a&amp;b&#39;&lt;/b&gt;\u0000`), 5; got != want {
		t.Errorf("escaped key appears %d times, want %d (label, row title, row background, cell, diagnosis):\n%s", got, want, page)
	}
}

// TestRedaction runs keys that are personal data and write-sharded keys
// through the detector with hashing on: nothing of them may reach the page.
func TestRedaction(t *testing.T) {
	cfg := detector.DefaultConfig()
	h, err := redact.New([]byte("pepper-pepper-pepper"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Redactor = h
	cfg.Lateness = 0
	det, err := detector.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw := []string{"alice@example.com", "ORDERS#SHARD_0", "ORDERS#SHARD_1", "ORDERS#SHARD_2"}
	var reps []report.Report
	for sec := range 180 {
		add := func(k string, n int) {
			for range n {
				r := record.Record{Table: "People", Shard: "shardId-1", Time: t0.Add(time.Duration(sec) * time.Second),
					PartitionKey: ddb.Key{Type: ddb.String, Value: []byte(k)}, WCU: 1, WCUExact: true}
				if err := det.Add(&r); err != nil {
					t.Fatal(err)
				}
			}
		}
		add(raw[0], 500)
		add(raw[1], 400) // uneven shards: a flagged logical key ORDERS#<shard>
		add(raw[2], 40)
		add(raw[3], 40)
		add(fmt.Sprintf("bob-%d@example.com", sec), 1)
		reps = append(reps, det.Flush()...)
	}
	reps = append(reps, det.FlushAll()...)
	var logical bool
	for _, r := range reps {
		for _, k := range r.HotKeys {
			logical = logical || len(k.Shards) > 0
		}
	}
	if !logical {
		t.Fatal("the scenario flagged no logical sharded key: it tests less than it says")
	}
	b := New(Options{})
	b.Add(reps...)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, b.Maps()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	selfContained(t, page)
	for _, s := range []string{"alice", "example", "ORDERS", "SHARD_", "bob"} {
		if strings.Contains(page, s) {
			t.Errorf("redacted page contains %q", s)
		}
	}
	var names []string
	for _, r := range b.Maps()[0].Rows {
		if r.Kind == KeyRow {
			names = append(names, r.Name)
		}
	}
	if len(names) != 4 {
		t.Errorf("key rows %q: want the 4 heavy keys", names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "h:") || !strings.Contains(page, ">"+n+"</text>") {
			t.Errorf("key row %q: want a hashed key, labelled in the page", n)
		}
	}
}

// TestADayOfWindows: 24 h of 1-minute windows, 500 keys (some at DynamoDB's
// 2,048-byte maximum), 24 stream shards, flagged keys with diagnoses in
// every window: the page stays under 3 MB and its rows and columns within
// their caps.
func TestADayOfWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := New(Options{})
	keys := make([]string, 500)
	for i := range keys {
		keys[i] = fmt.Sprintf("USER#%08d", i)
		if i%50 == 7 {
			keys[i] = strings.Repeat(string(rune('a'+i%26)), 2048)
		}
	}
	diagnosis := strings.Repeat("A diagnosis of about three hundred characters, as the detector writes them. ", 4)
	for m := range 1440 {
		var top []report.KeyReport
		for i := range 10 {
			k := keys[int(rng.ExpFloat64()*60)%len(keys)]
			sev := report.None
			if i < 2 {
				sev = report.Warning
			}
			kr := key(k, 1500, 1800, float64(rng.IntN(1200)), sev)
			kr.Diagnosis = ""
			if sev != report.None {
				kr.Diagnosis = diagnosis
			}
			top = append(top, kr)
		}
		var shards []report.ShardReport
		for s := range 24 {
			shards = append(shards, report.ShardReport{Shard: fmt.Sprintf("shardId-00000001763769600000-%08x", s), WCU: 1000, PeakWCUPerSecond: float64(rng.IntN(1100))})
		}
		b.Add(minute(m, 20000, 50, top, shards...))
	}
	maps := b.Maps()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, maps); err != nil {
		t.Fatal(err)
	}
	m := maps[0]
	if got, want := []int{len(m.Columns), m.Bucket, len(m.Rows), m.HiddenShards}, []int{240, 6, defaultMaxKeys + 1 + defaultMaxShards, 24 - defaultMaxShards}; !cmp.Equal(got, want) {
		t.Errorf("columns, bucket, rows, hidden shards = %v, want %v", got, want)
	}
	const maxSize = 3 << 20
	if buf.Len() > maxSize {
		t.Errorf("page of %d bytes: over %d", buf.Len(), maxSize)
	}
	t.Logf("a day of 1-minute windows: %d bytes", buf.Len())
	if out := os.Getenv("HEATMAP_DAY_OUT"); out != "" {
		os.WriteFile(out, buf.Bytes(), 0o644)
	}
	if w, _ := m.Size(); w > 1400 {
		t.Errorf("page %d px wide: want it to fit a laptop screen", w)
	}
}
