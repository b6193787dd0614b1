package dynamodblocal_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestEndpointWithoutDynamoDBLocal runs this test binary again without the
// endpoint: it must skip outside CI and fail in CI.
func TestEndpointWithoutDynamoDBLocal(t *testing.T) {
	dynamodblocal.CheckEndpointRule(t, "TestEndpointWithoutDynamoDBLocal", dynamodblocal.EndpointEnv, dynamodblocal.Endpoint)
}

func TestCreateTable(t *testing.T) {
	ddb, streams := dynamodblocal.Clients(t)
	ctx := context.Background()
	for _, spec := range []dynamodblocal.TableSpec{
		{},
		{HashKey: "id", HashKeyType: types.ScalarAttributeTypeN, RangeKey: "at", RangeKeyType: types.ScalarAttributeTypeB, StreamViewType: types.StreamViewTypeKeysOnly},
		{HashKey: "b", HashKeyType: types.ScalarAttributeTypeB, RangeKey: "s", StreamViewType: types.StreamViewTypeNewImage},
		{Prefix: "nostream", NoStream: true},
	} {
		name, arn := dynamodblocal.CreateTable(t, ddb, spec)
		if len(name) < 3 {
			t.Errorf("table name %q is shorter than DynamoDB Local accepts", name)
		}
		d, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		tbl := d.Table
		if tbl.TableStatus != types.TableStatusActive {
			t.Errorf("%s: status %s", name, tbl.TableStatus)
		}
		wantHash, wantHashType := orDefault(spec.HashKey, "pk"), orDefault(string(spec.HashKeyType), "S")
		if got := keyOf(tbl, types.KeyTypeHash); got != wantHash+":"+wantHashType {
			t.Errorf("%s: hash key %s, want %s:%s", name, got, wantHash, wantHashType)
		}
		wantRange := ""
		if spec.RangeKey != "" {
			wantRange = spec.RangeKey + ":" + orDefault(string(spec.RangeKeyType), "S")
		}
		if got := keyOf(tbl, types.KeyTypeRange); got != wantRange {
			t.Errorf("%s: range key %q, want %q", name, got, wantRange)
		}
		if spec.NoStream {
			if arn != "" || (tbl.StreamSpecification != nil && aws.ToBool(tbl.StreamSpecification.StreamEnabled)) {
				t.Errorf("%s: stream %q enabled without one asked for", name, arn)
			}
			continue
		}
		if arn != aws.ToString(tbl.LatestStreamArn) {
			t.Errorf("%s: stream ARN %q, table says %q", name, arn, aws.ToString(tbl.LatestStreamArn))
		}
		sd, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(sd.StreamDescription.StreamViewType), orDefault(string(spec.StreamViewType), "NEW_AND_OLD_IMAGES"); got != want {
			t.Errorf("%s: stream view type %s, want %s", name, got, want)
		}
	}
}

func TestTableNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		n := dynamodblocal.TableName("")
		if seen[n] || len(n) < 3 || len(n) > 255 {
			t.Fatalf("bad or repeated table name %q", n)
		}
		seen[n] = true
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func keyOf(tbl *types.TableDescription, kt types.KeyType) string {
	for _, k := range tbl.KeySchema {
		if k.KeyType != kt {
			continue
		}
		name := aws.ToString(k.AttributeName)
		for _, a := range tbl.AttributeDefinitions {
			if aws.ToString(a.AttributeName) == name {
				return name + ":" + string(a.AttributeType)
			}
		}
		return name + ":?"
	}
	return ""
}
