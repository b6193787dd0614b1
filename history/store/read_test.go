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

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
)

// shardWindow is a small stored window of shard at start.
func shardWindow(shard string, start time.Time, wcu uint64) *history.Summary {
	return &history.Summary{Table: "Orders", Shard: shard, Start: start, End: start.Add(time.Minute), Totals: report.Totals{Records: wcu, WCU: wcu}, DistinctKeys: 1,
		Keys:   []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "K", Type: "S", WCU: wcu, WCULower: wcu, WCUUpper: wcu}}},
		Shards: []report.ShardReport{{Shard: shard, Records: wcu, WCU: wcu}}}
}

func newHistoryTable(t *testing.T) (*dynamodb.Client, string) {
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "history", HashKey: AttrDay, RangeKey: AttrWindow, NoStream: true})
	return ddb, table
}

// mustNew returns the Table New does, failing t if it refuses.
func mustNew(t *testing.T, api API, name string, opts Options) *Table {
	t.Helper()
	table, err := New(api, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestReadBothLayouts stores windows of 20 shards over three minutes under
// 8 write shards, and beside them windows stored by a build before write
// sharding (one partition key value a day), one of them stored in both
// layouts (a final invoke redelivered across the upgrade): reading
// returns each window once, in order of start and shard, whatever the
// write shard or layout; a reader of fewer write shards than the writer's
// misses windows, one of more finds them all.
func TestReadBothLayouts(t *testing.T) {
	ddb, table := newHistoryTable(t)
	ctx := context.Background()
	before, eight := mustNew(t, ddb, table, Options{WriteShards: 1, Retention: time.Hour}), mustNew(t, ddb, table, Options{WriteShards: 8, Retention: time.Hour})
	var want []*history.Summary
	for m := range 3 {
		start := t0.Add(time.Duration(m) * time.Minute)
		for sh := range 20 {
			s := shardWindow(fmt.Sprintf("shardId-%03d", sh), start, uint64(m*100+sh+1))
			want = append(want, s)
			if sh%5 == 0 {
				// Stored before write sharding: partition key the day.
				item, err := before.Item(s)
				if err != nil {
					t.Fatal(err)
				}
				item[AttrDay] = &types.AttributeValueMemberS{Value: day(s.Start)}
				delete(item, AttrWriteShards)
				if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
					t.Fatal(err)
				}
				if sh != 5 || m != 1 {
					continue
				}
			}
			if err := eight.Put(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(writeShards int) ([]*history.Summary, map[string]error) {
		r := mustNew(t, ddb, table, Options{WriteShards: writeShards}).Reader(3)
		var got []*history.Summary
		skipped := map[string]error{}
		err := r.Shards(ctx, t0, t0.Add(3*time.Minute), func(s *history.Summary) error {
			got = append(got, s)
			return nil
		}, func(key string, err error) { skipped[key] = err })
		if err != nil {
			t.Fatal(err)
		}
		return got, skipped
	}
	for _, n := range []int{8, 64} {
		got, skipped := read(n)
		if diff := cmp.Diff(want, got); diff != "" || len(skipped) > 0 {
			t.Errorf("%d write shards read: skipped %v; (-want +got):\n%s", n, skipped, diff)
		}
	}
	if got, _ := read(2); len(got) >= len(want) {
		t.Errorf("a reader of 2 write shards found all %d windows written under 8", len(got))
	}
	// A Table of the default write shards reads them all.
	var n int
	r := mustNew(t, ddb, table, Options{}).Reader(0)
	if err := r.Shards(ctx, t0, t0.Add(3*time.Minute), func(*history.Summary) error { n++; return nil }, func(string, error) {}); err != nil || n != len(want) {
		t.Errorf("the default write shards: %d windows, %v; want %d", n, err, len(want))
	}
}

// TestReadStopsOnError: an error of fn stops the read of 30 write shards
// at once and is returned as it is.
func TestReadStopsOnError(t *testing.T) {
	ddb, name := newHistoryTable(t)
	table := mustNew(t, ddb, name, Options{Retention: time.Hour})
	ctx := context.Background()
	for sh := range 30 {
		if err := table.Put(ctx, shardWindow(fmt.Sprintf("s%02d", sh), t0, 1)); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("enough")
	n := 0
	err := table.Reader(0).Shards(ctx, t0, t0.Add(time.Minute), func(*history.Summary) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	}, func(string, error) {})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("%v after %d windows, want the error after 3", err, n)
	}
}

// TestRollupsAndCoverage stores window rollups and an hour rollup: a
// rollup of fewer sources never replaces one of more, one of as many does
// (a rerun), and they read back in order, with the coverage the job marked
// (settled windows, the hour, the write shards).
func TestRollupsAndCoverage(t *testing.T) {
	ddb, name := newHistoryTable(t)
	table := mustNew(t, ddb, name, Options{WriteShards: 16, Retention: time.Hour})
	ctx := context.Background()
	rollup := func(start time.Time, length time.Duration, sources uint64, index string) *history.Summary {
		s := shardWindow("", start, sources*10)
		s.End, s.Sources, s.Index = start.Add(length), sources, index
		s.Shards = nil
		return s
	}
	at := t0.Add(59 * time.Minute) // the last minute of an hour, then the first of the next
	var want []*history.Summary
	for i, start := range []time.Time{at, at.Add(time.Minute)} {
		for _, index := range []string{"", "GSI1"} {
			s := rollup(start, time.Minute, uint64(3+i), index)
			stored, err := table.PutRollup(ctx, Windows, s, start.Add(2*time.Minute), false)
			if err != nil || !stored {
				t.Fatalf("put %v: %v", stored, err)
			}
			want = append(want, s)
		}
		if err := table.MarkWindow(ctx, start, time.Minute, i == 0); err != nil {
			t.Fatal(err)
		}
	}
	// A run that read fewer windows does not undo a better one; a rerun
	// of as many stores again.
	if stored, err := table.PutRollup(ctx, Windows, rollup(at, time.Minute, 2, ""), at, true); err != nil || stored {
		t.Errorf("a rollup of 2 sources over one of 3: stored %v, %v", stored, err)
	}
	if stored, err := table.PutRollup(ctx, Windows, want[0], at.Add(70*time.Minute), true); err != nil || !stored {
		t.Errorf("a rerun: stored %v, %v", stored, err)
	}
	hour := rollup(t0, time.Hour, 120, "")
	if _, err := table.PutRollup(ctx, Hours, hour, t0.Add(2*time.Hour), true); err != nil {
		t.Fatal(err)
	}
	if err := table.MarkHour(ctx, t0); err != nil {
		t.Fatal(err)
	}
	r := mustNew(t, ddb, name, Options{}).Reader(1)
	var got []*history.Summary
	collect := func(s *history.Summary) error { got = append(got, s); return nil }
	fail := func(key string, err error) { t.Errorf("skipped %s: %v", key, err) }
	if err := r.Rollups(ctx, Windows, t0, t0.Add(2*time.Hour), collect, fail); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("window rollups (-want +got):\n%s", diff)
	}
	got = nil
	if err := r.Rollups(ctx, Hours, t0, t0.Add(2*time.Hour), collect, fail); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*history.Summary{hour}, got); diff != "" {
		t.Errorf("hour rollups (-want +got):\n%s", diff)
	}
	c, err := r.Coverage(ctx, t0, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantCov := &Coverage{Windows: map[int64]bool{at.Unix(): true, at.Unix() + 60: false}, Hours: map[int64]bool{t0.Unix(): true},
		WindowLength: time.Minute, WriteShards: 16}
	if diff := cmp.Diff(wantCov, c); diff != "" {
		t.Errorf("coverage (-want +got):\n%s", diff)
	}
	// A window rollup stored under a key not its own is skipped.
	item, _ := table.RollupItem(Windows, want[0], at, true)
	bad := maps.Clone(item)
	bad[AttrWindow] = &types.AttributeValueMemberS{Value: rollupKey(at, "Other", "")}
	if _, _, err := decodeRollup(bad, Windows); !errors.Is(err, ErrItem) {
		t.Errorf("a rollup under another table's key: %v, want ErrItem", err)
	}
	if _, _, err := decodeRollup(item, Hours); !errors.Is(err, ErrItem) {
		t.Errorf("a window rollup read as an hour's: %v, want ErrItem", err)
	}
}
