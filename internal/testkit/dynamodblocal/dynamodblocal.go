// Package dynamodblocal is test support for the integration tests that run
// against DynamoDB Local (AWS's own implementation of DynamoDB, with
// Streams), which `make test` starts through scripts/with-dynamodb-local.
//
// Tests call Endpoint (or Clients) first: without a running DynamoDB Local
// they skip on a developer's machine and fail in CI, so that CI can never go
// green by skipping them.
package dynamodblocal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// EndpointEnv names the environment variable that scripts/with-dynamodb-local
// sets to DynamoDB Local's URL.
const EndpointEnv = "HOTKEYS_TEST_DYNAMODB_ENDPOINT"

// Region is the region the clients are configured for. DynamoDB Local
// ignores it; it appears in stream records and ARNs only.
const Region = "us-east-1"

// Endpoint returns DynamoDB Local's URL. When it is not set, the test is
// skipped, unless the CI environment variable is set: then it fails.
func Endpoint(t testing.TB) string {
	t.Helper()
	return EndpointOf(t, EndpointEnv, "DynamoDB Local")
}

// EndpointOf returns the URL of local service what (DynamoDB Local,
// kinesalite) from the environment variable env that its script sets.
// When it is not set, the test is skipped, unless the CI environment
// variable is set: then it fails, so that CI can never go green by
// skipping.
func EndpointOf(t testing.TB, env, what string) string {
	t.Helper()
	if ep := os.Getenv(env); ep != "" {
		return ep
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set, and CI is: run `make test` to start %s", env, what)
	}
	t.Skipf("%s is not set: run `make test` to start %s", env, what)
	return ""
}

// CheckEndpointRule holds EndpointOf's rule for the local service whose
// variable is env: it runs the calling test, named name, again in a child
// process without env, once without CI (it must skip) and once with
// CI=true (it must fail, saying to run make test). The child, which sees
// HOTKEYS_ENDPOINT_RULE_CHILD set, calls endpoint.
func CheckEndpointRule(t *testing.T, name, env string, endpoint func(testing.TB) string) {
	t.Helper()
	const child = "HOTKEYS_ENDPOINT_RULE_CHILD"
	if os.Getenv(child) != "" {
		endpoint(t)
		t.Fatal("Endpoint returned without an endpoint")
	}
	for _, tc := range []struct {
		ci       string
		wantFail bool
		wantText string
	}{
		{"", false, "SKIP"},
		{"true", true, "run `make test`"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
		cmd.Env = append(withoutEnv(os.Environ(), env, "CI"), child+"=1")
		if tc.ci != "" {
			cmd.Env = append(cmd.Env, "CI="+tc.ci)
		}
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("CI=%q: failed=%v, want %v; output:\n%s", tc.ci, failed, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.wantText) {
			t.Errorf("CI=%q: output lacks %q:\n%s", tc.ci, tc.wantText, out)
		}
	}
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// Clients returns a DynamoDB and a DynamoDB Streams client for DynamoDB
// Local, with dummy static credentials. They never read the AWS config
// chain, so a developer's profile or environment cannot redirect them.
func Clients(t testing.TB) (*dynamodb.Client, *dynamodbstreams.Client) {
	t.Helper()
	ep := Endpoint(t)
	creds := credentials.NewStaticCredentialsProvider("test", "test", "")
	ddb := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(ep),
		Region:       Region,
		Credentials:  creds,
		// DynamoDB Local's X-Amz-Crc32 does not always match the body, and
		// the SDK then logs a warning on every call.
		DisableValidateResponseChecksum: true,
		Retryer:                         Retryer(),
	})
	streams := dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(ep),
		Region:       Region,
		Credentials:  creds,
		Retryer:      Retryer(),
	})
	return ddb, streams
}

// Retryer retries more and without the client-side retry quota, for the
// clients of local services (kinesislocal's too). On a loaded
// machine DynamoDB Local sometimes answers 500 InternalFailure; the standard
// retryer then spends its token bucket within a few calls and fails every
// later call at once ("retry quota exceeded"), failing a test for the
// machine's load rather than for anything under test.
func Retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 10
		o.RateLimiter = ratelimit.None
	})
}

// TableSpec describes a table for CreateTable. Zero values take defaults:
// hash key "pk" of type S, no range key, a NEW_AND_OLD_IMAGES stream.
type TableSpec struct {
	Prefix         string // name prefix, for readable failures; default "hotkeys"
	HashKey        string
	HashKeyType    types.ScalarAttributeType
	RangeKey       string // "" for a table without a sort key
	RangeKeyType   types.ScalarAttributeType
	StreamViewType types.StreamViewType
	NoStream       bool // create the table without a stream
	// Indexes are global secondary indexes to create with the table (their
	// throughput is ignored: the table is on demand), and IndexAttributes
	// the definitions of their key attributes that are not the table's.
	Indexes         []types.GlobalSecondaryIndex
	IndexAttributes []types.AttributeDefinition
}

var tableSeq atomic.Uint64

// TableName returns a name no other test, in this process or another one
// sharing the same DynamoDB Local, uses. DynamoDB Local wants at least 3
// characters. The clock only tells processes that reuse a pid apart: no
// outcome depends on the name.
func TableName(prefix string) string {
	if prefix == "" {
		prefix = "hotkeys"
	}
	return prefix + "-" + strconv.Itoa(os.Getpid()) + "-" +
		strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-" +
		strconv.FormatUint(tableSeq.Add(1), 10)
}

// CreateTable creates a table on DynamoDB Local, waits until it is ACTIVE and
// returns its name and stream ARN ("" with NoStream). The table is deleted
// when the test ends.
func CreateTable(t testing.TB, ddb *dynamodb.Client, spec TableSpec) (tableName, streamARN string) {
	t.Helper()
	name := TableName(spec.Prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := ddb.CreateTable(ctx, spec.withDefaults().input(name))
	if err != nil {
		t.Fatalf("dynamodblocal: create table %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := ddb.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var gone *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &gone) { // a test may have deleted it
			t.Errorf("dynamodblocal: delete table %s: %v", name, err)
		}
	})
	desc := waitActive(ctx, t, ddb, name, out.TableDescription)
	arn := aws.ToString(desc.LatestStreamArn)
	if !spec.NoStream && arn == "" {
		t.Fatalf("dynamodblocal: table %s has no stream ARN", name)
	}
	return name, arn
}

// withDefaults fills in the zero fields TableSpec documents.
func (spec TableSpec) withDefaults() TableSpec {
	if spec.HashKey == "" {
		spec.HashKey = "pk"
	}
	if spec.HashKeyType == "" {
		spec.HashKeyType = types.ScalarAttributeTypeS
	}
	if spec.RangeKey != "" && spec.RangeKeyType == "" {
		spec.RangeKeyType = types.ScalarAttributeTypeS
	}
	if spec.StreamViewType == "" {
		spec.StreamViewType = types.StreamViewTypeNewAndOldImages
	}
	return spec
}

// input is the CreateTable request of table name to spec.
func (spec TableSpec) input(name string) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(spec.HashKey), AttributeType: spec.HashKeyType},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(spec.HashKey), KeyType: types.KeyTypeHash},
		},
	}
	if spec.RangeKey != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(spec.RangeKey), AttributeType: spec.RangeKeyType})
		in.KeySchema = append(in.KeySchema,
			types.KeySchemaElement{AttributeName: aws.String(spec.RangeKey), KeyType: types.KeyTypeRange})
	}
	in.GlobalSecondaryIndexes = spec.Indexes
	in.AttributeDefinitions = append(in.AttributeDefinitions, spec.IndexAttributes...)
	if !spec.NoStream {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: spec.StreamViewType}
	}
	return in
}

// waitActive returns the description of table name once it is ACTIVE;
// desc is CreateTable's.
//
// dynamodb.TableExistsWaiter waits 20 s before its first retry; DynamoDB
// Local is usually ACTIVE at once, so poll briefly instead. DynamoDB has
// no event for a table becoming ACTIVE: polling its state is the wait,
// and only how long it takes depends on the machine, not the outcome.
func waitActive(ctx context.Context, t testing.TB, ddb *dynamodb.Client, name string, desc *types.TableDescription) *types.TableDescription {
	t.Helper()
	for desc == nil || desc.TableStatus != types.TableStatusActive {
		select {
		case <-ctx.Done():
			t.Fatalf("dynamodblocal: table %s not ACTIVE: %v", name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
		d, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatalf("dynamodblocal: describe table %s: %v", name, err)
		}
		desc = d.Table
	}
	return desc
}
