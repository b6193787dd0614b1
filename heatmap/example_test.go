package heatmap_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Three minutes of a table where one key runs hot in the second minute.
// Every report lists the key or bounds it by its other_keys_wcu_upper, so
// the map brackets its WCU over the run, and colours each minute by its
// peak against the partition limit.
func Example() {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b := heatmap.New(heatmap.Options{PartitionLimit: 1000})
	for minute, peak := range []float64{120, 950, 0} {
		w := report.Window{Table: "Orders", Start: start.Add(time.Duration(minute) * time.Minute)}
		w.End = w.Start.Add(time.Minute)
		r := report.Report{Window: w, Totals: report.Totals{WCU: 20000}, OtherKeysWCUUpper: 40, HotKeys: []report.KeyReport{}}
		if peak > 0 {
			k := report.KeyReport{KeyFigures: report.KeyFigures{Key: "OPS_LOG", Type: "S",
				WCU: uint64(peak * 20), WCULower: uint64(peak * 20), WCUUpper: uint64(peak * 20), PeakWCUPerSecond: peak}}
			if peak >= 800 {
				k.Severity, k.Pattern = report.Critical, report.PatternSingleKey
				r.HotKeys = append(r.HotKeys, k)
			}
			r.TopKeys = []report.KeyReport{k}
		}
		b.Add(r)
	}
	maps := b.Maps()
	for _, row := range maps[0].Rows {
		fmt.Printf("%-6s %-8s WCU %d to %d:", row.Kind, row.Name, row.WCULower, row.WCUUpper)
		for _, c := range row.Cells {
			fmt.Print(" ", heatmap.CellColour(row.Kind, c, maps[0].Limit))
		}
		fmt.Println()
	}
	var page bytes.Buffer
	if err := heatmap.WriteHTML(&page, maps); err != nil {
		panic(err)
	}
	fmt.Println(strings.Count(page.String(), "<svg"), "map,", strings.Count(page.String(), "<script"), "scripts")
	// Output:
	// key    OPS_LOG  WCU 21400 to 21440: #ffeda0 #e31a1c #e8e8e8
	// others          WCU 38560 to 38600: #3182bd #eff3ff #3182bd
	// 1 map, 0 scripts
}
