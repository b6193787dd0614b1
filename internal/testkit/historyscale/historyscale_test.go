package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestServesWhatTheReaderReads serves a small table and reads it back with
// history/store's Reader through the SDK's own DynamoDB client: the
// coverage, every rollup and every shard's window, in order, each page
// within 1 MB and each one continued from its LastEvaluatedKey.
func TestServesWhatTheReaderReads(t *testing.T) {
	cfg := config{table: "T", shards: 24, records: 1500, days: 2, end: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		writeShards: 8, shapes: 2, shardHours: 1}
	st, err := build(cfg, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	fake := &server{table: cfg.table, st: st}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	api := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}, store.ClientOptions)
	table, err := store.New(api, cfg.table, store.Options{WriteShards: cfg.writeShards})
	if err != nil {
		t.Fatal(err)
	}
	r := table.Reader(4)
	ctx := context.Background()
	day := cfg.end.Add(-24 * time.Hour)
	cov, err := r.Coverage(ctx, day, cfg.end)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov.Windows) != 24*60-2 || len(cov.Hours) != 22 || cov.WriteShards != 8 || cov.WindowLength != time.Minute {
		t.Fatalf("coverage: %d windows, %d hours, %d write shards, %s", len(cov.Windows), len(cov.Hours), cov.WriteShards, cov.WindowLength)
	}
	count := func(read func(fn func(*history.Summary) error) error) (n int, sources uint64) {
		var last time.Time
		err := read(func(s *history.Summary) error {
			if s.Start.Before(last) {
				t.Fatalf("%s after %s: out of order", s.Start, last)
			}
			last = s.Start
			n++
			sources += max(1, s.Sources)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n, sources
	}
	skip := func(key string, err error) { t.Errorf("skipped %s: %v", key, err) }
	if n, src := count(func(fn func(*history.Summary) error) error {
		return r.Rollups(ctx, store.Windows, day, cfg.end, fn, skip)
	}); n != 24*60-2 || src != uint64(n*cfg.shards) {
		t.Errorf("window rollups: %d of %d sources", n, src)
	}
	if n, src := count(func(fn func(*history.Summary) error) error {
		return r.Rollups(ctx, store.Hours, cfg.end.Add(-48*time.Hour), cfg.end, fn, skip)
	}); n != 46 || src != uint64(n*60*cfg.shards) {
		t.Errorf("hour rollups: %d of %d sources", n, src)
	}
	if n, _ := count(func(fn func(*history.Summary) error) error {
		return r.Shards(ctx, cfg.end.Add(-time.Hour), cfg.end, fn, skip)
	}); n != 60*cfg.shards {
		t.Errorf("shards' windows: %d, want %d", n, 60*cfg.shards)
	}
	// The layout of before write sharding reads the same.
	cfg.legacy = true
	old, err := build(cfg, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	fake.st = old
	if n, _ := count(func(fn func(*history.Summary) error) error {
		return r.Shards(ctx, cfg.end.Add(-time.Hour), cfg.end, fn, skip)
	}); n != 60*cfg.shards || len(old.parts[cfg.end.Add(-time.Hour).Format(time.DateOnly)]) != n {
		t.Errorf("shards' windows in the old layout: %d, want %d in one partition", n, 60*cfg.shards)
	}
	if fake.continued.Load() == 0 {
		t.Error("no query needed a second page: the 1 MB limit went untested")
	}
}

// BenchmarkRollupMinute is the rollup function's work for one minute of a
// table of 16, 256 and 1,000 stream shards (docs/deploy.md, Cost at 16,
// 256 and 1,000 shards): decode the shards' stored windows, merge them,
// compact the merged step and encode the rollup. The SDK's decoding of
// the Query responses is not in it. Making the 1,000 windows takes a
// minute or two before the timers start:
//
//	go test ./internal/testkit/historyscale -run '^$' -bench RollupMinute -benchtime 10x -benchmem
func BenchmarkRollupMinute(b *testing.B) {
	ids := shardIDs(1000, 7)
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	stored := make([][]byte, len(ids))
	for i, id := range ids {
		s, err := shardWindow("bench", id, i, start, 60000, 0)
		if err != nil {
			b.Fatal(err)
		}
		if stored[i], err = s.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []int{16, 256, 1000} {
		b.Run(fmt.Sprintf("shards=%d", n), func(b *testing.B) {
			for b.Loop() {
				sums := make([]*history.Summary, n)
				for i, data := range stored[:n] {
					sums[i] = &history.Summary{}
					if err := sums[i].UnmarshalBinary(data); err != nil {
						b.Fatal(err)
					}
				}
				r, err := rollupOf("bench", time.Minute, sums)
				if err != nil {
					b.Fatal(err)
				}
				if r.Sources != uint64(n) {
					b.Fatalf("rollup of %d windows, want %d", r.Sources, n)
				}
				out, err := r.MarshalRollup()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(out)), "B/rollup")
			}
		})
	}
}

// TestHeavyWorkload: the heavy workload's windows hold 45-byte keys, a
// flagged key on two shards in five, and no key of one minute in
// another's window, a shard's or a rollup, nor in another hour's rollup.
func TestHeavyWorkload(t *testing.T) {
	cfg := config{table: "T", shards: 10, records: 600, days: 1, end: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		writeShards: 2, shapes: 2, shardHours: 1, heavy: true}
	b := &builder{cfg: cfg, st: newServed(), progress: func(string) {}, cov: map[int64]*coverage{}}
	if err := b.makeShapes(); err != nil {
		t.Fatal(err)
	}
	flagged, keys := map[string]bool{}, map[string]int64{}
	for _, s := range b.shapes[0] {
		for _, k := range s.Keys {
			if len(k.Key) != heavyKeyLen {
				t.Errorf("key %q of %d bytes, want %d", k.Key, len(k.Key), heavyKeyLen)
			}
			if k.Severity != report.None {
				flagged[k.Key] = true
			}
		}
	}
	if len(flagged) != 4 {
		t.Errorf("%d keys flagged in a minute of 10 shards, want 4", len(flagged))
	}
	t0 := cfg.end.Add(-time.Hour)
	for m := range 3 {
		at := t0.Add(time.Duration(m) * time.Minute)
		for _, s := range []*history.Summary{b.minute(restamp(b.shapes[0][0], at)), b.minute(restamp(b.shapes[0][1], at))} {
			for _, k := range s.Keys {
				if first, ok := keys[k.Key]; ok && first != at.Unix() {
					t.Fatalf("%s in minutes %d and %d", k.Key, first, at.Unix())
				}
				keys[k.Key] = at.Unix()
			}
		}
	}
	h := b.shapes[0][0]
	a, c := rename(h, 1, true), rename(h, 2, true)
	if a.Keys[0].Key == c.Keys[0].Key || a.Keys[0].Key[heavyKeyLen-8:] != h.Keys[0].Key[heavyKeyLen-8:] {
		t.Errorf("hour tags: %q and %q of %q", a.Keys[0].Key, c.Keys[0].Key, h.Keys[0].Key)
	}
}
