package history_test

import (
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Summaries of two stream shards' 1-minute windows, merged into 2-minute
// steps. A key's bounds add up where a summary listed it; where one did
// not, its ceiling (OtherKeysWCUUpper) bounds what the key wrote there.
func Example() {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	key := func(k string, lower, upper uint64) report.KeyReport {
		return report.KeyReport{KeyFigures: report.KeyFigures{Key: k, Type: "S", WCULower: lower, WCUUpper: upper}}
	}
	window := func(shard string, minute int, wcu, ceiling uint64, keys ...report.KeyReport) *history.Summary {
		start := t0.Add(time.Duration(minute) * time.Minute)
		return &history.Summary{Table: "Orders", Shard: shard, Start: start, End: start.Add(time.Minute),
			Totals: report.Totals{Records: wcu, WCU: wcu}, DistinctKeys: 100, Keys: keys, OtherKeysWCUUpper: ceiling}
	}
	m, err := history.NewMerger("Orders", "", 2*time.Minute, 2)
	if err != nil {
		panic(err)
	}
	for _, s := range []*history.Summary{
		window("shardId-1", 0, 9000, 20, key("ORDER#7", 6000, 6010), key("USER#3", 400, 420)),
		window("shardId-2", 0, 3000, 40, key("USER#3", 900, 950)),
		window("shardId-1", 1, 8000, 25, key("ORDER#7", 5000, 5020)),
		window("shardId-2", 1, 2500, 30, key("ORDER#7", 100, 130), key("USER#9", 700, 700)),
		window("shardId-1", 2, 1000, 10, key("USER#9", 300, 310)),
	} {
		if err := m.Add(s); err != nil {
			panic(err)
		}
	}
	for _, rep := range m.Reports() {
		fmt.Printf("%s to %s: %d WCU\n", rep.Start.Format("15:04"), rep.End.Format("15:04"), rep.WCU)
		for _, k := range rep.TopKeys {
			fmt.Printf("  %-8s %5d to %5d WCU\n", k.Key, k.WCULower, k.WCUUpper)
		}
		fmt.Printf("  any other key: at most %d WCU\n", rep.OtherKeysWCUUpper)
	}
	// Output:
	// 10:00 to 10:02: 22500 WCU
	//   ORDER#7  11100 to 11200 WCU
	//   USER#3    1300 to  1425 WCU
	//   any other key: at most 785 WCU
	// 10:02 to 10:04: 1000 WCU
	//   USER#9     300 to   310 WCU
	//   any other key: at most 10 WCU
}
