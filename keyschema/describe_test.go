package keyschema_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
)

var ordersSchema = keyschema.Schema{
	Table: "Orders", PartitionKey: "PK", SortKey: "SK", PartitionKeyType: "S",
	StreamARN:      "arn:aws:dynamodb:eu-west-1:123456789012:table/Orders/stream/2026-06-22T09:14:03.417",
	StreamViewType: "NEW_AND_OLD_IMAGES",
	Indexes: []ddb.Index{
		{Name: "GSI1", PartitionKey: "GSI1PK", SortKey: "SK", Projection: ddb.ProjectAll},
		{Name: "byStatus", PartitionKey: "status", Projection: ddb.ProjectKeysOnly},
		{Name: "recent", PartitionKey: "status", SortKey: "updatedAt", Projection: ddb.ProjectInclude, NonKeyAttributes: []string{"total", "customer"}},
	},
}

func TestParseDescribeTable(t *testing.T) {
	data, err := os.ReadFile("testdata/describe-table.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := keyschema.ParseDescribeTable(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ordersSchema, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The bare table description (jq .Table) is read the same way.
	bare := bytes.TrimSpace(data)
	bare = bytes.TrimPrefix(bare, []byte("{"))
	bare = bytes.TrimSuffix(bare, []byte("}"))
	bare = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(bare), []byte(`"Table":`)))
	got, err = keyschema.ParseDescribeTable(bytes.NewReader(bare))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ordersSchema, got); diff != "" {
		t.Errorf("bare description (-want +got):\n%s", diff)
	}
}

func TestParseDescribeTableErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
		msg  string
	}{
		{``, keyschema.ErrDescribeTableJSON, "empty"},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`, keyschema.ErrDescribeTableJSON, "cut short"},
		{`{"Table":{"TableName":"t",}}`, keyschema.ErrDescribeTableJSON, "invalid JSON at byte 27"},
		{`{"Table":{"TableName":"t"}} {}`, keyschema.ErrDescribeTableJSON, "data after"},
		{`{"TableNames":["a","b"]}`, keyschema.ErrDescribeTableJSON, "describe-table --table-name"},
		{`{"Table":{"TableName":"t","KeySchema":"pk"}}`, keyschema.ErrDescribeTableJSON, "Table.KeySchema is a JSON string"},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"RANGE"}]}}`, keyschema.ErrNoKeySchema, "no HASH attribute"},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"PRIMARY"}]}}`, keyschema.ErrDescribeTableJSON, `"PRIMARY" is not HASH or RANGE`},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"g","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}]}]}}`,
			keyschema.ErrBadIndex, `index "g": ddb: invalid index definition: projection type "" is not ALL`},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"g","KeySchema":[{"AttributeName":"a","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}}`,
			keyschema.ErrBadIndex, `index "g" has no partition key`},
		{`{"Table":{"TableName":"t","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"g","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},{"IndexName":"g","KeySchema":[{"AttributeName":"b","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}}`,
			keyschema.ErrBadIndex, `two indexes named "g"`},
	} {
		_, err := keyschema.ParseDescribeTable(strings.NewReader(tc.in))
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseDescribeTable(%.60q) = %v, want %v saying %q", tc.in, err, tc.want, tc.msg)
		}
	}
}

// FuzzParseDescribeTable: any input is an error or a schema whose indexes
// a decoder accepts; never a panic.
func FuzzParseDescribeTable(f *testing.F) {
	data, err := os.ReadFile("testdata/describe-table.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"Table":{"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"g","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]}}]}}`))
	f.Add([]byte(`{"KeySchema":[]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := keyschema.ParseDescribeTable(bytes.NewReader(in))
		if err != nil {
			if !errors.Is(err, keyschema.ErrDescribeTableJSON) && !errors.Is(err, keyschema.ErrNoKeySchema) && !errors.Is(err, keyschema.ErrBadIndex) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		if s.PartitionKey == "" {
			t.Fatal("a schema without a partition key")
		}
		if _, err := record.NewDecoder(record.Config{PartitionKey: s.PartitionKey, Indexes: s.Indexes}); err != nil {
			t.Fatalf("the decoder refuses the parsed indexes: %v", err)
		}
	})
}

// TestLookupIndexes: DescribeTable on DynamoDB Local gives the indexes the
// table was created with.
func TestLookupIndexes(t *testing.T) {
	client, _ := dynamodblocal.Clients(t)
	spec := dynamodblocal.TableSpec{HashKey: "PK", RangeKey: "SK",
		IndexAttributes: []types.AttributeDefinition{
			{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("status"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("updatedAt"), AttributeType: types.ScalarAttributeTypeN},
		},
		Indexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("byStatus"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("recent"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("status"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("updatedAt"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"total", "customer"}}},
		},
	}
	name, arn := dynamodblocal.CreateTable(t, client, spec)
	got, err := keyschema.Lookup(context.Background(), client, name)
	if err != nil {
		t.Fatal(err)
	}
	want := ordersSchema
	want.Table, want.StreamARN = name, arn
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !got.Equal(want) {
		t.Error("Equal says the schemas differ")
	}
	other := want
	other.Indexes = append([]ddb.Index{}, want.Indexes...)
	other.Indexes[2].NonKeyAttributes = []string{"total"}
	if got.Equal(other) {
		t.Error("Equal misses a change of projected attributes")
	}
}

// flipAPI answers with the schema in out, and fails while fail is set.
type flipAPI struct {
	mu    sync.Mutex
	out   *dynamodb.DescribeTableOutput
	fail  bool
	calls int
}

func (f *flipAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail {
		return nil, errors.New("throttled")
	}
	return f.out, nil
}

func describeOutput(indexes ...string) *dynamodb.DescribeTableOutput {
	d := &types.TableDescription{TableName: aws.String("T"),
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	for _, name := range indexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName:  aws.String(name),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		})
	}
	return &dynamodb.DescribeTableOutput{Table: d}
}

func indexNames(s keyschema.Schema) []string {
	var n []string
	for _, ix := range s.Indexes {
		n = append(n, ix.Name)
	}
	return n
}

// TestRefreshingCache: an index added to the table is seen once the schema
// is maxAge old, not before; a failing refresh keeps the schema it had and
// is tried again maxAge later.
func TestRefreshingCache(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	api := &flipAPI{out: describeOutput()}
	c := keyschema.NewRefreshingCache(api, 5*time.Minute, clock)
	ctx := context.Background()
	step := func(d time.Duration, want []string, wantCalls int) {
		t.Helper()
		now = now.Add(d)
		s, err := c.Lookup(ctx, "T")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, indexNames(s)); diff != "" || api.calls != wantCalls {
			t.Errorf("at +%v: indexes %v, %d calls; want %v, %d", now.Sub(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)), indexNames(s), api.calls, want, wantCalls)
		}
	}
	step(0, nil, 1)
	api.out = describeOutput("GSI1") // UpdateTable adds an index
	step(4*time.Minute+59*time.Second, nil, 1)
	step(time.Second, []string{"GSI1"}, 2) // 5 minutes old: asked again
	step(time.Minute, []string{"GSI1"}, 2)
	api.fail = true
	step(4*time.Minute, []string{"GSI1"}, 3) // refresh fails: keep GSI1
	step(time.Minute, []string{"GSI1"}, 3)   // not asked again before another 5 minutes
	api.fail = false
	api.out = describeOutput("GSI1", "GSI2")
	step(4*time.Minute, []string{"GSI1", "GSI2"}, 4)
	// A plain cache never asks again.
	plain := keyschema.NewCache(api)
	for range 3 {
		if _, err := plain.Lookup(ctx, "T"); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Hour)
	}
	if api.calls != 5 {
		t.Errorf("a plain cache asked %d times", api.calls-4)
	}
}

// TestRefreshingCacheSeesUpdateTable: on DynamoDB Local, a GSI added with
// UpdateTable is in the schema once the cached one is maxAge old.
func TestRefreshingCacheSeesUpdateTable(t *testing.T) {
	db, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, db, dynamodblocal.TableSpec{HashKey: "pk"})
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := keyschema.NewRefreshingCache(db, time.Minute, func() time.Time { return now })
	ctx := context.Background()
	if s, err := c.Lookup(ctx, name); err != nil || len(s.Indexes) != 0 {
		t.Fatalf("before: %+v, %v", s, err)
	}
	_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Lookup(ctx, name); len(s.Indexes) != 0 {
		t.Errorf("the cached schema changed before it was a minute old: %v", indexNames(s))
	}
	now = now.Add(time.Minute)
	s, err := c.Lookup(ctx, name)
	want := []ddb.Index{{Name: "GSI1", PartitionKey: "GSI1PK", Projection: ddb.ProjectAll}}
	if diff := cmp.Diff(want, s.Indexes); err != nil || diff != "" {
		t.Errorf("after a minute: %v (-want +got):\n%s", err, diff)
	}
}
