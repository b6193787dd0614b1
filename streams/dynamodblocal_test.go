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
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/internal/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/streams"
)

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
	timeout := time.After(30 * time.Second)
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

func (kr *keyReader) stop(t *testing.T) {
	t.Helper()
	kr.cancel()
	if err := <-kr.done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if len(kr.lost) > 0 || len(kr.bad) > 0 {
		t.Errorf("lost %v; bad records %v", kr.lost, kr.bad)
	}
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
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]ddb.AttributeValue{
			"pk": &ddb.AttributeValueMemberS{Value: key}, "v": &ddb.AttributeValueMemberN{Value: "1"},
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
	latest := startKeyReader(t, api, arn, streams.Latest)
	// LATEST takes effect when the reader's iterator is made, which the
	// test cannot see: write probes until one arrives, then the items.
	var probes []string
	for deadline := time.Now().Add(20 * time.Second); ; {
		probes = append(probes, fmt.Sprintf("probe-%03d", len(probes)))
		put(probes[len(probes)-1])
		time.Sleep(20 * time.Millisecond)
		latest.mu.Lock()
		seen := latest.counts[probes[len(probes)-1]] > 0 || len(latest.counts) > 0
		latest.mu.Unlock()
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the LATEST reader never delivered a probe")
		}
	}
	for i := range n {
		after = append(after, fmt.Sprintf("after-%03d", i))
		put(after[i])
	}
	horizon.waitFor(t, append(append(append([]string{}, before...), probes...), after...)...)
	latest.waitFor(t, after...)
	time.Sleep(100 * time.Millisecond) // nothing more may come
	horizon.stop(t)
	latest.stop(t)

	for _, k := range append(append(before, probes...), after...) {
		if c := horizon.counts[k]; c != 1 {
			t.Errorf("TRIM_HORIZON reader delivered %s %d times, want once", k, c)
		}
	}
	if len(horizon.counts) != 2*n+len(probes) {
		t.Errorf("TRIM_HORIZON reader delivered %d keys, want %d", len(horizon.counts), 2*n+len(probes))
	}
	firstProbe := len(probes)
	for i, p := range probes {
		if latest.counts[p] > 0 && i < firstProbe {
			firstProbe = i
		}
	}
	for k, c := range latest.counts {
		switch {
		case strings.HasPrefix(k, "before-"):
			t.Errorf("LATEST reader delivered %s, written before it started", k)
		case c != 1:
			t.Errorf("LATEST reader delivered %s %d times", k, c)
		}
	}
	// From the first probe it saw on, it saw every record.
	for _, k := range append(probes[firstProbe:], after...) {
		if latest.counts[k] != 1 {
			t.Errorf("LATEST reader missed %s (first probe seen: %s)", k, probes[firstProbe])
		}
	}
	if len(horizon.shards) != 1 || len(horizon.status) == 0 {
		t.Errorf("shards %v, status %q: DynamoDB Local has one shard per stream, and status should say so", horizon.shards, horizon.status)
	}
	t.Logf("probes written before LATEST took effect: %d; status: %q", firstProbe, horizon.status)
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
			Item: map[string]ddb.AttributeValue{"pk": &ddb.AttributeValueMemberS{Value: keys[i]}}})
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
		case <-time.After(30 * time.Second):
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
			Item: map[string]ddb.AttributeValue{"pk": &ddb.AttributeValueMemberS{Value: keys[i]}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	api := &expiringAPI{Client: client}
	kr := startKeyReader(t, api, arn, streams.TrimHorizon)
	kr.waitFor(t, keys...)
	time.Sleep(100 * time.Millisecond)
	kr.stop(t)
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
