package clientwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
)

// A read-hot key: a 40 KB profile read with strongly consistent reads
// (10 RCU each), 400 times within one second, among reads of small items.
// A stand-in server answers as DynamoDB would, so that the example runs
// anywhere; point BaseEndpoint at DynamoDB to watch a real table.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		units := "0.5"
		if strings.Contains(string(body), "celebrity") {
			units = "10"
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		fmt.Fprintf(w, `{"Item":{"pk":{"S":"x"}},"ConsumedCapacity":{"TableName":"Profiles","CapacityUnits":%s,"Table":{"CapacityUnits":%[1]s}}}`, units)
	}))
	defer srv.Close()

	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Profiles": "pk"}
	opts.Now = func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) } // one second, for the example
	w, err := clientwatch.New(opts)
	if err != nil {
		panic(err)
	}
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(srv.URL),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("id", "secret", ""),
	}, w.ClientOption())

	for i := range 400 {
		for _, key := range []string{"celebrity", fmt.Sprintf("user#%d", i%40)} {
			_, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("Profiles"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}},
			})
			if err != nil {
				panic(err)
			}
		}
	}
	for _, r := range w.Reports() {
		fmt.Printf("%s: %d calls, %g RCU\n", r.Table, r.Requests, r.RCU)
		for _, k := range r.HotKeys {
			fmt.Printf("%s %s, hot for %v: %g RCU, peak %g RCU/s\n", k.Severity, k.Key, k.HotFor, k.RCU, k.PeakRCUPerSecond)
		}
	}
	// Output:
	// Profiles: 800 calls, 4200 RCU
	// critical celebrity, hot for [reads]: 4000 RCU, peak 4000 RCU/s
}
