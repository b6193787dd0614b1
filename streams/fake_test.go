package streams_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// fakeStream is an in-process DynamoDB stream with what DynamoDB Local
// cannot produce: many shards (so DescribeStream paginates), splits into
// child shards, trimmed records, expiring iterators, empty pages and
// throttling. It follows the Streams API's documented behaviour; sequence
// numbers are global and increasing.
type fakeStream struct {
	mu       sync.Mutex
	arn      string
	status   types.StreamStatus
	shards   []*fakeShard // in DescribeStream order
	byID     map[string]*fakeShard
	seq      int
	pageCap  int // DescribeStream pages hold at most this many shards
	describe []dynamodbstreams.DescribeStreamInput
	iters    []dynamodbstreams.GetShardIteratorInput
	gets     int             // GetRecords calls
	listed   map[string]bool // shards DescribeStream has returned
	fail     func(op string, shard string) error
	// changed is closed, and replaced, on every call: tests wait on it for
	// the reader to do something instead of polling (see await).
	changed chan struct{}
}

type fakeShard struct {
	id, parent string
	records    []types.Record
	trimmed    int  // records[:trimmed] are past the retention period
	closed     bool // no more records; the iterator ends after the last one
	pageMax    int  // at most this many records per page, whatever Limit says
	emptyEvery int  // every emptyEvery-th GetRecords returns an empty page
	expireAt   map[int]bool
	calls      int
}

func newFakeStream(name string) *fakeStream {
	return &fakeStream{
		arn:     "arn:aws:dynamodb:us-east-1:123456789012:table/" + name + "/stream/2026-11-22T10:00:00.000",
		status:  types.StreamStatusEnabled,
		byID:    make(map[string]*fakeShard),
		listed:  make(map[string]bool),
		pageCap: 100,
		changed: make(chan struct{}),
	}
}

// called records that the reader made a call; f.mu is held.
func (f *fakeStream) called() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// await blocks until cond, run under f.mu, holds after some call of the
// reader's (or already does).
func (f *fakeStream) await(t testing.TB, what string, cond func() bool) {
	t.Helper()
	await(t, what, &f.mu, &f.changed, nil, cond)
}

// end closes every shard and disables the stream, as deleting the table
// does: a Reader reads what is left and returns ErrStreamEnded, so a test
// knows that nothing more can be delivered without waiting to see.
func (f *fakeStream) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.shards {
		s.closed = true
	}
	f.status = types.StreamStatusDisabled
}

// addShard adds a shard; parent may be "".
func (f *fakeStream) addShard(id, parent string, opts ...func(*fakeShard)) *fakeShard {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &fakeShard{id: id, parent: parent, pageMax: 1000}
	for _, o := range opts {
		o(s)
	}
	f.shards = append(f.shards, s)
	f.byID[id] = s
	return s
}

// write appends n records to an open shard and returns their sequence numbers.
func (f *fakeStream) write(id string, n int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.byID[id]
	if s.closed {
		panic("write to closed shard " + id)
	}
	var seqs []string
	for range n {
		f.seq++
		seq := fmt.Sprintf("%021d", f.seq)
		seqs = append(seqs, seq)
		s.records = append(s.records, types.Record{
			EventID:      aws.String(fmt.Sprintf("ev-%d", f.seq)),
			EventName:    types.OperationTypeInsert,
			EventVersion: aws.String("1.1"),
			EventSource:  aws.String("aws:dynamodb"),
			AwsRegion:    aws.String("us-east-1"),
			Dynamodb: &types.StreamRecord{
				ApproximateCreationDateTime: aws.Time(time.Unix(1795315260, 0)),
				Keys:                        map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}},
				NewImage: map[string]types.AttributeValue{
					"pk":  &types.AttributeValueMemberS{Value: id},
					"seq": &types.AttributeValueMemberN{Value: strconv.Itoa(f.seq)},
				},
				SequenceNumber: aws.String(seq),
				SizeBytes:      aws.Int64(20),
				StreamViewType: types.StreamViewTypeNewAndOldImages,
			},
		})
	}
	return seqs
}

func (f *fakeStream) close(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byID[id].closed = true
}

// trim makes the first n records of a shard unreadable.
func (f *fakeStream) trim(id string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byID[id].trimmed = n
}

func (f *fakeStream) iteratorCalls() []dynamodbstreams.GetShardIteratorInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]dynamodbstreams.GetShardIteratorInput(nil), f.iters...)
}

func (f *fakeStream) DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.describe = append(f.describe, *in)
	defer f.called()
	if err := f.injected("DescribeStream", ""); err != nil {
		return nil, err
	}
	if aws.ToString(in.StreamArn) != f.arn {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: Stream: " + aws.ToString(in.StreamArn) + " not found")}
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, fmt.Errorf("fake: DescribeStream Limit %d out of range", *in.Limit)
		}
		limit = int(*in.Limit)
	}
	limit = min(limit, f.pageCap)
	start := 0
	if id := aws.ToString(in.ExclusiveStartShardId); id != "" {
		start = -1
		for i, s := range f.shards {
			if s.id == id {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, fmt.Errorf("fake: ExclusiveStartShardId %s unknown", id)
		}
	}
	d := &types.StreamDescription{StreamArn: aws.String(f.arn), StreamStatus: f.status, StreamViewType: types.StreamViewTypeNewAndOldImages}
	end := min(start+limit, len(f.shards))
	for _, s := range f.shards[start:end] {
		sh := types.Shard{ShardId: aws.String(s.id), SequenceNumberRange: &types.SequenceNumberRange{StartingSequenceNumber: aws.String("0")}}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		if s.closed {
			sh.SequenceNumberRange.EndingSequenceNumber = aws.String(fmt.Sprintf("%021d", f.seq))
		}
		d.Shards = append(d.Shards, sh)
		f.listed[s.id] = true
	}
	if end < len(f.shards) {
		d.LastEvaluatedShardId = aws.String(f.shards[end-1].id)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: d}, nil
}

// Iterators are "shard|position": the index of the next record to read.
func (f *fakeStream) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.iters = append(f.iters, *in)
	defer f.called()
	id := aws.ToString(in.ShardId)
	if err := f.injected("GetShardIterator", id); err != nil {
		return nil, err
	}
	s, ok := f.byID[id]
	if !ok || aws.ToString(in.StreamArn) != f.arn {
		return nil, &types.ResourceNotFoundException{Message: aws.String("shard " + id + " not found")}
	}
	var pos int
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeTrimHorizon:
		pos = s.trimmed
	case types.ShardIteratorTypeLatest:
		pos = len(s.records)
	case types.ShardIteratorTypeAfterSequenceNumber, types.ShardIteratorTypeAtSequenceNumber:
		pos = -1
		for i, r := range s.records {
			if *r.Dynamodb.SequenceNumber == aws.ToString(in.SequenceNumber) {
				pos = i
			}
		}
		if pos < 0 {
			return nil, fmt.Errorf("fake: sequence number %s is not in shard %s", aws.ToString(in.SequenceNumber), id)
		}
		if pos < s.trimmed {
			return nil, &types.TrimmedDataAccessException{Message: aws.String("sequence number " + aws.ToString(in.SequenceNumber) + " is trimmed")}
		}
		if in.ShardIteratorType == types.ShardIteratorTypeAfterSequenceNumber {
			pos++
		}
	default:
		return nil, fmt.Errorf("fake: iterator type %q", in.ShardIteratorType)
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(fmt.Sprintf("%s|%d", id, pos))}, nil
}

func (f *fakeStream) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	defer f.called()
	id, p, ok := strings.Cut(aws.ToString(in.ShardIterator), "|")
	pos, err := strconv.Atoi(p)
	s, known := f.byID[id]
	if !ok || err != nil || !known {
		return nil, fmt.Errorf("fake: bad iterator %q", aws.ToString(in.ShardIterator))
	}
	if err := f.injected("GetRecords", id); err != nil {
		return nil, err
	}
	s.calls++
	if s.expireAt[s.calls] {
		return nil, &types.ExpiredIteratorException{Message: aws.String("Iterator expired")}
	}
	if pos < s.trimmed {
		return nil, &types.TrimmedDataAccessException{Message: aws.String("records before " + strconv.Itoa(s.trimmed) + " are trimmed")}
	}
	if in.Limit == nil || *in.Limit < 1 || *in.Limit > 1000 {
		return nil, fmt.Errorf("fake: GetRecords Limit %v", in.Limit)
	}
	out := &dynamodbstreams.GetRecordsOutput{}
	next := pos
	if s.emptyEvery == 0 || s.calls%s.emptyEvery != 0 {
		next = min(pos+int(*in.Limit), pos+s.pageMax, len(s.records))
		out.Records = append(out.Records, s.records[pos:next]...)
	}
	if !(s.closed && next == len(s.records)) {
		out.NextShardIterator = aws.String(fmt.Sprintf("%s|%d", id, next))
	}
	return out, nil
}

func (f *fakeStream) injected(op, shard string) error {
	if f.fail == nil {
		return nil
	}
	return f.fail(op, shard)
}
