package faultproxy_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
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
