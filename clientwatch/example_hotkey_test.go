package clientwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
)

// A local cache absorbs a read-hot key: OnHotKey names the key the moment
// its reads cross 2,400 RCU within a second, and from then on the
// application serves it from memory, before DynamoDB throttles its
// partition. A stand-in server answers as DynamoDB would (a 400 KB item
// read strongly consistent: 100 RCU) and counts the reads that reach it.
func Example_hotKeyCache() {
	var reached atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		reached.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprint(w, `{"Item":{"pk":{"S":"celebrity"},"bio":{"S":"…"}},"ConsumedCapacity":{"TableName":"Profiles","CapacityUnits":100,"Table":{"CapacityUnits":100}}}`)
	}))
	defer srv.Close()

	hot := make(chan clientwatch.HotKeyEvent, 16)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Profiles": "pk"}
	opts.Now = func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) } // one second, for the example
	opts.OnHotKey = func(e clientwatch.HotKeyEvent) {
		if e.Reason == clientwatch.HotReads && e.Table == "Profiles" {
			select {
			case hot <- e: // OnHotKey must return quickly: hand the key over
			default:
			}
		}
	}
	w, err := clientwatch.New(opts)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Run(ctx) }() // Run calls OnHotKey
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("id", "secret", ""),
	}, w.ClientOption())

	cache := map[string]map[string]types.AttributeValue{} // the hot keys' items
	read := func(key string) map[string]types.AttributeValue {
		if item, ok := cache[key]; ok {
			return item
		}
		out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
			TableName: aws.String("Profiles"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}},
		})
		if err != nil {
			panic(err)
		}
		return out.Item
	}

	reads := 0
	for range 24 { // 2,400 RCU within the second
		read("celebrity")
		reads++
	}
	e := <-hot // within the second, without waiting for the window to close
	fmt.Printf("hot: %s, for %s: %g RCU within %s\n", e.Key, e.Reason, e.RCU, e.Second.Format(time.TimeOnly))
	cache[e.Key] = read(e.Key)
	reads++
	for range 1000 {
		read("celebrity")
		reads++
	}
	fmt.Printf("%d reads of celebrity, %d reached DynamoDB\n", reads, reached.Load())
	// Output:
	// hot: celebrity, for reads: 2400 RCU within 12:00:00
	// 1025 reads of celebrity, 25 reached DynamoDB
}
