package kinesislocal_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesislocal"
)

// TestEndpointWithoutKinesalite runs this test binary again without the
// endpoint: it must skip outside CI and fail in CI.
func TestEndpointWithoutKinesalite(t *testing.T) {
	dynamodblocal.CheckEndpointRule(t, "TestEndpointWithoutKinesalite", kinesislocal.EndpointEnv, kinesislocal.Endpoint)
}

// TestWhatKinesaliteAnswers pins what kinesalite 3.3.3 does with
// aws-sdk-go-v2's Kinesis client, as docs/kinesis.md lists it: what the
// reader and the bridge rely on works, and what it lacks fails as said, so
// that a new kinesalite that changes either is noticed.
func TestWhatKinesaliteAnswers(t *testing.T) {
	api := kinesislocal.Client(t)
	ctx := context.Background()
	name, arn := kinesislocal.CreateStream(t, api, "answers", 2)
	if arn != kinesislocal.StreamARN(name) {
		t.Errorf("ARN %s, want %s", arn, kinesislocal.StreamARN(name))
	}
	named := aws.String(name)

	// ListShards by name: every shard in one page, whatever MaxResults says.
	ls, err := api.ListShards(ctx, &kinesis.ListShardsInput{StreamName: named, MaxResults: aws.Int32(1)})
	if err != nil || len(ls.Shards) != 2 || ls.NextToken != nil {
		t.Fatalf("ListShards MaxResults 1: %v, %d shards, token %v; want 2 shards and no token", err, len(ls.Shards), ls.NextToken)
	}
	if got := aws.ToString(ls.Shards[1].HashKeyRange.StartingHashKey); got != "170141183460469231731687303715884105728" {
		t.Errorf("shard 1 starts at hash key %s, want 2^127", got)
	}

	// PutRecord with an explicit hash key goes to the shard owning it.
	put, err := api.PutRecord(ctx, &kinesis.PutRecordInput{StreamName: named, PartitionKey: aws.String("0123456789ABCDEF0123456789ABCDEF"),
		Data: []byte("x"), ExplicitHashKey: aws.String("170141183460469231731687303715884105728")})
	if err != nil || aws.ToString(put.ShardId) != "shardId-000000000001" || len(aws.ToString(put.SequenceNumber)) != 56 {
		t.Fatalf("PutRecord: %v, %+v; want shard 1 and a 56-digit sequence number", err, put)
	}
	puts, err := api.PutRecords(ctx, &kinesis.PutRecordsInput{StreamName: named, Records: []types.PutRecordsRequestEntry{
		{PartitionKey: aws.String("a"), Data: []byte("y"), ExplicitHashKey: aws.String("0")},
		{PartitionKey: aws.String("b"), Data: []byte("z"), ExplicitHashKey: aws.String("0")},
	}})
	if err != nil || aws.ToInt32(puts.FailedRecordCount) != 0 || aws.ToString(puts.Records[1].ShardId) != "shardId-000000000000" {
		t.Fatalf("PutRecords: %v, %+v", err, puts)
	}

	// GetShardIterator (TRIM_HORIZON, AT_TIMESTAMP) and GetRecords, in put order.
	for _, typ := range []types.ShardIteratorType{types.ShardIteratorTypeTrimHorizon, types.ShardIteratorTypeAtTimestamp} {
		in := &kinesis.GetShardIteratorInput{StreamName: named, ShardId: aws.String("shardId-000000000000"), ShardIteratorType: typ}
		if typ == types.ShardIteratorTypeAtTimestamp {
			in.Timestamp = aws.Time(time.Now().Add(-time.Hour))
		}
		it, err := api.GetShardIterator(ctx, in)
		if err != nil {
			t.Fatalf("GetShardIterator %s: %v", typ, err)
		}
		gr, err := api.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil || len(gr.Records) != 2 || string(gr.Records[0].Data) != "y" || string(gr.Records[1].Data) != "z" ||
			gr.Records[0].ApproximateArrivalTimestamp == nil || gr.NextShardIterator == nil || aws.ToInt64(gr.MillisBehindLatest) != 0 {
			t.Fatalf("GetRecords from %s: %v, %+v", typ, err, gr)
		}
	}

	// SplitShard, then MergeShards: children name their parents; the
	// parent, read to its end, ends with no NextShardIterator.
	if _, err := api.SplitShard(ctx, &kinesis.SplitShardInput{StreamName: named, ShardToSplit: aws.String("shardId-000000000000"),
		NewStartingHashKey: aws.String("85070591730234615865843651857942052864")}); err != nil {
		t.Fatalf("SplitShard: %v", err)
	}
	if _, err := kinesislocal.WaitActive(ctx, api, name); err != nil {
		t.Fatal(err)
	}
	if _, err := api.MergeShards(ctx, &kinesis.MergeShardsInput{StreamName: named, ShardToMerge: aws.String("shardId-000000000002"),
		AdjacentShardToMerge: aws.String("shardId-000000000003")}); err != nil {
		t.Fatalf("MergeShards: %v", err)
	}
	if _, err := kinesislocal.WaitActive(ctx, api, name); err != nil {
		t.Fatal(err)
	}
	ls, err = api.ListShards(ctx, &kinesis.ListShardsInput{StreamName: named})
	if err != nil {
		t.Fatal(err)
	}
	var lineage []string
	for _, s := range ls.Shards {
		closed := s.SequenceNumberRange.EndingSequenceNumber != nil
		lineage = append(lineage, strings.Join([]string{aws.ToString(s.ShardId)[8:], aws.ToString(s.ParentShardId), aws.ToString(s.AdjacentParentShardId), map[bool]string{true: "closed", false: "open"}[closed]}, " "))
	}
	want := []string{"000000000000   closed", "000000000001   open", "000000000002 shardId-000000000000  closed",
		"000000000003 shardId-000000000000  closed", "000000000004 shardId-000000000002 shardId-000000000003 open"}
	if strings.Join(lineage, "\n") != strings.Join(want, "\n") {
		t.Errorf("shards after a split and a merge:\n%s\nwant\n%s", strings.Join(lineage, "\n"), strings.Join(want, "\n"))
	}
	it, err := api.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: named, ShardId: aws.String("shardId-000000000000"),
		ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	iter, pages := it.ShardIterator, 0
	for ; iter != nil && pages < 10; pages++ {
		gr, err := api.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: iter})
		if err != nil {
			t.Fatal(err)
		}
		if len(gr.ChildShards) != 0 {
			t.Errorf("kinesalite now reports ChildShards (%v): the reader could use them", gr.ChildShards)
		}
		iter = gr.NextShardIterator
	}
	if iter != nil {
		t.Errorf("a closed shard read for %d pages still has a NextShardIterator", pages)
	}

	// What it lacks: the StreamARN parameter, enhanced fan-out, UpdateShardCount.
	_, err = api.ListShards(ctx, &kinesis.ListShardsInput{StreamARN: aws.String(arn)})
	wantAPIError(t, "ListShards by StreamARN", err, "InvalidArgumentException")
	_, err = api.DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamARN: aws.String(arn)})
	wantAPIError(t, "DescribeStreamSummary by StreamARN", err, "ValidationException")
	_, err = api.RegisterStreamConsumer(ctx, &kinesis.RegisterStreamConsumerInput{StreamARN: aws.String(arn), ConsumerName: aws.String("hotkeys")})
	wantAPIError(t, "RegisterStreamConsumer", err, "UnknownOperationException")
	_, err = api.SubscribeToShard(ctx, &kinesis.SubscribeToShardInput{ConsumerARN: aws.String(arn + "/consumer/hotkeys:1"),
		ShardId: aws.String("shardId-000000000001"), StartingPosition: &types.StartingPosition{Type: types.ShardIteratorTypeTrimHorizon}})
	wantAPIError(t, "SubscribeToShard", err, "UnknownOperationException")
	_, err = api.UpdateShardCount(ctx, &kinesis.UpdateShardCountInput{StreamName: named, TargetShardCount: aws.Int32(4), ScalingType: types.ScalingTypeUniformScaling})
	wantAPIError(t, "UpdateShardCount", err, "UnknownOperationException")
	_, err = api.ListShards(ctx, &kinesis.ListShardsInput{StreamName: aws.String("no-such-stream")})
	var gone *types.ResourceNotFoundException
	if !errors.As(err, &gone) {
		t.Errorf("ListShards of a missing stream: %v, want ResourceNotFoundException", err)
	}
}

func wantAPIError(t *testing.T, what string, err error, code string) {
	t.Helper()
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}
