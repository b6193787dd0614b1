package kinesisstream_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
)

// fakeStream is an in-process Kinesis stream with what kinesalite does not
// do: ListShards pages (kinesalite ignores MaxResults), expiring iterators,
// throttling, and shards past the retention period. It follows the API's
// documented behaviour: ListShards takes the stream's name or a NextToken,
// never both; a closed shard's last page has no NextShardIterator.
type fakeStream struct {
	mu       sync.Mutex
	name     string
	shards   []*fakeShard
	pageCap  int
	lists    []kinesis.ListShardsInput
	iters    []kinesis.GetShardIteratorInput
	expireAt map[int]bool // the n-th GetRecords (from 1) fails ExpiredIteratorException
	throttle map[int]bool // the n-th GetRecords fails ProvisionedThroughputExceededException
	gets     int
}

type fakeShard struct {
	id, parent, adjacent string
	data                 []string // the records' data; sequence numbers are their index
	closed               bool
}

func (f *fakeStream) arn() string { return "arn:aws:kinesis:us-east-1:123456789012:stream/" + f.name }

func (f *fakeStream) ListShards(_ context.Context, in *kinesis.ListShardsInput, _ ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, *in)
	start := 0
	switch {
	case in.NextToken != nil && in.StreamName == nil:
		n, err := strconv.Atoi(*in.NextToken)
		if err != nil {
			return nil, &types.InvalidArgumentException{Message: aws.String("bad token")}
		}
		start = n
	case in.NextToken == nil && aws.ToString(in.StreamName) == f.name:
	case in.NextToken == nil:
		return nil, &types.ResourceNotFoundException{Message: aws.String("Stream " + aws.ToString(in.StreamName) + " not found")}
	default:
		return nil, &types.InvalidArgumentException{Message: aws.String("NextToken and StreamName cannot be provided together")}
	}
	end := min(start+f.pageCap, len(f.shards), start+int(aws.ToInt32(in.MaxResults)))
	out := &kinesis.ListShardsOutput{}
	for _, s := range f.shards[start:end] {
		sh := types.Shard{ShardId: aws.String(s.id), SequenceNumberRange: &types.SequenceNumberRange{StartingSequenceNumber: aws.String("0")}}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		if s.adjacent != "" {
			sh.AdjacentParentShardId = aws.String(s.adjacent)
		}
		if s.closed {
			sh.SequenceNumberRange.EndingSequenceNumber = aws.String(strconv.Itoa(len(s.data)))
		}
		out.Shards = append(out.Shards, sh)
	}
	if end < len(f.shards) {
		out.NextToken = aws.String(strconv.Itoa(end))
	}
	return out, nil
}

func (f *fakeStream) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.id == id {
			return s
		}
	}
	return nil
}

// Iterators are "shard/position".
func (f *fakeStream) GetShardIterator(_ context.Context, in *kinesis.GetShardIteratorInput, _ ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.iters = append(f.iters, *in)
	s := f.shard(aws.ToString(in.ShardId))
	if s == nil || aws.ToString(in.StreamName) != f.name {
		return nil, &types.ResourceNotFoundException{Message: aws.String("no shard " + aws.ToString(in.ShardId))}
	}
	pos := 0
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeTrimHorizon:
	case types.ShardIteratorTypeLatest:
		pos = len(s.data)
	case types.ShardIteratorTypeAfterSequenceNumber:
		n, err := strconv.Atoi(aws.ToString(in.StartingSequenceNumber))
		if err != nil {
			return nil, &types.InvalidArgumentException{Message: aws.String("bad sequence number")}
		}
		pos = n + 1
	default:
		return nil, &types.InvalidArgumentException{Message: aws.String("unexpected iterator type " + string(in.ShardIteratorType))}
	}
	return &kinesis.GetShardIteratorOutput{ShardIterator: aws.String(s.id + "/" + strconv.Itoa(pos))}, nil
}

func (f *fakeStream) GetRecords(_ context.Context, in *kinesis.GetRecordsInput, _ ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.expireAt[f.gets] {
		return nil, &types.ExpiredIteratorException{Message: aws.String("Iterator expired")}
	}
	if f.throttle[f.gets] {
		return nil, &types.ProvisionedThroughputExceededException{Message: aws.String("Rate exceeded for shard")}
	}
	id, p, _ := strings.Cut(aws.ToString(in.ShardIterator), "/")
	pos, _ := strconv.Atoi(p)
	s := f.shard(id)
	if s == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("no shard " + id)}
	}
	end := min(pos+int(aws.ToInt32(in.Limit)), len(s.data))
	out := &kinesis.GetRecordsOutput{MillisBehindLatest: aws.Int64(0)}
	for i := pos; i < end; i++ {
		out.Records = append(out.Records, types.Record{
			Data: []byte(s.data[i]), PartitionKey: aws.String("pk"), SequenceNumber: aws.String(strconv.Itoa(i)),
			ApproximateArrivalTimestamp: aws.Time(time.Unix(1795309200, 0)),
		})
	}
	if !(s.closed && end == len(s.data) && len(out.Records) == 0) {
		out.NextShardIterator = aws.String(id + "/" + strconv.Itoa(end))
	}
	return out, nil
}

// readFake reads f to the end (UntilCaughtUp) and returns each shard's data
// in delivery order, and the status lines.
func readFake(t *testing.T, f *fakeStream, limit int32) (got []string, status []string) {
	t.Helper()
	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN, cfg.From, cfg.UntilCaughtUp, cfg.Limit = f.arn(), kinesisstream.TrimHorizon, true, limit
	cfg.MinPoll, cfg.MaxPoll, cfg.ListInterval = time.Microsecond, 10*time.Microsecond, time.Millisecond
	r, err := kinesisstream.NewReader(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	err = r.Run(ctx, kinesisstream.Handler{
		Batch: func(shardID string, payload []byte) error {
			for _, d := range decodeData(t, payload) {
				got = append(got, shardID+":"+d)
			}
			return nil
		},
		Status: func(msg string) { status = append(status, msg) },
	})
	if !errors.Is(err, kinesisstream.ErrCaughtUp) {
		t.Fatalf("Run = %v, want ErrCaughtUp", err)
	}
	return got, status
}

// TestListShardsPages: 250 shards listed 100 at a time, the stream named in
// the first call only; every shard read.
func TestListShardsPages(t *testing.T) {
	f := &fakeStream{name: "many", pageCap: 100}
	want := map[string]bool{}
	for i := range 250 {
		id := fmt.Sprintf("shardId-%012d", i)
		f.shards = append(f.shards, &fakeShard{id: id, data: []string{"r" + strconv.Itoa(i)}})
		want[id+":r"+strconv.Itoa(i)] = true
	}
	got, _ := readFake(t, f, 10)
	if len(got) != len(want) {
		t.Errorf("delivered %d records, want %d", len(got), len(want))
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected or repeated %s", g)
		}
		delete(want, g)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	first := f.lists[0]
	if aws.ToString(first.StreamName) != "many" || first.NextToken != nil || aws.ToInt32(first.MaxResults) != 1000 {
		t.Errorf("first ListShards %+v: want the stream's name, no token, MaxResults 1000", first)
	}
	if second := f.lists[1]; second.StreamName != nil || aws.ToString(second.NextToken) != "100" {
		t.Errorf("second ListShards %+v: want only the token", second)
	}
}

// TestExpiredAndThrottled: an expired iterator is renewed after the last
// delivered record, a throttled read is retried: nothing lost or repeated.
func TestExpiredAndThrottled(t *testing.T) {
	f := &fakeStream{name: "s", pageCap: 100, expireAt: map[int]bool{2: true, 6: true}, throttle: map[int]bool{3: true, 4: true}}
	f.shards = []*fakeShard{{id: "shardId-000000000000", data: []string{"a", "b", "c", "d", "e"}, closed: true}}
	got, status := readFake(t, f, 2)
	if want := "shardId-000000000000:a shardId-000000000000:b shardId-000000000000:c shardId-000000000000:d shardId-000000000000:e"; strings.Join(got, " ") != want {
		t.Errorf("delivered %q, want %q", got, want)
	}
	var renewed []string
	f.mu.Lock()
	for _, in := range f.iters {
		renewed = append(renewed, string(in.ShardIteratorType)+" "+aws.ToString(in.StartingSequenceNumber))
	}
	f.mu.Unlock()
	if want := "TRIM_HORIZON ,AFTER_SEQUENCE_NUMBER 1,AFTER_SEQUENCE_NUMBER 3"; strings.Join(renewed, ",") != want {
		t.Errorf("iterators %q, want %q", renewed, want)
	}
	if !containsLine(status, "iterator expired; renewing it after sequence number 1") ||
		!containsLine(status, "GetRecords failed (1 in a row)") || !containsLine(status, "GetRecords failed (2 in a row)") {
		t.Errorf("status lines do not tell of the renewal and the retries:\n%s", strings.Join(status, "\n"))
	}
}

// TestMergeWaitsForBothParents: a merged shard is read only after both its
// parents; a child whose parent is past retention (no longer listed) is
// read at once.
func TestMergeWaitsForBothParents(t *testing.T) {
	f := &fakeStream{name: "m", pageCap: 100}
	f.shards = []*fakeShard{
		{id: "shardId-000000000001", data: []string{"p1", "p2", "p3"}, closed: true},
		{id: "shardId-000000000002", data: []string{"q1"}, closed: true},
		{id: "shardId-000000000003", parent: "shardId-000000000001", adjacent: "shardId-000000000002", data: []string{"m1"}},
		{id: "shardId-000000000004", parent: "shardId-000000000000", data: []string{"orphan"}}, // its parent expired
	}
	got, _ := readFake(t, f, 1)
	pos := map[string]int{}
	for i, g := range got {
		pos[g[strings.IndexByte(g, ':')+1:]] = i + 1
	}
	if len(got) != 6 || pos["m1"] < pos["p3"] || pos["m1"] < pos["q1"] || pos["orphan"] == 0 {
		t.Errorf("delivered %q: want all 6, m1 after p3 and q1", got)
	}
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestFatalErrors: access denied or an invalid argument stops Run with the
// error; throttling of ListShards after the first listing does not.
func TestFatalErrors(t *testing.T) {
	denied := &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized", Fault: smithy.FaultClient}
	api := failingAPI{err: denied}
	cfg := kinesisstream.DefaultConfig()
	cfg.StreamARN = "arn:aws:kinesis:us-east-1:123456789012:stream/s"
	r, err := kinesisstream.NewReader(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Run(context.Background(), kinesisstream.Handler{Batch: func(string, []byte) error { return nil }})
	if !errors.As(err, new(smithy.APIError)) || !strings.Contains(err.Error(), "AccessDeniedException") {
		t.Fatalf("Run = %v, want the access denied error", err)
	}
}

type failingAPI struct{ err error }

func (a failingAPI) ListShards(context.Context, *kinesis.ListShardsInput, ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error) {
	return nil, a.err
}

func (a failingAPI) GetShardIterator(context.Context, *kinesis.GetShardIteratorInput, ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error) {
	return nil, a.err
}

func (a failingAPI) GetRecords(context.Context, *kinesis.GetRecordsInput, ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error) {
	return nil, a.err
}
