package dynamodblocal

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PutCharged writes items to table, eight at a time (DynamoDB Local answers
// faster in parallel), each with ReturnConsumedCapacity=TOTAL, and returns
// the WCU DynamoDB Local charged: summed per value of the string attribute
// keyAttr (the partition key), and in total. Those are the oracle the
// integration tests hold hotkeys' figures against. A failed write fails t.
func PutCharged(t testing.TB, ddb *dynamodb.Client, table, keyAttr string, items []map[string]types.AttributeValue) (perKey map[string]uint64, total uint64) {
	t.Helper()
	perKey = map[string]uint64{}
	putEach(t, ddb, table, items, types.ReturnConsumedCapacityTotal, func(item map[string]types.AttributeValue, cc *types.ConsumedCapacity) {
		wcu := uint64(aws.ToFloat64(cc.CapacityUnits))
		key := ""
		if s, ok := item[keyAttr].(*types.AttributeValueMemberS); ok {
			key = s.Value
		}
		perKey[key] += wcu
		total += wcu
	})
	return perKey, total
}

// PutIndexesCharged writes items to table as PutCharged does, each with
// ReturnConsumedCapacity=INDEXES, and returns the WCU DynamoDB Local
// charged the table's global secondary indexes, all together.
func PutIndexesCharged(t testing.TB, ddb *dynamodb.Client, table string, items []map[string]types.AttributeValue) uint64 {
	t.Helper()
	var total float64
	putEach(t, ddb, table, items, types.ReturnConsumedCapacityIndexes, func(_ map[string]types.AttributeValue, cc *types.ConsumedCapacity) {
		for _, c := range cc.GlobalSecondaryIndexes {
			total += aws.ToFloat64(c.CapacityUnits)
		}
	})
	return uint64(total)
}

// putEach puts items, eight at a time, and hands each one's consumed
// capacity to charged, one call at a time. A failed write fails t.
func putEach(t testing.TB, ddb *dynamodb.Client, table string, items []map[string]types.AttributeValue,
	rcc types.ReturnConsumedCapacity, charged func(map[string]types.AttributeValue, *types.ConsumedCapacity)) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, item := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out, err := ddb.PutItem(context.Background(), &dynamodb.PutItemInput{
				TableName:              aws.String(table),
				Item:                   item,
				ReturnConsumedCapacity: rcc,
			})
			if err != nil {
				t.Errorf("PutItem: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			charged(item, out.ConsumedCapacity)
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// Item is a test item of string attributes PK and SK and a body of size
// bytes, for PutCharged.
func Item(pk, sk string, size int) map[string]types.AttributeValue {
	body := make([]byte, size)
	for i := range body {
		body[i] = 'x'
	}
	return map[string]types.AttributeValue{
		"PK":   &types.AttributeValueMemberS{Value: pk},
		"SK":   &types.AttributeValueMemberS{Value: sk},
		"body": &types.AttributeValueMemberS{Value: string(body)},
	}
}
