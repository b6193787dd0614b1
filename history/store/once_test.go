package store

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestPutOnce: the final invocation batch that stores a window, delivered
// again, changes nothing (the item stays byte for byte as it was, and
// PutOnce says it stored nothing); another invocation of the same window
// replaces it, as Put does; a window stored by Put is replaced too.
func TestPutOnce(t *testing.T) {
	api, name := newHistoryTable(t)
	table := mustNew(t, api, name, Options{Retention: time.Hour})
	ctx := context.Background()
	s := summaries(t)[0]
	get := func() map[string]types.AttributeValue {
		t.Helper()
		out, err := api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
			AttrDay: &types.AttributeValueMemberS{Value: shardPartition(s.Start, s.Shard, DefaultWriteShards)}, AttrWindow: &types.AttributeValueMemberS{Value: windowKey(s.Start, s.Table, s.Shard, s.Index)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	put := func(sum *history.Summary, batch string, want bool) {
		t.Helper()
		if stored, err := table.PutOnce(ctx, sum, batch); err != nil || stored != want {
			t.Fatalf("PutOnce(batch %s) = %v, %v; want %v", batch, stored, err, want)
		}
	}
	put(s, "b1", true)
	if b, _ := get()[AttrBatch].(*types.AttributeValueMemberS); b == nil || b.Value != "b1" {
		t.Fatalf("item's batch %v, want b1", get()[AttrBatch])
	}
	first := dynamodblocal.Items(t, api, name)
	// Delivered again: the same summary, or one a later read of the same
	// state made (its figures a redelivery cannot change).
	other := *s
	other.Records++
	put(&other, "b1", false)
	if diff := cmp.Diff(first, dynamodblocal.Items(t, api, name)); diff != "" {
		t.Errorf("the same batch again changed the item (-before +after):\n%s", diff)
	}
	put(&other, "b2", true)
	if got, _, err := decodeShard(get()); err != nil || got.Records != other.Records {
		t.Errorf("another batch's window: %d records, %v; want %d, replaced", got.Records, err, other.Records)
	}
	if err := table.Put(ctx, s); err != nil {
		t.Fatal(err)
	}
	put(s, "b2", true)
}
