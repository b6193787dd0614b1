package kinesisbridge_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
)

// plainBatch is events/plain-batch.json's 100 changes over 40 customers.
func plainBatch(t *testing.T) []kinesisbridge.Change {
	t.Helper()
	raw, err := os.ReadFile("../../../events/plain-batch.json")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := kinesisbridge.FromStreamEvent(raw, kinesisbridge.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// eventIDOf reads the eventID out of a record's change record.
func eventIDOf(t *testing.T, r types.Record) string {
	t.Helper()
	var c struct{ EventID string }
	if err := json.Unmarshal(r.Data, &c); err != nil {
		t.Fatal(err)
	}
	return c.EventID
}

func TestSpread(t *testing.T) {
	changes := plainBatch(t)
	index := map[string]int{}
	for i, c := range changes {
		index[c.EventID] = i
	}
	opts := kinesisbridge.Options{Shards: 4, Route: kinesisbridge.RoundRobin, Duplicates: 7, Shuffle: true, Seed: 42}
	shards, err := kinesisbridge.Spread(changes, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := kinesisbridge.Spread(changes, opts)
	if flat(shards) != flat(again) {
		t.Error("the same seed spread differently")
	}
	opts.Seed = 43
	other, _ := kinesisbridge.Spread(changes, opts)
	if flat(shards) == flat(other) {
		t.Error("another seed spread the same")
	}

	seen := map[string][]string{} // eventID -> "shard/position"
	total := 0
	for s, recs := range shards {
		var last time.Time
		var lastSeq string
		shuffled := false
		for n, r := range recs {
			id := eventIDOf(t, r)
			i := index[id]
			if i%4 != s {
				t.Errorf("change %d on shard %d, want %d (round robin)", i, s, i%4)
			}
			seen[id] = append(seen[id], fmt.Sprintf("%d/%d", s, n))
			if pk := aws.ToString(r.PartitionKey); len(pk) != 32 || strings.Trim(pk, "0123456789ABCDEF") != "" {
				t.Errorf("partition key %q is not 32 upper-case hex digits", pk)
			}
			seq := aws.ToString(r.SequenceNumber)
			if len(seq) != 56 || seq <= lastSeq {
				t.Errorf("shard %d: sequence number %s after %s", s, seq, lastSeq)
			}
			at := *r.ApproximateArrivalTimestamp
			if at.Before(last) || at.Truncate(time.Millisecond) != at || at.Before(changes[i].Created) {
				t.Errorf("shard %d: arrival %v after %v (created %v)", s, at, last, changes[i].Created)
			}
			if n > 0 && changes[i].Created.Before(changes[index[eventIDOf(t, recs[n-1])]].Created) {
				shuffled = true
			}
			last, lastSeq = at, seq
			total++
		}
		if !shuffled {
			t.Errorf("shard %d: creation times never go back", s)
		}
	}
	if total != len(changes)+7 || len(seen) != len(changes) {
		t.Fatalf("%d records of %d changes, want %d of %d", total, len(seen), len(changes)+7, len(changes))
	}
	twice := 0
	for id, at := range seen {
		switch len(at) {
		case 1:
		case 2:
			twice++
			var s1, n1, s2, n2 int
			fmt.Sscanf(at[0]+" "+at[1], "%d/%d %d/%d", &s1, &n1, &s2, &n2)
			a, b := shards[s1][n1], shards[s2][n2]
			if s1 != s2 || n2 <= n1 || string(a.Data) != string(b.Data) || *a.PartitionKey != *b.PartitionKey || *a.SequenceNumber == *b.SequenceNumber {
				t.Errorf("%s twice at %v: want the same shard, later, same data and key, its own sequence number", id, at)
			}
		default:
			t.Errorf("%s delivered %d times", id, len(at))
		}
	}
	if twice != 7 {
		t.Errorf("%d changes delivered twice, want 7", twice)
	}
}

// flat writes every field of the records of shards, in order.
func flat(shards [][]types.Record) string {
	var b strings.Builder
	for s, recs := range shards {
		for _, r := range recs {
			fmt.Fprintf(&b, "%d %s %s %s %s\n", s, *r.SequenceNumber, *r.PartitionKey, r.ApproximateArrivalTimestamp.Format(time.RFC3339Nano), r.Data)
		}
	}
	return b.String()
}

func TestSpreadByKeyAndInOrder(t *testing.T) {
	changes := plainBatch(t)
	shards, err := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	shardOfKey := map[string]int{}
	var order []string
	for s, recs := range shards {
		for _, r := range recs {
			id := eventIDOf(t, r)
			i := slices.IndexFunc(changes, func(c kinesisbridge.Change) bool { return c.EventID == id })
			k := string(changes[i].Keys)
			if prev, ok := shardOfKey[k]; ok && prev != s {
				t.Errorf("item %s on shards %d and %d", k, prev, s)
			}
			shardOfKey[k] = s
			order = append(order, fmt.Sprintf("%d:%03d", s, i))
		}
	}
	if !slices.IsSorted(order) || len(order) != len(changes) {
		t.Errorf("without Shuffle or Duplicates each shard keeps the changes' order, once each: %v", order)
	}
}

func TestSpreadRejects(t *testing.T) {
	changes := plainBatch(t)[:3]
	for _, tc := range []struct {
		opts kinesisbridge.Options
		want string
	}{
		{kinesisbridge.Options{}, "Shards 0"},
		{kinesisbridge.Options{Shards: 2, Duplicates: 4}, "Duplicates 4: want 0 to 3"},
		{kinesisbridge.Options{Shards: 2, Route: func(*kinesisbridge.Change, int, int) int { return 2 }}, "to shard 2 of 2"},
	} {
		if _, err := kinesisbridge.Spread(changes, tc.opts); !errors.Is(err, kinesisbridge.ErrOptions) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestArriveBefore(t *testing.T) {
	changes := plainBatch(t)
	end := changes[0].Created.Add(10 * time.Millisecond)
	shards, _ := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 1, ArriveBefore: end})
	for _, r := range shards[0] {
		if !r.ApproximateArrivalTimestamp.Before(end) {
			t.Fatalf("arrival %v not before %v", r.ApproximateArrivalTimestamp, end)
		}
	}
}

// TestWindowEvent: aws-lambda-go reads the window event whole.
func TestWindowEvent(t *testing.T) {
	changes := plainBatch(t)[:2]
	shards, _ := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 1})
	start := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	const arn = "arn:aws:kinesis:us-east-1:123456789012:stream/orders-cdc"
	b := kinesisbridge.AppendWindowEvent(nil, shards[0], kinesisbridge.ShardID(0), arn, "us-east-1",
		kinesisbridge.Window{Start: start, End: start.Add(time.Minute), State: map[string]string{"b": "2", "a": "1"}, Final: true})
	var ev events.KinesisTimeWindowEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(ev.Records) != 2 || !ev.Window.Start.Equal(start) || !ev.Window.End.Equal(start.Add(time.Minute)) || ev.ShardID != "shardId-000000000000" ||
		ev.EventSourceARN != arn || !ev.IsFinalInvokeForWindow || ev.IsWindowTerminatedEarly || ev.State["a"] != "1" || ev.State["b"] != "2" {
		t.Errorf("read back %+v", ev.TimeWindowProperties)
	}
	if r := ev.Records[0]; r.EventID != "shardId-000000000000:"+aws.ToString(shards[0][0].SequenceNumber) || string(r.Kinesis.Data) != string(changes[0].Data) {
		t.Errorf("record %+v", r)
	}
	if !strings.Contains(string(b), `"state":{"a":"1","b":"2"}`) {
		t.Errorf("state not in key order: %s", b[len(b)-300:])
	}
}
