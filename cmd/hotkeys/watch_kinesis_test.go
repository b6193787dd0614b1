package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesislocal"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// TestWatchKinesisStream writes a workload with one hot key to DynamoDB
// Local, puts its stream records into a 4-shard kinesalite stream as
// Kinesis Data Streams for DynamoDB would (every key over all shards, 15
// delivered twice, each shard shuffled, microsecond times), and runs
// `hotkeys watch --kinesis-stream` on it with the table's key schema looked
// up: it counts each write once, charges the WCU DynamoDB Local charged, and
// flags the hot key.
func TestWatchKinesisStream(t *testing.T) {
	ddb, ddbStreams := dynamodblocal.Clients(t)
	kin := kinesislocal.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // against a hang only
	defer cancel()
	table, streamARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{
		Prefix: "watchkin", HashKey: "PK", HashKeyType: types.ScalarAttributeTypeS,
		RangeKey: "SK", RangeKeyType: types.ScalarAttributeTypeS,
	})
	var items []map[string]types.AttributeValue
	for i := range 150 {
		items = append(items, dynamodblocal.Item("OPS_LOG", fmt.Sprintf("LINE#%04d", i), 1500)) // 2 WCU each
		items = append(items, dynamodblocal.Item(fmt.Sprintf("USER#%04d", i), "PROFILE", 200))
	}
	charged, total := dynamodblocal.PutCharged(t, ddb, table, "PK", items)
	const dups = 15
	name, kinesisARN := kinesislocal.CreateStream(t, kin, "watchkin", 4)
	if _, _, err := kinesisbridge.Relay(ctx, ddbStreams, streamARN, len(items), kinesisbridge.Microsecond, kin, name,
		kinesisbridge.Options{Shards: 4, Route: kinesisbridge.RoundRobin, Duplicates: dups, Shuffle: true, Seed: 11}); err != nil {
		t.Fatal(err)
	}

	watchEnv(t)
	t.Setenv("AWS_ENDPOINT_URL_KINESIS", kinesislocal.Endpoint(t))
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	clock, reader := watchClock, watchReader
	t.Cleanup(func() { watchClock, watchReader = clock, reader })
	watchClock = func() time.Time { return time.Unix(0, 0) } // no window closes by the clock: one report at the end
	seen := 0
	watchReader = func(r streamReader) streamReader {
		return readerFunc(func(ctx context.Context, h streams.Handler) error {
			batch := h.Batch
			h.Batch = func(shard string, payload []byte) error {
				err := batch(shard, payload)
				if seen += strings.Count(string(payload), `"kinesisSchemaVersion"`); seen >= len(items)+dups {
					stop()
				}
				return err
			}
			return r.Run(ctx, h)
		})
	}
	var out, errb bytes.Buffer
	code := run(ctx, []string{"watch", "--kinesis-stream", kinesisARN, "--table", table, "--from", "trim_horizon",
		"--window", "15m", "--format", "json",
		// Flagged by share alone: the peak second depends on how fast
		// DynamoDB Local took the writes, which the race detector slows
		// below the default rate floor.
		"--min-wcu-per-second", "1"}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("watch exit %d; stderr:\n%s", code, errb.String())
	}
	var records, wcu uint64
	keyWCU := map[string]uint64{}
	hot := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		for _, w := range decodeReport(t, line).Windows {
			if w.Table != table {
				t.Errorf("window of table %q, want %q (the change records' tableName)", w.Table, table)
			}
			records, wcu = records+w.Records, wcu+w.WCU
			for _, k := range w.TopKeys {
				keyWCU[k.Key] += k.WCU
			}
			for _, k := range w.HotKeys {
				hot[k.Key] = true
			}
		}
	}
	if records != uint64(len(items)) || wcu != total {
		t.Errorf("watch saw %d records and %d WCU; DynamoDB Local took %d writes and charged %d WCU (%d delivered twice)", records, wcu, len(items), total, dups)
	}
	if keyWCU["OPS_LOG"] != charged["OPS_LOG"] || !hot["OPS_LOG"] {
		t.Errorf("OPS_LOG: watch says %d WCU (hot: %v), DynamoDB Local charged %d", keyWCU["OPS_LOG"], hot["OPS_LOG"], charged["OPS_LOG"])
	}
}

// readerFunc is a streamReader of a func.
type readerFunc func(ctx context.Context, h streams.Handler) error

func (f readerFunc) Run(ctx context.Context, h streams.Handler) error { return f(ctx, h) }
