package dynamodblocal_test

import (
	"context"
	"math/big"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestStreamsSurviveASecondAccessKey is the minimal reproduction of a
// DynamoDB Local 1.11.478 bug, and the guard that scripts/with-dynamodb-local
// starts it with -sharedDb. Without -sharedDb, DynamoDB Local keeps one
// database per access key and region, but one stream sequence-number counter
// for the whole JVM, which every newly opened database resets to its own
// last sequence number. So a client with another access key (the CLI's
// client-demo uses "demo", the tests "test") rewinds the counter, and the
// next write to any stream table of the first database takes a sequence
// number its stream already holds: "UNIQUE constraint failed:
// us.SequenceNumber", InternalFailure, on every write until the counter has
// been pushed past the old records, one failed write at a time. With
// -sharedDb there is one database, opened once, whatever the credentials.
func TestStreamsSurviveASecondAccessKey(t *testing.T) {
	ddb, dds := dynamodblocal.Clients(t)
	// Retries would hide the failure: each failed write advances the counter.
	once := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
	ctx := context.Background()
	put := func(c *dynamodb.Client, table, pk string) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}}, once)
		return err
	}

	first, firstARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "seq-first"})
	for i := range 3 {
		if err := put(ddb, first, "before-"+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}

	// Another access key: without -sharedDb, its first request opens a
	// second database and rewinds the counter.
	other := dynamodb.New(dynamodb.Options{
		BaseEndpoint:                    aws.String(dynamodblocal.Endpoint(t)),
		Region:                          dynamodblocal.Region,
		Credentials:                     credentials.NewStaticCredentialsProvider("another-access-key", "x", ""),
		DisableValidateResponseChecksum: true,
	})
	if _, err := other.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}

	second, secondARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "seq-second"})
	if err := put(ddb, second, "after"); err != nil {
		t.Fatalf("a write to a stream table after another access key's first request failed "+
			"(is DynamoDB Local running without -sharedDb? see scripts/with-dynamodb-local): %v", err)
	}
	if err := put(ddb, first, "after"); err != nil {
		t.Fatalf("a second write failed: %v", err)
	}

	// Every record of both streams has its own sequence number, and each
	// stream's numbers increase in write order.
	seen := map[string]string{}
	for _, s := range []struct {
		arn  string
		want []string
	}{
		{firstARN, []string{"before-0", "before-1", "before-2", "after"}},
		{secondARN, []string{"after"}},
	} {
		var got []string
		var last *big.Int
		for _, r := range streamRecords(t, dds, s.arn) {
			seq := aws.ToString(r.Dynamodb.SequenceNumber)
			if prev, dup := seen[seq]; dup {
				t.Errorf("sequence number %s given twice: in %s and %s", seq, prev, s.arn)
			}
			seen[seq] = s.arn
			n, ok := new(big.Int).SetString(seq, 10)
			if !ok {
				t.Fatalf("sequence number %q is not a number", seq)
			}
			if last != nil && n.Cmp(last) <= 0 {
				t.Errorf("%s: sequence number %s after %s", s.arn, n, last)
			}
			last = n
			pk, _ := r.Dynamodb.Keys["pk"].(*streamtypes.AttributeValueMemberS)
			if pk == nil {
				t.Fatalf("%s: record without an S key pk: %+v", s.arn, r.Dynamodb.Keys)
			}
			got = append(got, pk.Value)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: keys in the stream (-want +got):\n%s", s.arn, diff)
		}
	}
}

// streamRecords reads the whole stream (DynamoDB Local gives a table one
// shard) from its trim horizon, until a read returns nothing.
func streamRecords(t *testing.T, dds *dynamodbstreams.Client, arn string) []streamtypes.Record {
	t.Helper()
	ctx := context.Background()
	d, err := dds.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	var out []streamtypes.Record
	for _, sh := range d.StreamDescription.Shards {
		it, err := dds.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
			ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		iter := it.ShardIterator
		for iter != nil {
			page, err := dds.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) == 0 {
				break
			}
			out = append(out, page.Records...)
			iter = page.NextShardIterator
		}
	}
	return out
}
