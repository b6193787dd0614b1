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
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			if err != nil {
				t.Errorf("PutItem: %v", err)
				return
			}
			wcu := uint64(aws.ToFloat64(out.ConsumedCapacity.CapacityUnits))
			key := ""
			if s, ok := item[keyAttr].(*types.AttributeValueMemberS); ok {
				key = s.Value
			}
			mu.Lock()
			defer mu.Unlock()
			perKey[key] += wcu
			total += wcu
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return perKey, total
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
