package faultproxy_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
)

// TestSDKDecodesTheRefusal: for each of DynamoDB's three throttling
// exceptions, the SDK decodes the proxy's refusal into its typed error with
// the ThrottlingReasons, as it would DynamoDB's own; other keys pass through.
func TestSDKDecodesTheRefusal(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{"Item":{"pk":{"S":"cold"}}}`))
	}))
	defer upstream.Close()
	reason := "TableReadKeyRangeThroughputExceeded"
	resource := "arn:aws:dynamodb:us-east-1:000000000000:table/Users"
	want := []types.ThrottlingReason{{Reason: &reason, Resource: &resource}}
	for _, errType := range []string{"ProvisionedThroughputExceededException", "RequestLimitExceeded", "ThrottlingException"} {
		p := faultproxy.Start(t, upstream.URL, faultproxy.Rule{Attribute: "pk", Value: "hot", Period: 1, Throttle: 1, ErrorType: errType, Reason: reason, Resource: resource})
		c := dynamodb.New(dynamodb.Options{
			BaseEndpoint: aws.String(p.URL), Region: "us-east-1",
			Credentials:      credentials.NewStaticCredentialsProvider("a", "b", ""),
			RetryMaxAttempts: 1,
		})
		get := func(key string) error {
			_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}}})
			return err
		}
		if err := get("cold"); err != nil {
			t.Fatalf("%s: a key the rule does not name: %v", errType, err)
		}
		err := get("hot")
		var got []types.ThrottlingReason
		var pe *types.ProvisionedThroughputExceededException
		var rl *types.RequestLimitExceeded
		var te *types.ThrottlingException
		switch {
		case errors.As(err, &pe) && errType == "ProvisionedThroughputExceededException":
			got = pe.ThrottlingReasons
		case errors.As(err, &rl) && errType == "RequestLimitExceeded":
			got = rl.ThrottlingReasons
		case errors.As(err, &te) && errType == "ThrottlingException":
			got = te.ThrottlingReasons
		default:
			t.Fatalf("%s: the SDK returned %T %v", errType, err, err)
		}
		if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
			t.Errorf("%s: ThrottlingReasons (-want +got):\n%s", errType, diff)
		}
		if p.Throttled() != 1 {
			t.Errorf("%s: %d throttled, want 1", errType, p.Throttled())
		}
	}
}

func client(url string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(url), Region: "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("a", "b", ""),
		RetryMaxAttempts: 1, DisableValidateResponseChecksum: true,
	})
}

func item(k string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}
}

var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// TestTransactionCancelled: a transaction naming the key gets
// TransactionCanceledException, ThrottlingError for its items on the key
// and None for the others, as DynamoDB sends it.
func TestTransactionCancelled(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer upstream.Close()
	p := faultproxy.Start(t, upstream.URL, faultproxy.Rule{Attribute: "pk", Value: "hot", Period: 1, Throttle: 1})
	_, err := client(p.URL).TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Users"), Item: item("cold")}},
		{Delete: &types.Delete{TableName: aws.String("Users"), Key: item("hot")}},
	}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("%v, want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if diff := cmp.Diff([]string{"None", "ThrottlingError"}, codes); diff != "" || p.Throttled() != 1 {
		t.Errorf("cancellation reasons (-want +got):\n%s\nthrottled %d", diff, p.Throttled())
	}
}

// TestUnprocessed: with Rule.Unprocessed a batch naming the key and others
// is forwarded without the key's items, which come back unprocessed.
func TestUnprocessed(t *testing.T) {
	var forwarded []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		forwarded = append(forwarded, string(body))
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), "BatchGetItem") {
			_, _ = w.Write([]byte(`{"Responses":{"Users":[{"pk":{"S":"cold"}}]},"UnprocessedKeys":{}}`))
			return
		}
		_, _ = w.Write([]byte(`{"UnprocessedItems":{}}`))
	}))
	defer upstream.Close()
	p := faultproxy.Start(t, upstream.URL, faultproxy.Rule{Attribute: "pk", Value: "hot", Period: 1, Throttle: 1, Unprocessed: true})
	c := client(p.URL)
	wout, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Users": {
		{PutRequest: &types.PutRequest{Item: item("hot")}}, {PutRequest: &types.PutRequest{Item: item("cold")}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	gout, err := c.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Users": {
		Keys: []map[string]types.AttributeValue{item("hot"), item("cold")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]types.WriteRequest{"Users": {{PutRequest: &types.PutRequest{Item: item("hot")}}}}, wout.UnprocessedItems, exportAll); diff != "" {
		t.Errorf("UnprocessedItems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]types.KeysAndAttributes{"Users": {Keys: []map[string]types.AttributeValue{item("hot")}}}, gout.UnprocessedKeys, exportAll); diff != "" {
		t.Errorf("UnprocessedKeys (-want +got):\n%s", diff)
	}
	want := []string{`{"RequestItems":{"Users":[{"PutRequest":{"Item":{"pk":{"S":"cold"}}}}]}}`, `{"RequestItems":{"Users":{"Keys":[{"pk":{"S":"cold"}}]}}}`}
	if diff := cmp.Diff(want, forwarded); diff != "" || p.Throttled() != 2 {
		t.Errorf("forwarded (-want +got):\n%s\nthrottled %d", diff, p.Throttled())
	}
}

// TestHold: with Rule.Hold the requests the rule lets through are held
// until the client gives up; Held tells when one is.
func TestHold(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer upstream.Close()
	p := faultproxy.Start(t, upstream.URL, faultproxy.Rule{Attribute: "pk", Value: "hot", Period: 2, Throttle: 1, Hold: true})
	c := client(p.URL)
	get := func(ctx context.Context, k string) error {
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: item(k)})
		return err
	}
	var pe *types.ProvisionedThroughputExceededException
	if err := get(context.Background(), "hot"); !errors.As(err, &pe) {
		t.Fatalf("first request: %v, want a throttle", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- get(ctx, "hot") }()
	<-p.Held()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("held request: %v, want the client's cancellation", err)
	}
	if err := get(context.Background(), "cold"); err != nil {
		t.Errorf("another key: %v", err)
	}
}
