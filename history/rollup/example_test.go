package rollup_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/rollup"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/record"
)

// The example needs DynamoDB Local, as the tests do; without it, Main
// leaves it out where the tests skip.
func TestMain(m *testing.M) { dynamodblocal.Main(m) }

// The job as the rollup function runs it. Three stream shards store their
// windows of 10:00 as the Lambda does when each closes; at 10:02, a Grace
// after the window ended, the schedule runs the job, which merges them into
// one rollup of the table, not settled yet (a late window may still come).
// `hotkeys history` then reads one item for the minute instead of one per
// stream shard, with the key's bounds added up across the shards.
func Example() {
	ctx := context.Background()
	api, name, drop := dynamodblocal.TableForExample(dynamodblocal.TableSpec{
		Prefix: "rollup-example", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	defer drop()
	table, err := store.New(api, name, store.Options{WriteShards: 4, Retention: 24 * time.Hour})
	if err != nil {
		panic(err)
	}

	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := detector.DefaultConfig()
	for _, shard := range []string{"shardId-1", "shardId-2", "shardId-3"} {
		w, err := detector.NewWindow(cfg.Sketch, "Orders", start, start.Add(time.Minute))
		if err != nil {
			panic(err)
		}
		for sec := range 60 {
			r := record.Record{Table: "Orders", Shard: shard, Time: start.Add(time.Duration(sec) * time.Second), WCUExact: true}
			r.PartitionKey, r.WCU = ddb.Key{Type: ddb.String, Value: []byte("OPS_LOG")}, 5
			w.Add(&r)
			r.PartitionKey, r.WCU = ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "USER#%d", sec)}, 1
			w.Add(&r)
		}
		distinct, err := w.AppendDistinct(nil)
		if err != nil {
			panic(err)
		}
		if err := table.Put(ctx, history.FromReport(w.Report(cfg), shard, distinct)); err != nil {
			panic(err)
		}
	}

	scheduled := start.Add(time.Minute + rollup.Grace)
	job, err := rollup.New(table, rollup.Config{Window: time.Minute}, slog.New(slog.DiscardHandler), func() time.Time { return scheduled })
	if err != nil {
		panic(err)
	}
	res, err := job.Run(ctx, scheduled)
	if err != nil {
		panic(err)
	}
	fmt.Printf("run at %s: rolled up %s, %d rollup of %d shard windows\n",
		scheduled.Format("15:04"), res.First.Format("15:04"), res.Rollups, res.Sources)

	reader := table.Reader(0)
	cov, err := reader.Coverage(ctx, start, start.Add(time.Minute))
	if err != nil {
		panic(err)
	}
	err = reader.Rollups(ctx, store.Windows, start, start.Add(time.Minute), func(s *history.Summary) error {
		rep := s.Report(1)
		fmt.Printf("%s %s: %d records, %d WCU, %d distinct keys, settled %v\n",
			rep.Table, rep.Start.Format("15:04"), rep.Records, rep.WCU, rep.DistinctKeys, cov.Windows[start.Unix()])
		for _, k := range rep.TopKeys {
			fmt.Printf("  %s: %d-%d WCU\n", k.Key, k.WCULower, k.WCUUpper)
		}
		return nil
	}, func(key string, err error) { fmt.Println("skipped", key, err) })
	if err != nil {
		panic(err)
	}
	// Output:
	// run at 10:02: rolled up 10:00, 1 rollup of 3 shard windows
	// Orders 10:00: 360 records, 1080 WCU, 61 distinct keys, settled false
	//   OPS_LOG: 900-900 WCU
}
