package detector_test

import (
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// A counter item rewritten 300 times a second, over a quiet table, is
// flagged, explained, and given a recommended shard count.
func Example() {
	cfg := detector.DefaultConfig()
	d, err := detector.New(cfg)
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	add := func(pk, sk string, at time.Time) {
		err := d.Add(&record.Record{
			Table: "Orders", EventName: record.Modify, Time: at, WCU: 1, WCUExact: true,
			PartitionKey: ddb.Key{Type: ddb.String, Value: []byte(pk)},
			SortKey:      ddb.Key{Type: ddb.String, Value: []byte(sk)},
		})
		if err != nil {
			panic(err)
		}
	}
	for s := range 60 {
		at := start.Add(time.Duration(s) * time.Second)
		for range 300 {
			add("COUNTER#page_views", "TOTAL", at)
		}
		for i := range 100 {
			add(fmt.Sprintf("USER#%d", s*100+i), "PROFILE", at)
		}
	}
	for _, rep := range d.FlushAll() {
		fmt.Printf("%s %s–%s: %d records, %d WCU\n", rep.Table, rep.Start.Format("15:04"), rep.End.Format("15:04"), rep.Records, rep.WCU)
		for _, k := range rep.HotKeys {
			fmt.Printf("%s %s: %d WCU, %.0f%% share, peak %.0f WCU/s, %s, %d shards\n",
				k.Severity, k.Key, k.WCU, k.Share*100, k.PeakWCUPerSecond, k.Pattern, k.RecommendedShards)
		}
	}
	// Output:
	// Orders 10:00–10:01: 24000 records, 24000 WCU
	// warning COUNTER#page_views: 18000 WCU, 75% share, peak 300 WCU/s, single_item, 2 shards
}
