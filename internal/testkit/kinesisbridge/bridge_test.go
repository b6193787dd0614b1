package kinesisbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesislocal"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
	"github.com/hotkeys-dev/hotkeys/record"
)

// TestBridge takes DynamoDB Local's stream records of a workload, puts them
// into a 4-shard kinesalite stream as Kinesis Data Streams for DynamoDB
// would (one item's writes spread over every shard, 5 delivered twice, each
// shard shuffled), and reads them back with the Kinesis reader of watch:
// each shard holds what Spread planned, in its order, and the change
// records, once each, charge the WCU DynamoDB Local charged.
func TestBridge(t *testing.T) {
	ddb, ddbStreams := dynamodblocal.Clients(t)
	kin := kinesislocal.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // against a hang only
	defer cancel()

	table, streamARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "bridge", HashKey: "PK", RangeKey: "SK"})
	var items []map[string]types.AttributeValue
	for i := range 40 {
		// 8 items, each written 5 times, 100 B to 2.5 KB: 1 to 3 WCU.
		items = append(items, dynamodblocal.Item(fmt.Sprintf("KEY#%d", i%4), fmt.Sprintf("SK#%d", i%8), 100+60*i))
	}
	_, wantWCU := dynamodblocal.PutCharged(t, ddb, table, "PK", items)

	name, kinesisARN := kinesislocal.CreateStream(t, kin, "bridge", 4)
	plan, ids, err := kinesisbridge.Relay(ctx, ddbStreams, streamARN, len(items), kinesisbridge.Microsecond, kin, name,
		kinesisbridge.Options{Shards: 4, Route: kinesisbridge.RoundRobin, Duplicates: 5, Shuffle: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}

	// Read it all back as watch would.
	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN, cfg.From, cfg.UntilCaughtUp = kinesisARN, kinesisstream.TrimHorizon, true
	cfg.MinPoll, cfg.MaxPoll, cfg.ListInterval = time.Millisecond, 20*time.Millisecond, 50*time.Millisecond
	r, err := kinesisstream.NewReader(kin, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var all [][]byte
	err = r.Run(ctx, kinesisstream.Handler{Batch: func(shardID string, payload []byte) error {
		var ev events.KinesisEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return err
		}
		for _, rec := range ev.Records {
			got[shardID] = append(got[shardID], rec.Kinesis.PartitionKey+" "+string(rec.Kinesis.Data))
			all = append(all, rec.Kinesis.Data)
		}
		return nil
	}})
	if !errors.Is(err, kinesisstream.ErrCaughtUp) {
		t.Fatalf("Run = %v", err)
	}
	for s, recs := range plan {
		want := make([]string, len(recs))
		for i, rec := range recs {
			want[i] = aws.ToString(rec.PartitionKey) + " " + string(rec.Data)
		}
		if fmt.Sprint(got[ids[s]]) != fmt.Sprint(want) {
			t.Errorf("shard %s: read back %d records, not the %d planned, in order", ids[s], len(got[ids[s]]), len(want))
		}
	}
	if len(all) != len(items)+5 {
		t.Fatalf("%d records read, want %d", len(all), len(items)+5)
	}

	// The change records, counted once each, charge what DynamoDB Local did.
	dec, err := record.NewDecoder(record.Config{PartitionKey: "PK"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var wcu uint64
	for _, data := range all {
		err := dec.Decode(data, record.Visitor{Record: func(r *record.Record) error {
			if !seen[string(r.EventID)] {
				seen[string(r.EventID)] = true
				wcu += r.WCU
			}
			return nil
		}, Malformed: func(m *record.Malformed) error { return m.Err }})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != len(items) || wcu != wantWCU {
		t.Errorf("%d distinct change records charging %d WCU; DynamoDB Local: %d writes, %d WCU", len(seen), wcu, len(items), wantWCU)
	}
}
