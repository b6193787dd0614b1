package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/record"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// summaries returns the stored summaries of one minute of shard shardId-0,
// as the Lambda makes them: the table's window and index GSI1's, each
// without internal errors (versions 1 and 2) and with some (version 3).
func summaries(t *testing.T) []*history.Summary {
	t.Helper()
	cfg := detector.DefaultConfig()
	var out []*history.Summary
	for _, internal := range []uint64{0, 4} {
		w, err := detector.NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		iw, err := detector.NewIndexWindow(cfg.IndexSketchConfig(), "Orders", "GSI1", t0, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		for sec := range 60 {
			for i := range 10 {
				r := record.Record{Table: "Orders", Shard: "shardId-0", Time: t0.Add(time.Duration(sec) * time.Second),
					PartitionKey: ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "USER#%d", (sec*7+i)%97)}, WCU: 1 + uint64(i%3), WCUExact: true}
				w.Add(&r)
				iw.AddIndex(&r, &record.IndexWrite{Index: "GSI1", WCU: 1, Exact: true,
					Put: ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "DAY#%d", i)}, WCU: 1}})
			}
		}
		w.AddInternal(internal)
		iw.AddInternal(internal * 2)
		for _, win := range []*detector.Window{w, iw} {
			hll, err := win.AppendDistinct(nil)
			if err != nil {
				t.Fatal(err)
			}
			s := history.FromReport(win.Report(cfg), "shardId-0", hll)
			// As stored and read: what is not stored (a key's share and
			// average) left out of the comparison.
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var stored history.Summary
			if err := stored.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			out = append(out, &stored)
		}
	}
	return out
}

// TestItemFormat: an item's format is its summary's version, 1 to 3, and
// an item whose format is any other number is refused.
func TestItemFormat(t *testing.T) {
	sums := summaries(t)
	for i, want := range []string{"1", "2", "3", "3"} {
		s := sums[i]
		name := fmt.Sprintf("%s, internal errors %d", history.Source(s.Table, s.Index), s.InternalErrors)
		item, err := mustNew(t, nil, "H", Options{Retention: time.Hour}).Item(s)
		if err != nil {
			t.Fatal(err)
		}
		if f := item[AttrFormat].(*types.AttributeValueMemberN).Value; f != want {
			t.Errorf("%s: format %s, want %s", name, f, want)
		}
		got, _, err := decodeShard(item)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", name, diff)
		}
		for _, other := range []string{"0", "1", "2", "3", "4", "5", "x", ""} {
			if other == want {
				continue
			}
			bad := maps.Clone(item)
			bad[AttrFormat] = &types.AttributeValueMemberN{Value: other}
			if _, _, err := decodeShard(bad); !errors.Is(err, ErrItem) {
				t.Errorf("%s under format %q: %v, want ErrItem", name, other, err)
			}
		}
	}
}

// TestRoundTripOnDynamoDBLocal stores windows of every format on DynamoDB
// Local and reads them back whole; items whose format disagrees with their
// summary are skipped, each with its reason.
func TestRoundTripOnDynamoDBLocal(t *testing.T) {
	ddb, name := newHistoryTable(t)
	table := mustNew(t, ddb, name, Options{Retention: time.Hour})
	ctx := context.Background()
	sums := summaries(t)
	// The windows without internal errors as if of another shard: every
	// format stored side by side.
	for _, s := range sums[:2] {
		s.Shard = "shardId-1"
	}
	for _, s := range sums {
		if err := table.Put(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{
			AttrDay: &types.AttributeValueMemberS{Value: shardPartition(s.Start, s.Shard, DefaultWriteShards)}, AttrWindow: &types.AttributeValueMemberS{Value: windowKey(s.Start, s.Table, s.Shard, s.Index)},
		}})
		if err != nil || got.Item == nil {
			t.Fatalf("get %s: %v", history.Source(s.Table, s.Index), err)
		}
		if f, _ := got.Item[AttrFormat].(*types.AttributeValueMemberN); f == nil || f.Value != fmt.Sprint(s.Version()) || (s.InternalErrors > 0) != (f.Value == "3") {
			t.Errorf("%s, internal errors %d, stored with format %v", history.Source(s.Table, s.Index), s.InternalErrors, got.Item[AttrFormat])
		}
	}
	// The same version-3 summary under format 1, and one under format 4,
	// beside them.
	good, err := table.Item(sums[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"1", "4"} {
		bad := maps.Clone(good)
		bad[AttrWindow] = &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d#Orders#format-%s", t0.Unix(), f)}
		bad[AttrFormat] = &types.AttributeValueMemberN{Value: f}
		if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: bad}); err != nil {
			t.Fatal(err)
		}
	}
	var got []*history.Summary
	skipped := map[string]error{}
	err = table.Reader(0).Shards(ctx, t0, t0.Add(time.Minute), func(s *history.Summary) error {
		got = append(got, s)
		return nil
	}, func(key string, err error) { skipped[key] = err })
	if err != nil {
		t.Fatal(err)
	}
	// In order of the sort key: shard 0's window of the table, of GSI1,
	// then shard 1's.
	if diff := cmp.Diff([]*history.Summary{sums[2], sums[3], sums[0], sums[1]}, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if len(skipped) != 2 {
		t.Errorf("skipped %v, want the items of format 1 and 4", skipped)
	}
	for key, err := range skipped {
		if !errors.Is(err, ErrItem) {
			t.Errorf("%s: %v, want ErrItem", key, err)
		}
	}
}

// TestCorruptItemKeepsTheCause: an item whose summary does not decode is
// refused with ErrItem, and the error still says why (history.ErrCorrupt,
// or history.ErrVersion for a newer build's summary).
func TestCorruptItemKeepsTheCause(t *testing.T) {
	item, err := mustNew(t, nil, "H", Options{Retention: time.Hour}).Item(summaries(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	enc := item[AttrSummary].(*types.AttributeValueMemberB).Value
	for name, c := range map[string]struct {
		change func([]byte)
		cause  error
	}{
		"a byte flipped":      {func(b []byte) { b[len(b)/2] ^= 1 }, history.ErrCorrupt},
		"a newer version":     {func(b []byte) { b[2] = history.NewestVersion + 1 }, history.ErrVersion},
		"its checksum broken": {func(b []byte) { b[len(b)-1] ^= 0xff }, history.ErrCorrupt},
	} {
		bad := maps.Clone(item)
		b := append([]byte(nil), enc...)
		c.change(b)
		bad[AttrSummary] = &types.AttributeValueMemberB{Value: b}
		if _, _, err := decodeShard(bad); !errors.Is(err, ErrItem) || !errors.Is(err, c.cause) {
			t.Errorf("%s: %v, want ErrItem and %v", name, err, c.cause)
		}
	}
}

// TestNew: a Table needs a name, write shards from 1 to MaxWriteShards (0
// is DefaultWriteShards) and a retention of at least 0; anything else is
// refused with ErrConfig.
func TestNew(t *testing.T) {
	for _, c := range []struct {
		opts   Options
		shards int
	}{{Options{}, DefaultWriteShards}, {Options{WriteShards: 1}, 1}, {Options{WriteShards: MaxWriteShards, Retention: time.Hour}, MaxWriteShards}} {
		table, err := New(nil, "H", c.opts)
		if err != nil || table.Name() != "H" || table.WriteShards() != c.shards || table.Retention() != c.opts.Retention {
			t.Errorf("%+v: %+v, %v; want %d write shards", c.opts, table, err, c.shards)
		}
	}
	for name, c := range map[string]struct {
		name string
		opts Options
	}{
		"no name":               {"", Options{}},
		"2,000 write shards":    {"H", Options{WriteShards: 2000}},
		"negative write shards": {"H", Options{WriteShards: -1}},
		"negative retention":    {"H", Options{Retention: -time.Hour}},
	} {
		if table, err := New(nil, c.name, c.opts); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %+v, %v; want ErrConfig", name, table, err)
		}
	}
}
