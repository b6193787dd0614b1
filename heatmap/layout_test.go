package heatmap

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func key(name string, lower, upper uint64, peak float64, sev report.Severity) report.KeyReport {
	k := report.KeyReport{KeyFigures: report.KeyFigures{Key: name, Type: "S", WCU: upper, WCULower: lower, WCUUpper: upper, PeakWCUPerSecond: peak, Severity: sev}}
	if sev != report.None {
		k.Pattern, k.Diagnosis = report.PatternSingleKey, name+" is hot"
	}
	return k
}

// minute is the report of the m-th minute of the run.
func minute(m int, wcu, ceiling uint64, top []report.KeyReport, shards ...report.ShardReport) report.Report {
	start := t0.Add(time.Duration(m) * time.Minute)
	return report.Report{
		Window:            report.Window{Table: "Shop", Start: start, End: start.Add(time.Minute)},
		Totals:            report.Totals{WCU: wcu},
		TopKeys:           top,
		HotKeys:           []report.KeyReport{},
		OtherKeysWCUUpper: ceiling,
		Shards:            shards,
	}
}

// TestLayout lays out three windows with a gap, a key missing from one
// window (bounded by that window's ceiling), a logical sharded key (not a
// row), and caps that leave a key and a shard out.
func TestLayout(t *testing.T) {
	hot := key("HOT", 900, 1000, 950, report.Critical)
	w0 := minute(0, 2000, 40, []report.KeyReport{hot, key("A", 300, 320, 20, report.None), key("B", 50, 60, 5, report.None)},
		report.ShardReport{Shard: "s1", WCU: 1500, PeakWCUPerSecond: 990}, report.ShardReport{Shard: "s2", WCU: 500, PeakWCUPerSecond: 30})
	w0.HotKeys = []report.KeyReport{hot, {KeyFigures: report.KeyFigures{Key: "X#<shard>", Type: "S", WCULower: 1, WCUUpper: 2}, Shards: []report.ShardedKeyPart{{Key: "X#SHARD_0", WCU: 2}}}}
	w2 := minute(2, 600, 10, []report.KeyReport{key("A", 400, 400, 30, report.Warning)},
		report.ShardReport{Shard: "s2", WCU: 600, PeakWCUPerSecond: 50})

	b := New(Options{PartitionLimit: 1000, MaxKeys: 2, MaxShards: 1, MinShare: -1})
	b.Add(w2, w0) // any order
	got := b.Maps()

	col := func(minute int, windows int, wcu uint64) Column {
		s := t0.Add(time.Duration(minute) * time.Minute)
		return Column{Start: s, End: s.Add(time.Minute), Windows: windows, WCU: wcu}
	}
	want := []*Map{{
		Table: "Shop", Window: time.Minute, Bucket: 1, Limit: 1000,
		Columns:    []Column{col(0, 1, 2000), col(1, 0, 0), col(2, 1, 600)},
		HiddenKeys: 1, HiddenShards: 1,
		Rows: []Row{
			// Ranked by what they certainly wrote: HOT 900, A 700, B 50 (no room).
			{Kind: KeyRow, Name: "HOT", Type: "S", WCULower: 900, WCUUpper: 1010, Flagged: 1, Cells: []Cell{
				{Listed: true, WCULower: 900, WCUUpper: 1000, Share: 0.5, Peak: 950, Severity: report.Critical, Pattern: report.PatternSingleKey, Diagnosis: "HOT is hot"},
				{},
				{WCUUpper: 10, Share: 10.0 / 600},
			}},
			{Kind: KeyRow, Name: "A", Type: "S", WCULower: 700, WCUUpper: 720, Flagged: 1, Cells: []Cell{
				{Listed: true, WCULower: 300, WCUUpper: 320, Share: 0.16, Peak: 20},
				{},
				{Listed: true, WCULower: 400, WCUUpper: 400, Share: 400.0 / 600, Peak: 30, Severity: report.Warning, Pattern: report.PatternSingleKey, Diagnosis: "A is hot"},
			}},
			// Others: the column's WCU less the rows' bounds.
			{Kind: othersRow, WCULower: 680 + 190, WCUUpper: 800 + 200, Cells: []Cell{
				{Listed: true, WCULower: 2000 - 1000 - 320, WCUUpper: 2000 - 900 - 300, Share: 680.0 / 2000},
				{},
				{Listed: true, WCULower: 600 - 10 - 400, WCUUpper: 600 - 0 - 400, Share: 190.0 / 600},
			}},
			// s1 carried 1,500 WCU, s2 1,100: only the busier one has a row.
			{Kind: shardRow, Name: "s1", WCULower: 1500, WCUUpper: 1500, Cells: []Cell{
				{Listed: true, WCULower: 1500, WCUUpper: 1500, Share: 0.75, Peak: 990}, {}, {},
			}},
		},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// TestSameSpanAddsUp: two reports of one span (two readers of the stream)
// add up, and a key only one of them listed is bounded by the other's
// ceiling.
func TestSameSpanAddsUp(t *testing.T) {
	b := New(Options{MinShare: -1})
	b.Add(minute(0, 100, 5, []report.KeyReport{key("A", 50, 60, 10, report.None)}),
		minute(0, 200, 7, []report.KeyReport{key("B", 80, 90, 10, report.None), key("A", 20, 20, 4, report.None)}),
		minute(0, 10, 3, nil))
	m := b.Maps()[0]
	got := map[string][2]uint64{}
	for _, r := range m.Rows {
		if r.Kind == KeyRow {
			got[r.Name] = [2]uint64{r.Cells[0].WCULower, r.Cells[0].WCUUpper}
		}
	}
	want := map[string][2]uint64{"A": {70, 60 + 20 + 3}, "B": {80, 5 + 90 + 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if m.Columns[0].WCU != 310 || m.Columns[0].Windows != 1 {
		t.Errorf("column %+v: want WCU 310 in one window", m.Columns[0])
	}
}

// TestBucketing: a day of 1-minute windows fits in MaxColumns columns of 6
// minutes, aligned to multiples of 6 minutes, each adding up its windows.
func TestBucketing(t *testing.T) {
	b := New(Options{MinShare: -1})
	start := 3 // 10:03: the first column starts at 10:00
	for m := start; m < start+1440; m++ {
		b.Add(minute(m, 10, 1, []report.KeyReport{key("A", 2, 3, 1, report.None)}))
	}
	m := b.Maps()[0]
	if m.Bucket != 6 || len(m.Columns) != 241 {
		t.Fatalf("bucket %d, %d columns: want 6 and 241 (1,440 windows from 10:03, in 6-minute columns from 10:00)", m.Bucket, len(m.Columns))
	}
	first, last := m.Columns[0], m.Columns[len(m.Columns)-1]
	wantFirst := Column{Start: t0, End: t0.Add(6 * time.Minute), Windows: 3, WCU: 30}
	wantLast := Column{Start: t0.Add(1440 * time.Minute), End: t0.Add(1446 * time.Minute), Windows: 3, WCU: 30}
	if diff := cmp.Diff([]Column{wantFirst, wantLast}, []Column{first, last}); diff != "" {
		t.Errorf("edge columns (-want +got):\n%s", diff)
	}
	a := m.Rows[0]
	if diff := cmp.Diff(Cell{Listed: true, WCULower: 12, WCUUpper: 18, Share: 0.3, Peak: 1}, a.Cells[1]); diff != "" {
		t.Errorf("a full column (-want +got):\n%s", diff)
	}
	if a.WCULower != 2*1440 || a.WCUUpper != 3*1440 {
		t.Errorf("run bounds [%d, %d], want [%d, %d]", a.WCULower, a.WCUUpper, 2*1440, 3*1440)
	}
}

// TestColumnsAlignAsWindowsDo: columns start where the windows do, on
// multiples of their length in Unix time (report.WindowStart), for a
// length that does not divide the seconds from year 1 to 1970 too (7 s:
// time.Truncate would start them elsewhere).
func TestColumnsAlignAsWindowsDo(t *testing.T) {
	const window = 7 * time.Second
	first := report.WindowStart(t0, window)
	b := New(Options{MinShare: -1})
	var want []Column
	for k := range 3 {
		start := first.Add(time.Duration(k) * window)
		b.Add(report.Report{Window: report.Window{Table: "Shop", Start: start, End: start.Add(window)}, Totals: report.Totals{WCU: 10},
			TopKeys: []report.KeyReport{key("A", 10, 10, 2, report.None)}, HotKeys: []report.KeyReport{}})
		want = append(want, Column{Start: start, End: start.Add(window), Windows: 1, WCU: 10})
	}
	if diff := cmp.Diff(want, b.Maps()[0].Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}

// TestBoundsBracketTruth runs a random stream through the detector (few
// top keys per window, so most keys go unlisted somewhere) and checks every
// cell and every row's run total against the exact per-key sums.
func TestBoundsBracketTruth(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { bracketTruth(t, seed) })
	}
}

func bracketTruth(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 12))
	cfg := detector.DefaultConfig()
	cfg.Top = 3
	cfg.Sketch.Counters = 16 // small, so keys are evicted and bounds are loose
	cfg.Lateness = 0
	det, err := detector.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const minutes = 40
	truth := map[string]map[int]uint64{} // key -> minute -> WCU
	var reps []report.Report
	for sec := range minutes * 60 {
		for range 5 + rng.IntN(10) {
			k := fmt.Sprintf("K%d", int(rng.ExpFloat64()*8)) // a skewed key population, drifting
			if rng.IntN(4) == 0 {
				k = fmt.Sprintf("T%d", rng.IntN(500))
			}
			if sec/600%2 == 1 && rng.IntN(3) == 0 {
				k = fmt.Sprintf("BURST%d", sec/600)
			}
			w := uint64(1 + rng.IntN(5))
			r := record.Record{Table: "T", Shard: fmt.Sprint("s", rng.IntN(3)), Time: t0.Add(time.Duration(sec) * time.Second),
				PartitionKey: ddb.Key{Type: ddb.String, Value: []byte(k)}, WCU: w, WCUExact: true}
			if err := det.Add(&r); err != nil {
				t.Fatal(err)
			}
			if truth[k] == nil {
				truth[k] = map[int]uint64{}
			}
			truth[k][sec/60] += w
		}
		reps = append(reps, det.Flush()...)
	}
	reps = append(reps, det.FlushAll()...)

	for _, bucketed := range []bool{false, true} {
		opts := Options{MaxKeys: 12, MinShare: -1}
		if bucketed {
			opts.MaxColumns = 7 // 6-minute columns
		}
		b := New(opts)
		b.Add(reps...)
		m := b.Maps()[0]
		colOf := func(minute int) int {
			return int(t0.Add(time.Duration(minute)*time.Minute).Sub(m.Columns[0].Start) / (m.Window * time.Duration(m.Bucket)))
		}
		others := make([]uint64, len(m.Columns))
		for _, minutes := range truth {
			for minute, w := range minutes {
				others[colOf(minute)] += w
			}
		}
		for _, r := range m.Rows {
			if r.Kind != KeyRow {
				continue
			}
			cells := make([]uint64, len(m.Columns))
			var total uint64
			for minute, w := range truth[r.Name] {
				cells[colOf(minute)] += w
				others[colOf(minute)] -= w
				total += w
			}
			if r.WCULower > total || total > r.WCUUpper {
				t.Errorf("bucketed %v: key %s: run bounds [%d, %d] do not bracket %d", bucketed, r.Name, r.WCULower, r.WCUUpper, total)
			}
			for j, c := range r.Cells {
				if c.WCULower > cells[j] || cells[j] > c.WCUUpper {
					t.Errorf("bucketed %v: key %s column %d: [%d, %d] do not bracket %d", bucketed, r.Name, j, c.WCULower, c.WCUUpper, cells[j])
				}
			}
		}
		for _, r := range m.Rows {
			if r.Kind != othersRow {
				continue
			}
			for j, c := range r.Cells {
				if c.WCULower > others[j] || others[j] > c.WCUUpper {
					t.Errorf("bucketed %v: all other keys, column %d: [%d, %d] do not bracket %d", bucketed, j, c.WCULower, c.WCUUpper, others[j])
				}
			}
		}
	}
}
