package streams_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// fastConfig polls quickly, so that the in-process tests take milliseconds.
func fastConfig(arn string, from streams.StartPosition) streams.Config {
	cfg := streams.DefaultConfig()
	cfg.StreamARN = arn
	cfg.From = from
	cfg.MinPoll = time.Millisecond
	cfg.MaxPoll = 8 * time.Millisecond
	cfg.DescribeInterval = 20 * time.Millisecond
	return cfg
}

// TestReaderLineage reads a stream of 230 shards (three DescribeStream
// pages) with a tree of splits, from TRIM_HORIZON, while shards are
// written, closed and split, with empty pages, expiring iterators and
// throttling on the way: every record must come exactly once, in order,
// and every parent must be read to its end before its children start.
func TestReaderLineage(t *testing.T) {
	f := newFakeStream("Orders")
	small := func(s *fakeShard) { s.pageMax = 3 }
	flaky := func(s *fakeShard) { s.emptyEvery = 3; s.expireAt = map[int]bool{2: true, 7: true} }
	// Children listed before their parents: order in the listing means nothing.
	f.addShard("shard-b", "shard-a", small, flaky)
	f.addShard("shard-c", "shard-a", small)
	f.addShard("shard-a", "", small, flaky)
	f.addShard("shard-d", "shard-b", flaky)
	f.addShard("shard-e", "shard-gone") // its parent is past retention
	var want [][]string
	d0 := f.write("shard-d", 5)
	want = append(want, f.write("shard-a", 20), f.write("shard-b", 10), f.write("shard-c", 7), d0, f.write("shard-e", 4))
	f.close("shard-a")
	f.close("shard-b")
	for i := range 225 {
		id := fmt.Sprintf("shard-z%03d", i)
		f.addShard(id, "")
		if i%10 == 0 {
			want = append(want, f.write(id, 2))
		}
		if i%20 == 0 {
			f.close(id)
		}
	}
	var throttled atomic.Int32
	f.fail = func(op, shard string) error {
		// Each shard-c call fails once in five, throttled or with a 500.
		if shard != "shard-c" || throttled.Add(1)%5 != 0 {
			return nil
		}
		if throttled.Load()%2 == 0 {
			return &types.LimitExceededException{Message: aws.String("Rate exceeded for shard")}
		}
		return &types.InternalServerError{Message: aws.String("Internal error")}
	}

	r, err := streams.NewReader(f, fastConfig(f.arn, streams.TrimHorizon))
	if err != nil {
		t.Fatal(err)
	}
	// "pending" holds completion back until the late writes are known.
	c := newCollector(t, append(want, []string{"pending"})...)
	// While shard-d is being read (its first records are delivered, so its
	// ancestors are finished): more writes, a split of shard-d into shard-f
	// and shard-g, and writes to the children, which must wait for shard-d.
	// The reader is then known to have listed the children while their
	// parent is still open, with records left to read.
	var late [][]string
	err = c.run(t, r, f, func() {
		c.await(t, "shard-d's first records", func() bool { return c.delivered(d0) })
		late = append(late, f.write("shard-c", 6), f.write("shard-d", 8))
		f.addShard("shard-f", "shard-d")
		f.addShard("shard-g", "shard-d", small)
		late = append(late, f.write("shard-f", 4), f.write("shard-g", 9))
		f.await(t, "shard-f and shard-g to be listed", func() bool { return f.listed["shard-f"] && f.listed["shard-g"] })
		late = append(late, f.write("shard-d", 3))
		f.close("shard-d")
		late = append(late, f.write("shard-g", 2))
		c.expect(late...)
		c.settle("pending")
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c.checkExactlyOnce(t, append(want, late...)...)

	for _, pc := range [][2]string{{"shard-a", "shard-b"}, {"shard-a", "shard-c"}, {"shard-b", "shard-d"}, {"shard-d", "shard-f"}, {"shard-d", "shard-g"}} {
		_, parentLast := c.span(pc[0])
		childFirst, _ := c.span(pc[1])
		if parentLast < 0 || childFirst < 0 || childFirst < parentLast {
			t.Errorf("child %s started at delivery %d, before parent %s ended at %d", pc[1], childFirst, pc[0], parentLast)
		}
	}
	if len(c.lost) != 0 {
		t.Errorf("Lost called without trimmed data: %v", c.lost)
	}
	// DescribeStream was paginated within its limit, from the first page on.
	f.mu.Lock()
	pages := 0
	for _, in := range f.describe {
		if aws.ToInt32(in.Limit) > 100 {
			t.Errorf("DescribeStream Limit %d > 100", aws.ToInt32(in.Limit))
		}
		if in.ExclusiveStartShardId != nil {
			pages++
		}
	}
	f.mu.Unlock()
	if pages < 2 {
		t.Errorf("DescribeStream was never paginated over 230 shards")
	}
	// Expired iterators were renewed after the last delivered record.
	renewed := 0
	for _, in := range f.iteratorCalls() {
		if in.ShardIteratorType == types.ShardIteratorTypeAfterSequenceNumber {
			renewed++
		}
		if in.ShardIteratorType == types.ShardIteratorTypeLatest {
			t.Errorf("LATEST iterator taken when reading from TRIM_HORIZON")
		}
	}
	if renewed == 0 {
		t.Errorf("no AFTER_SEQUENCE_NUMBER iterator: expired iterators were not exercised")
	}
}

// TestReaderTrimmed: records trimmed while the reader is behind are
// reported through Lost, and reading goes on from the oldest record left,
// both when GetRecords and when GetShardIterator meet the trimmed data.
func TestReaderTrimmed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expire bool // the iterator also expires, so the renewal meets the trim
	}{
		{"GetRecords", false},
		{"GetShardIterator", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeStream("Trim")
			s := f.addShard("shard-1", "", func(s *fakeShard) { s.pageMax = 5 })
			all := f.write("shard-1", 30)
			if tc.expire {
				s.expireAt = map[int]bool{2: true}
			}
			r, err := streams.NewReader(f, fastConfig(f.arn, streams.TrimHorizon))
			if err != nil {
				t.Fatal(err)
			}
			c := newCollector(t, all[:5], all[12:])
			var once sync.Once
			c.onBatch = func(string, int) error {
				// After the first page (records 0-4), the stream drops 0-11.
				once.Do(func() { f.trim("shard-1", 12) })
				return nil
			}
			if err := c.run(t, r, f, nil); err != nil {
				t.Fatal(err)
			}
			c.checkExactlyOnce(t, all[:5], all[12:])
			lost := c.lost["shard-1"]
			if len(lost) != 1 {
				t.Fatalf("Lost called %d times, want 1: %v", len(lost), lost)
			}
			var tr *types.TrimmedDataAccessException
			if !errors.As(lost[0], &tr) || !strings.Contains(lost[0].Error(), all[4]) {
				t.Errorf("Lost error %v: want a TrimmedDataAccessException naming the last record read (%s)", lost[0], all[4])
			}
		})
	}
}

// TestReaderLatest: from LATEST, closed shards and old records are skipped,
// but a child shard found later is read from its start.
func TestReaderLatest(t *testing.T) {
	f := newFakeStream("Latest")
	f.addShard("old", "")
	f.write("old", 5)
	f.close("old")
	f.addShard("open-1", "old")
	f.addShard("open-2", "")
	f.write("open-1", 7)
	f.write("open-2", 3)
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.Latest))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, []string{"pending"})
	var want [][]string
	err = c.run(t, r, f, func() {
		// Write only once both open shards hold LATEST iterators: the fake
		// fixes a LATEST iterator's position when it hands it out.
		f.await(t, "two LATEST iterators", func() bool {
			latest := 0
			for _, in := range f.iters {
				if in.ShardIteratorType == types.ShardIteratorTypeLatest {
					latest++
				}
			}
			return latest >= 2
		})
		want = append(want, f.write("open-1", 4), f.write("open-2", 2))
		f.close("open-1")
		// A split found after start: written before the reader sees it.
		f.addShard("child", "open-1")
		want = append(want, f.write("child", 6))
		c.expect(want...)
		c.settle("pending")
	})
	if err != nil {
		t.Fatal(err)
	}
	c.checkExactlyOnce(t, want...)
	for _, in := range f.iteratorCalls() {
		id := aws.ToString(in.ShardId)
		switch {
		case id == "old":
			t.Errorf("closed shard %q read when starting from LATEST", id)
		case id == "child" && in.ShardIteratorType != types.ShardIteratorTypeTrimHorizon:
			t.Errorf("shard %s found after start read from %s, want TRIM_HORIZON", id, in.ShardIteratorType)
		}
	}
}

func TestReaderBatchErrorStopsRun(t *testing.T) {
	f := newFakeStream("Fail")
	for i := range 4 {
		id := fmt.Sprintf("s%d", i)
		f.addShard(id, "", func(s *fakeShard) { s.pageMax = 2 })
		f.write(id, 20)
	}
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.TrimHorizon))
	if err != nil {
		t.Fatal(err)
	}
	errBoom := errors.New("boom")
	var calls, after atomic.Int32
	h := newCollector(t).handler()
	batch := h.Batch
	h.Batch = func(shardID string, payload []byte) error {
		n := calls.Add(1)
		if n > 3 {
			after.Add(1)
		}
		if err := batch(shardID, payload); err != nil {
			return err
		}
		if n == 3 {
			return errBoom
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet) // only against a hang
	defer cancel()
	if err := r.Run(ctx, h); !errors.Is(err, errBoom) {
		t.Fatalf("Run = %v, want the Batch error", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run did not stop on the Batch error")
	}
	if n := after.Load(); n != 0 {
		t.Errorf("Batch called %d times after it failed", n)
	}
}

func TestReaderStopsOnCancel(t *testing.T) {
	f := newFakeStream("Idle")
	f.addShard("s", "")
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.Latest))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	c := newCollector(t)
	go func() { errc <- r.Run(ctx, c.handler()) }()
	idle := func() bool { // c.mu is held
		return slices.ContainsFunc(c.status, func(s string) bool { return strings.Contains(s, "idle") })
	}
	// The idle shard is reported once its polls back off to MaxPoll.
	c.await(t, "an idle shard to be reported", idle)
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(safetyNet):
		t.Fatal("Run did not return after cancel")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.status) == 0 || !strings.Contains(c.status[0], "1 shard open") {
		t.Errorf("status %q: want a shard count", c.status)
	}
	if !slices.ContainsFunc(c.status, func(s string) bool { return strings.Contains(s, "idle") }) {
		t.Errorf("status %q: an idle shard was never reported", c.status)
	}
}

func TestReaderFatalErrors(t *testing.T) {
	denied := &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform dynamodb:GetRecords", Fault: smithy.FaultClient}
	for _, tc := range []struct {
		name string
		arn  string
		fail func(op, shard string) error
		want any
	}{
		{"stream not found", "arn:aws:dynamodb:us-east-1:123456789012:table/Other/stream/x", nil, new(*types.ResourceNotFoundException)},
		{"describe denied", "", func(op, _ string) error {
			if op == "DescribeStream" {
				return denied
			}
			return nil
		}, new(*smithy.GenericAPIError)},
		{"get records denied", "", func(op, _ string) error {
			if op == "GetRecords" {
				return denied
			}
			return nil
		}, new(*smithy.GenericAPIError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeStream("Denied")
			f.addShard("s", "")
			f.write("s", 3)
			f.fail = tc.fail
			arn := tc.arn
			if arn == "" {
				arn = f.arn
			}
			r, err := streams.NewReader(f, fastConfig(arn, streams.TrimHorizon))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), safetyNet) // only against a hang
			defer cancel()
			err = r.Run(ctx, newCollector(t).handler())
			if err == nil || !errors.As(err, tc.want) || !strings.HasPrefix(err.Error(), "streams: ") {
				t.Errorf("Run = %v, want a streams error wrapping %T", err, tc.want)
			}
			if ctx.Err() != nil {
				t.Error("Run kept retrying a fatal error")
			}
		})
	}
}

func TestReaderStreamEnded(t *testing.T) {
	f := newFakeStream("Ended")
	f.addShard("p", "")
	f.addShard("c", "p")
	want := [][]string{f.write("p", 4), f.write("c", 3)}
	f.close("p")
	f.close("c")
	f.status = types.StreamStatusDisabled
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.TrimHorizon))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t)
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet) // only against a hang
	defer cancel()
	if err := r.Run(ctx, c.handler()); !errors.Is(err, streams.ErrStreamEnded) {
		t.Fatalf("Run = %v, want ErrStreamEnded", err)
	}
	c.checkExactlyOnce(t, want...)
}

func TestConfigValidate(t *testing.T) {
	good := fastConfig("arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2026-11-22T10:00:00.000", streams.Latest)
	if err := good.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	if err := streams.DefaultConfig().Validate(); !errors.Is(err, streams.ErrConfig) {
		t.Errorf("DefaultConfig without an ARN: Validate() = %v, want ErrConfig", err)
	}
	for _, tc := range []struct {
		field string
		edit  func(*streams.Config)
	}{
		{"StreamARN", func(c *streams.Config) { c.StreamARN = "arn:aws:dynamodb:us-east-1:123456789012:table/T" }},
		{"From", func(c *streams.Config) { c.From = "TRIM_HORIZON" }},
		{"MinPoll", func(c *streams.Config) { c.MinPoll = 0 }},
		{"MaxPoll", func(c *streams.Config) { c.MaxPoll = c.MinPoll / 2 }},
		{"Limit", func(c *streams.Config) { c.Limit = 0 }},
		{"Limit", func(c *streams.Config) { c.Limit = 1001 }},
		{"DescribeInterval", func(c *streams.Config) { c.DescribeInterval = -time.Second }},
	} {
		cfg := good
		tc.edit(&cfg)
		err := cfg.Validate()
		if !errors.Is(err, streams.ErrConfig) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: Validate() = %v, want ErrConfig naming the field", tc.field, err)
		}
		if _, err := streams.NewReader(newFakeStream("x"), cfg); !errors.Is(err, streams.ErrConfig) {
			t.Errorf("%s: NewReader accepted an invalid config: %v", tc.field, err)
		}
	}
	if _, err := streams.NewReader(nil, good); !errors.Is(err, streams.ErrConfig) {
		t.Errorf("NewReader(nil API) = %v, want ErrConfig", err)
	}
	r, _ := streams.NewReader(newFakeStream("x"), good)
	if err := r.Run(context.Background(), streams.Handler{}); !errors.Is(err, streams.ErrConfig) {
		t.Errorf("Run without Batch = %v, want ErrConfig", err)
	}
}

// TestReaderEndedAtStart: from LATEST, a disabled stream whose shards are
// all closed has nothing to give; Run says so instead of waiting forever.
func TestReaderEndedAtStart(t *testing.T) {
	f := newFakeStream("Disabled")
	f.addShard("p", "")
	f.write("p", 2)
	f.close("p")
	f.status = types.StreamStatusDisabled
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.Latest))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet) // only against a hang
	defer cancel()
	c := newCollector(t)
	if err := r.Run(ctx, c.handler()); !errors.Is(err, streams.ErrStreamEnded) {
		t.Fatalf("Run = %v, want ErrStreamEnded", err)
	}
	if len(c.count) != 0 {
		t.Errorf("records of a closed shard delivered from LATEST: %v", c.count)
	}
}

func TestReaderCancelledBeforeStart(t *testing.T) {
	f := newFakeStream("Cancelled")
	f.addShard("p", "")
	r, err := streams.NewReader(f, fastConfig(f.arn, streams.Latest))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx, newCollector(t).handler()); err != nil {
		t.Errorf("Run with a cancelled context = %v, want nil", err)
	}
}
