package store

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/report"
)

// streamShardIDs returns n stream shard ids shaped as DynamoDB Streams
// names them (shardId-, 20 digits of creation time, -, 8 hex digits).
func streamShardIDs(n int) []string {
	rng := rand.New(rand.NewPCG(2026, 11))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("shardId-%020d-%08x", 1795305600000+rng.Int64N(1e9), rng.Uint32())
	}
	return ids
}

// fullSummary is a shard's window as large as an item may be: keys of 100
// bytes, a few trimmed to fit MaxEncodedSize.
func fullSummary(t testing.TB, shard string) *history.Summary {
	s := &history.Summary{Table: "Orders", Shard: shard, Start: t0, End: t0.Add(time.Minute), Totals: report.Totals{Records: 60000, WCU: 90000}, DistinctKeys: 40000,
		Shards: []report.ShardReport{{Shard: shard, Records: 60000, WCU: 90000, PeakWCUPerSecond: 2000}}}
	for i := range 140 {
		s.Keys = append(s.Keys, report.KeyReport{KeyFigures: report.KeyFigures{Key: fmt.Sprintf("%03d%s", i, strings.Repeat("k", 97)), Type: "S",
			WCULower: uint64(900 - i), WCUUpper: uint64(900 - i)}})
	}
	return s
}

// itemSize is DynamoDB's size of an item of S, N and B attributes: names'
// bytes plus values' bytes (numbers by ddb.NumberSize).
func itemSize(t testing.TB, item map[string]types.AttributeValue) int {
	size := 0
	for name, v := range item {
		size += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
		case *types.AttributeValueMemberB:
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			n, err := ddb.NumberSize(v.Value)
			if err != nil {
				t.Fatal(err)
			}
			size += n
		default:
			t.Fatalf("attribute %s of type %T", name, v)
		}
	}
	return size
}

// TestWriteSpread replays what the history table sees at the end of a
// window on a table of 1,000 stream shards: every shard's final invoke
// stores a 16 KB item at the same instant, after its WriteDelay. Through
// the item's own key (Item), no partition key value may take more than
// DynamoDB's 1,000 WCU in any second: with the default write shards and
// no spread, and with fewer write shards and a spread; the layout of
// before (one value a day) takes 16,000.
//
// This is necessary, not sufficient: DynamoDB maps key values to
// partitions as it sees fit, and a new table's partitions take 4,000 WCU/s
// together (docs/history.md, "Warm throughput").
func TestWriteSpread(t *testing.T) {
	ids := streamShardIDs(1000)
	// Every shard's item is as large as the largest: 16 WCU.
	item, err := mustNew(t, nil, "H", Options{Retention: 30 * 24 * time.Hour}).Item(fullSummary(t, ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	wcu := ddb.WriteUnits(itemSize(t, item))
	if wcu != 16 {
		t.Fatalf("a full summary's item is %d WCU, want 16", wcu)
	}
	end := t0.Add(time.Minute)
	for _, c := range []struct {
		name        string
		writeShards int
		spread      time.Duration
		within      bool
	}{
		{"default write shards, no spread", 0, 0, true},
		{"16 write shards, 4 s spread", 16, 4 * time.Second, true},
		{"8 write shards, 8 s spread", 8, 8 * time.Second, true},
		{"one value a day, as before", 1, 0, false},
	} {
		table := mustNew(t, nil, "H", Options{WriteShards: c.writeShards, Retention: 30 * 24 * time.Hour})
		load := map[string]uint64{} // partition key value and second -> WCU
		perSecond := map[int64]uint64{}
		var busiest string
		for _, id := range ids {
			s := fullSummary(t, id)
			item, err := table.Item(s)
			if err != nil {
				t.Fatal(err)
			}
			sec := end.Add(WriteDelay(id, c.spread)).Unix()
			k := fmt.Sprintf("%s @%d", item[AttrDay].(*types.AttributeValueMemberS).Value, sec)
			load[k] += wcu
			perSecond[sec] += wcu
			if load[k] > load[busiest] {
				busiest = k
			}
		}
		t.Logf("%s: busiest key value %s took %d WCU in its second; the busiest second took %d WCU table-wide, over %d seconds",
			c.name, busiest, load[busiest], maxOf(perSecond), len(perSecond))
		if within := load[busiest] <= ddb.PartitionWriteUnits; within != c.within {
			t.Errorf("%s: busiest key value %s took %d WCU in one second (limit %d)", c.name, busiest, load[busiest], ddb.PartitionWriteUnits)
		}
	}
}

func maxOf(m map[int64]uint64) uint64 {
	var x uint64
	for _, v := range m {
		x = max(x, v)
	}
	return x
}

// TestWriteDelay: within the spread, fixed per shard, and spread evenly:
// no second of a 4-second spread gets more than a third of 1,000 shards.
func TestWriteDelay(t *testing.T) {
	perSecond := map[time.Duration]int{}
	for _, id := range streamShardIDs(1000) {
		d := WriteDelay(id, 4*time.Second)
		if d < 0 || d >= 4*time.Second || d != WriteDelay(id, 4*time.Second) {
			t.Fatalf("%s: delay %s", id, d)
		}
		perSecond[d.Truncate(time.Second)]++
	}
	for sec, n := range perSecond {
		if n > 1000/3 {
			t.Errorf("%d shards in second %s of 4", n, sec)
		}
	}
	if d := WriteDelay("shardId-1", 0); d != 0 {
		t.Errorf("no spread: delay %s", d)
	}
}
