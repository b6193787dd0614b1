package kinesisstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/google/go-cmp/cmp"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesislocal"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
)

// delivered is one record as a Batch payload carried it, in delivery order.
type delivered struct {
	Shard, Seq, PartitionKey, Data string
}

// readAll runs a Reader over the whole stream (TrimHorizon, UntilCaughtUp)
// and returns what Batch received, in order, each payload checked as the
// Lambda Kinesis event aws-lambda-go decodes.
func readAll(t *testing.T, api kinesisstream.API, arn string, limit int32) []delivered {
	t.Helper()
	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN, cfg.From, cfg.UntilCaughtUp = arn, kinesisstream.TrimHorizon, true
	cfg.MinPoll, cfg.MaxPoll, cfg.ListInterval, cfg.Limit = time.Millisecond, 20*time.Millisecond, 50*time.Millisecond, limit
	r, err := kinesisstream.NewReader(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []delivered
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	err = r.Run(ctx, kinesisstream.Handler{Batch: func(shardID string, payload []byte) error {
		var ev events.KinesisEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("payload is not a Lambda Kinesis event: %w", err)
		}
		for _, rec := range ev.Records {
			k := rec.Kinesis
			want := events.KinesisEventRecord{
				AwsRegion: kinesislocal.Region, EventID: shardID + ":" + k.SequenceNumber, EventName: "aws:kinesis:record",
				EventSource: "aws:kinesis", EventSourceArn: arn, EventVersion: "1.0", Kinesis: k,
			}
			if diff := cmp.Diff(want, rec); diff != "" {
				return fmt.Errorf("record envelope (-want +got):\n%s", diff)
			}
			if k.KinesisSchemaVersion != "1.0" || k.ApproximateArrivalTimestamp.IsZero() {
				return fmt.Errorf("record %s: schema %q, arrival %v", k.SequenceNumber, k.KinesisSchemaVersion, k.ApproximateArrivalTimestamp)
			}
			got = append(got, delivered{shardID, k.SequenceNumber, k.PartitionKey, string(k.Data)})
		}
		return nil
	}})
	if !errors.Is(err, kinesisstream.ErrCaughtUp) {
		t.Fatalf("Run = %v, want ErrCaughtUp", err)
	}
	return got
}

// safetyNet bounds a test that would otherwise hang; no outcome depends on it.
const safetyNet = 3 * time.Minute

// putRecords puts data strings with explicit hash keys (so each goes to a
// known shard) and returns what kinesalite assigned, per shard in order.
func putRecords(t *testing.T, api *kinesis.Client, name string, hashKey string, data ...string) map[string][]delivered {
	t.Helper()
	got := map[string][]delivered{}
	for _, d := range data {
		pk := "PK-" + d
		out, err := api.PutRecord(context.Background(), &kinesis.PutRecordInput{
			StreamName: aws.String(name), PartitionKey: aws.String(pk), Data: []byte(d), ExplicitHashKey: aws.String(hashKey),
		})
		if err != nil {
			t.Fatal(err)
		}
		id := aws.ToString(out.ShardId)
		got[id] = append(got[id], delivered{id, aws.ToString(out.SequenceNumber), pk, d})
	}
	return got
}

// Hash keys inside each half, and quarter, of the 128-bit hash key space.
const (
	lowHalf     = "1"                                       // shard 0 of 2
	highHalf    = "340282366920938463463374607431768211455" // shard 1 of 2
	midBoundary = "85070591730234615865843651857942052864"  // a quarter of the space: where shard 0 splits
	lowQuarter  = "2"
	highQuarter = "100000000000000000000000000000000000000" // in [quarter, half)
)

// TestReadsThroughASplitAndAMerge reads a real (local) Kinesis stream whose
// first shard split in two and whose children then merged back: every record
// is delivered once, each shard's in order, and no child's record before its
// parents' last.
func TestReadsThroughASplitAndAMerge(t *testing.T) {
	api := kinesislocal.Client(t)
	ctx := context.Background()
	name, arn := kinesislocal.CreateStream(t, api, "kreader", 2)
	want := map[string][]delivered{}
	add := func(m map[string][]delivered) {
		for k, v := range m {
			want[k] = append(want[k], v...)
		}
	}
	add(putRecords(t, api, name, lowHalf, "a1", "a2", "a3"))
	add(putRecords(t, api, name, highHalf, "b1", "b2"))
	if _, err := api.SplitShard(ctx, &kinesis.SplitShardInput{StreamName: aws.String(name),
		ShardToSplit: aws.String("shardId-000000000000"), NewStartingHashKey: aws.String(midBoundary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := kinesislocal.WaitActive(ctx, api, name); err != nil {
		t.Fatal(err)
	}
	add(putRecords(t, api, name, lowQuarter, "c1", "c2"))  // shard 2
	add(putRecords(t, api, name, highQuarter, "d1", "d2")) // shard 3
	add(putRecords(t, api, name, highHalf, "b3"))
	if _, err := api.MergeShards(ctx, &kinesis.MergeShardsInput{StreamName: aws.String(name),
		ShardToMerge: aws.String("shardId-000000000002"), AdjacentShardToMerge: aws.String("shardId-000000000003")}); err != nil {
		t.Fatal(err)
	}
	if _, err := kinesislocal.WaitActive(ctx, api, name); err != nil {
		t.Fatal(err)
	}
	add(putRecords(t, api, name, lowQuarter, "e1", "e2", "e3")) // shard 4, child of 2 and 3
	if got := slices.Sorted(maps.Keys(want)); !slices.Equal(got, []string{"shardId-000000000000", "shardId-000000000001",
		"shardId-000000000002", "shardId-000000000003", "shardId-000000000004"}) {
		t.Fatalf("records went to shards %v", got)
	}

	for _, limit := range []int32{1, 2, kinesisstream.MaxLimit} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			got := readAll(t, api, arn, limit)
			byShard := map[string][]delivered{}
			pos := map[string]int{} // the index of each record in delivery order
			for i, d := range got {
				byShard[d.Shard] = append(byShard[d.Shard], d)
				pos[d.Data] = i
			}
			if diff := cmp.Diff(want, byShard); diff != "" {
				t.Fatalf("delivered per shard (-want +got):\n%s", diff)
			}
			// Parents before children: a1..a3 (0) before c, d (2, 3); c and d before e (4).
			for _, c := range []struct{ before, after string }{{"a3", "c1"}, {"a3", "d1"}, {"c2", "e1"}, {"d2", "e1"}} {
				if pos[c.before] > pos[c.after] {
					t.Errorf("%s (child) delivered before %s (parent)", c.after, c.before)
				}
			}
		})
	}
}

// TestLatestReadsOnlyNewRecords: from Latest, records put before Run are not
// read, those put after are, also in a child shard born after Run began.
func TestLatestReadsOnlyNewRecords(t *testing.T) {
	api := kinesislocal.Client(t)
	ctx := context.Background()
	name, arn := kinesislocal.CreateStream(t, api, "klatest", 1)
	putRecords(t, api, name, lowHalf, "old1", "old2")

	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN = arn
	cfg.MinPoll, cfg.MaxPoll, cfg.ListInterval = time.Millisecond, 20*time.Millisecond, 20*time.Millisecond
	polled := make(chan struct{}, 1)
	r, err := kinesisstream.NewReader(pollSignal{api, polled}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gotc := make(chan string, 100)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- r.Run(runCtx, kinesisstream.Handler{
			Batch: func(_ string, payload []byte) error {
				var ev events.KinesisEvent
				if err := json.Unmarshal(payload, &ev); err != nil {
					return err
				}
				for _, rec := range ev.Records {
					gotc <- string(rec.Kinesis.Data)
				}
				return nil
			},
		})
	}()
	// LATEST starts at the tip as GetShardIterator answers: wait until the
	// reader has its iterator (it has polled once) before putting.
	select {
	case <-polled:
	case <-time.After(safetyNet):
		t.Fatal("the reader never polled")
	}
	putRecords(t, api, name, lowHalf, "new1")
	select {
	case got := <-gotc:
		if got != "new1" {
			t.Fatalf("first record delivered %q, want new1", got)
		}
	case <-time.After(safetyNet):
		t.Fatal("new1 never came")
	}
	if _, err := api.SplitShard(ctx, &kinesis.SplitShardInput{StreamName: aws.String(name),
		ShardToSplit: aws.String("shardId-000000000000"), NewStartingHashKey: aws.String(midBoundary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := kinesislocal.WaitActive(ctx, api, name); err != nil {
		t.Fatal(err)
	}
	putRecords(t, api, name, lowQuarter, "child1")
	select {
	case got := <-gotc:
		if got != "child1" {
			t.Fatalf("then %q, want child1", got)
		}
	case <-time.After(safetyNet):
		t.Fatal("the child's record never came")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v after cancel, want nil", err)
	}
}

// pollSignal tells, without blocking, of each GetRecords that returned.
type pollSignal struct {
	*kinesis.Client
	polled chan<- struct{}
}

func (p pollSignal) GetRecords(ctx context.Context, in *kinesis.GetRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error) {
	out, err := p.Client.GetRecords(ctx, in, optFns...)
	select {
	case p.polled <- struct{}{}:
	default:
	}
	return out, err
}

// TestMissingStream: a stream that does not exist stops Run at once with
// the API's error, not retried.
func TestMissingStream(t *testing.T) {
	api := kinesislocal.Client(t)
	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN = kinesislocal.StreamARN("no-such-stream-here")
	r, err := kinesisstream.NewReader(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Run(context.Background(), kinesisstream.Handler{Batch: func(string, []byte) error { return nil }})
	var gone *types.ResourceNotFoundException
	if !errors.As(err, &gone) || !strings.Contains(err.Error(), "ListShards "+cfg.StreamARN) {
		t.Fatalf("Run = %v, want ResourceNotFoundException naming ListShards and the stream", err)
	}
}
