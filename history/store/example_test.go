package store_test

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

// A Table names the history table and how its items are written; Item
// shows the key a stream shard's window is stored under: the window's day
// and the shard's write shard, then its start, table and shard. (Put
// stores it, through the Table's DynamoDB client.)
func ExampleTable_Item() {
	table, err := store.New(nil, "hotkeys-history", store.Options{WriteShards: 16, Retention: 30 * 24 * time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	item, err := table.Item(&history.Summary{Table: "Orders", Shard: "shardId-1", Start: start, End: start.Add(time.Minute), Totals: report.Totals{Records: 3, WCU: 5}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{store.AttrDay, store.AttrWindow, store.AttrWriteShards, store.AttrExpires} {
		switch v := item[name].(type) {
		case *types.AttributeValueMemberS:
			fmt.Printf("%s: %s\n", name, v.Value)
		case *types.AttributeValueMemberN:
			fmt.Printf("%s: %s\n", name, v.Value)
		}
	}
	// Output:
	// day: 2026-11-22#8
	// window: 001795341600#Orders#shardId-1
	// write_shards: 16
	// expires: 1797933660
}
