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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// The Reader reads through the SDK's own client.
var _ streams.API = (*dynamodbstreams.Client)(nil)

// keyReader runs a Reader on DynamoDB Local and counts the partition keys
// of the records it delivers, decoded by record's decoder.
type keyReader struct {
	mu     sync.Mutex
	counts map[string]int
	shards map[string]bool
	lost   []error
	status []string
	bad    []string
	notify chan string // each key delivered, for waiters
	done   chan error
	cancel context.CancelFunc
}

func startKeyReader(t *testing.T, api streams.API, arn string, from streams.StartPosition) *keyReader {
	t.Helper()
	cfg := streams.DefaultConfig()
	cfg.StreamARN, cfg.From = arn, from
	cfg.MinPoll, cfg.MaxPoll, cfg.DescribeInterval = 5*time.Millisecond, 40*time.Millisecond, time.Second
	cfg.Limit = 37 // many pages
	r, err := streams.NewReader(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := record.NewDecoder(record.Config{PartitionKey: "pk"})
	if err != nil {
		t.Fatal(err)
	}
	kr := &keyReader{counts: map[string]int{}, shards: map[string]bool{}, notify: make(chan string, 10000), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	kr.cancel = cancel
	visit := record.Visitor{
		Record: func(r *record.Record) error {
			k := string(r.PartitionKey.Value)
			kr.counts[k]++
			if r.Table == "" || !strings.Contains(arn, "table/"+r.Table+"/") {
				kr.bad = append(kr.bad, fmt.Sprintf("record of %s has table %q", k, r.Table))
			}
			kr.notify <- k
			return nil
		},
		Malformed: func(m *record.Malformed) error { kr.bad = append(kr.bad, m.Err.Error()); return nil },
	}
	go func() {
		kr.done <- r.Run(ctx, streams.Handler{
			Batch: func(shardID string, payload []byte) error {
				kr.mu.Lock()
				defer kr.mu.Unlock()
				kr.shards[shardID] = true
				return dec.Decode(payload, visit)
			},
			Status: func(msg string) {
				kr.mu.Lock()
				defer kr.mu.Unlock()
				kr.status = append(kr.status, msg)
			},
			Lost: func(shardID string, err error) {
				kr.mu.Lock()
				defer kr.mu.Unlock()
				kr.lost = append(kr.lost, err)
			},
		})
	}()
	return kr
}

// waitFor waits until key has been delivered.
func (kr *keyReader) waitFor(t *testing.T, keys ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	kr.mu.Lock()
	for k := range want {
		if kr.counts[k] > 0 {
			delete(want, k)
		}
	}
	kr.mu.Unlock()
	timeout := time.After(safetyNet) // only against a hang
	for len(want) > 0 {
		select {
		case k := <-kr.notify:
			delete(want, k)
		case err := <-kr.done:
			t.Fatalf("Run stopped: %v", err)
		case <-timeout:
			t.Fatalf("%d keys never delivered, e.g. %v", len(want), want)
		}
	}
}

// endStream deletes table, which disables its stream and closes its shard.
// A Reader then reads what is left and returns ErrStreamEnded: once it has,
// nothing more can come, so a test need not wait and hope.
func endStream(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	if _, err := db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
}

// end waits for Run to return ErrStreamEnded, after endStream.
func (kr *keyReader) end(t *testing.T) {
	t.Helper()
	select {
	case err := <-kr.done:
		if !errors.Is(err, streams.ErrStreamEnded) {
			t.Errorf("Run = %v, want ErrStreamEnded", err)
		}
	case <-time.After(safetyNet): // only against a hang
		kr.cancel()
		<-kr.done
		t.Fatal("Run did not end after the table was deleted")
	}
	if len(kr.lost) > 0 || len(kr.bad) > 0 {
		t.Errorf("lost %v; bad records %v", kr.lost, kr.bad)
	}
}

// firstPoll is a Streams API that closes polled once the first GetRecords
// has answered: from then on the reader holds an iterator at a definite
// place in the shard, so everything written afterwards must reach it.
type firstPoll struct {
	streams.API
	once   sync.Once
	polled chan struct{}
}

func (f *firstPoll) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	out, err := f.API.GetRecords(ctx, in, opts...)
	if err == nil {
		f.once.Do(func() { close(f.polled) })
	}
	return out, err
}

// TestReaderOnDynamoDBLocal writes items before and after two Readers
// start, one from TRIM_HORIZON and one from LATEST (two readers: the most
// a shard allows), and checks that each delivers exactly what its start
// position promises, each record once.
func TestReaderOnDynamoDBLocal(t *testing.T) {
	db, api := dynamodblocal.Clients(t)
	table, arn := dynamodblocal.CreateTable(t, db, dynamodblocal.TableSpec{Prefix: "reader"})
	ctx := context.Background()
	put := func(key string) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]ddbtypes.AttributeValue{
			"pk": &ddbtypes.AttributeValueMemberS{Value: key}, "v": &ddbtypes.AttributeValueMemberN{Value: "1"},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	const n = 60
	var before, after []string
	for i := range n {
		before = append(before, fmt.Sprintf("before-%03d", i))
		put(before[i])
	}
	horizon := startKeyReader(t, api, arn, streams.TrimHorizon)
	// LATEST takes effect when the reader's iterator is made: write the
	// rest only once the LATEST reader has polled.
	poll := &firstPoll{API: api, polled: make(chan struct{})}
	latest := startKeyReader(t, poll, arn, streams.Latest)
	select {
	case <-poll.polled:
	case err := <-latest.done:
		t.Fatalf("the LATEST reader stopped: %v", err)
	case <-time.After(safetyNet): // only against a hang
		t.Fatal("the LATEST reader never polled")
	}
	for i := range n {
		after = append(after, fmt.Sprintf("after-%03d", i))
		put(after[i])
	}
	horizon.waitFor(t, append(append([]string{}, before...), after...)...)
	latest.waitFor(t, after...)
	endStream(t, db, table)
	horizon.end(t)
	latest.end(t)

	for _, k := range append(append([]string{}, before...), after...) {
		if c := horizon.counts[k]; c != 1 {
			t.Errorf("TRIM_HORIZON reader delivered %s %d times, want once", k, c)
		}
	}
	if len(horizon.counts) != 2*n {
		t.Errorf("TRIM_HORIZON reader delivered %d keys, want %d", len(horizon.counts), 2*n)
	}
	for _, k := range after {
		if c := latest.counts[k]; c != 1 {
			t.Errorf("LATEST reader delivered %s %d times, want once", k, c)
		}
	}
	if len(latest.counts) != n {
		t.Errorf("LATEST reader delivered %d keys, want the %d written after it polled (none written before)", len(latest.counts), n)
	}
	if len(horizon.shards) != 1 || len(horizon.status) == 0 {
		t.Errorf("shards %v, status %q: DynamoDB Local has one shard per stream, and status should say so", horizon.shards, horizon.status)
	}
	t.Logf("status: %q", horizon.status)
}

// TestReaderDeletedTableOnDynamoDBLocal: deleting a table disables its
// stream and closes its shard (DynamoDB Local does this too); the Reader
// reads the closed shard to its end and then reports that the stream ended.
func TestReaderDeletedTableOnDynamoDBLocal(t *testing.T) {
	db, api := dynamodblocal.Clients(t)
	table, arn := dynamodblocal.CreateTable(t, db, dynamodblocal.TableSpec{Prefix: "deleted"})
	ctx := context.Background()
	var keys []string
	for i := range 25 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: keys[i]}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		t.Fatal(err)
	}
	for _, from := range []streams.StartPosition{streams.TrimHorizon, streams.Latest} {
		kr := startKeyReader(t, api, arn, from)
		select {
		case err := <-kr.done:
			if !errors.Is(err, streams.ErrStreamEnded) {
				t.Errorf("%s: Run = %v, want ErrStreamEnded", from, err)
			}
		case <-time.After(safetyNet): // only against a hang
			kr.cancel()
			t.Fatalf("%s: Run did not end on a deleted table's stream", from)
		}
		want := 0
		if from == streams.TrimHorizon {
			want = len(keys)
			for _, k := range keys {
				if kr.counts[k] != 1 {
					t.Errorf("%s: %s delivered %d times, want once", from, k, kr.counts[k])
				}
			}
		}
		if len(kr.counts) != want || len(kr.lost) > 0 || len(kr.bad) > 0 {
			t.Errorf("%s: %d keys delivered, want %d; lost %v; bad %v", from, len(kr.counts), want, kr.lost, kr.bad)
		}
	}
}

// expiringAPI is DynamoDB Local's Streams API with every third GetRecords
// answered by ExpiredIteratorException (DynamoDB Local's iterators last
// 15 minutes too): the renewal, AFTER_SEQUENCE_NUMBER, is DynamoDB Local's.
type expiringAPI struct {
	*dynamodbstreams.Client
	gets, after atomic.Int32
}

func (e *expiringAPI) GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	if e.gets.Add(1)%3 == 0 {
		return nil, &streamtypes.ExpiredIteratorException{Message: aws.String("Iterator expired")}
	}
	return e.Client.GetRecords(ctx, in, opts...)
}

func (e *expiringAPI) GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, opts ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	if in.ShardIteratorType == streamtypes.ShardIteratorTypeAfterSequenceNumber {
		e.after.Add(1)
	}
	return e.Client.GetShardIterator(ctx, in, opts...)
}

func TestReaderRenewsIteratorOnDynamoDBLocal(t *testing.T) {
	db, client := dynamodblocal.Clients(t)
	table, arn := dynamodblocal.CreateTable(t, db, dynamodblocal.TableSpec{Prefix: "expire"})
	ctx := context.Background()
	var keys []string
	for i := range 80 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: keys[i]}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	api := &expiringAPI{Client: client}
	kr := startKeyReader(t, api, arn, streams.TrimHorizon)
	kr.waitFor(t, keys...)
	endStream(t, db, table)
	kr.end(t)
	for _, k := range keys {
		if kr.counts[k] != 1 {
			t.Errorf("%s delivered %d times, want once", k, kr.counts[k])
		}
	}
	if len(kr.counts) != len(keys) {
		t.Errorf("%d keys delivered, want %d", len(kr.counts), len(keys))
	}
	if api.after.Load() == 0 {
		t.Error("no AFTER_SEQUENCE_NUMBER iterator was taken")
	}
	if !slices.ContainsFunc(kr.status, func(s string) bool { return strings.Contains(s, "iterator expired") }) {
		t.Errorf("status %q does not report the renewed iterators", kr.status)
	}
}
