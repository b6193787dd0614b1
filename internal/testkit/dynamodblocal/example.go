package dynamodblocal

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Main runs a test binary whose examples use DynamoDB Local
// (TableForExample); call it from the package's TestMain. An example
// cannot skip as a test does (Endpoint), so without DynamoDB Local, and
// outside CI, Main leaves the binary's examples out (-test.skip), saying
// so on stderr. In CI they run, and fail. (go test's cache tells the two
// apart by the variable only if a test reads it too, through Endpoint:
// run examples alone with -count=1.)
func Main(m *testing.M) {
	flag.Parse()
	if os.Getenv(EndpointEnv) == "" && os.Getenv("CI") == "" {
		skip := flag.Lookup("test.skip").Value
		pattern := "^Example"
		if s := skip.String(); s != "" {
			pattern = s + "|" + pattern
		}
		if err := skip.Set(pattern); err != nil {
			panic(err)
		}
		fmt.Fprintf(os.Stderr, "dynamodblocal: %s is not set: the examples are left out; run `make test` to start DynamoDB Local\n", EndpointEnv)
	}
	os.Exit(m.Run())
}

// TableForExample creates a table to spec on DynamoDB Local, waits until
// it is ACTIVE, and returns a DynamoDB client for it (as Clients makes
// them), its name and a function that deletes it. An example has no
// testing.T: a failure panics, and so does a missing endpoint, at once.
func TableForExample(spec TableSpec) (api *dynamodb.Client, name string, drop func()) {
	ep := os.Getenv(EndpointEnv)
	if ep == "" {
		panic(EndpointEnv + " is not set: run `make test` to start DynamoDB Local")
	}
	api = dynamodb.New(dynamodb.Options{
		BaseEndpoint:                    aws.String(ep),
		Region:                          Region,
		Credentials:                     credentials.NewStaticCredentialsProvider("test", "test", ""),
		DisableValidateResponseChecksum: true,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts, o.RateLimiter = 10, ratelimit.None // see retryer
		}),
	})
	name = TableName(spec.Prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := api.CreateTable(ctx, spec.withDefaults().input(name))
	if err != nil {
		panic(fmt.Sprintf("dynamodblocal: create table %s: %v", name, err))
	}
	for desc := out.TableDescription; desc == nil || desc.TableStatus != types.TableStatusActive; { // see waitActive
		select {
		case <-ctx.Done():
			panic(fmt.Sprintf("dynamodblocal: table %s not ACTIVE: %v", name, ctx.Err()))
		case <-time.After(20 * time.Millisecond):
		}
		d, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			panic(fmt.Sprintf("dynamodblocal: describe table %s: %v", name, err))
		}
		desc = d.Table
	}
	return api, name, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			panic(fmt.Sprintf("dynamodblocal: delete table %s: %v", name, err))
		}
	}
}
