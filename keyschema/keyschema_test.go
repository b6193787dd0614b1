package keyschema_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

func TestLookup(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	ctx := context.Background()
	for _, tc := range []struct {
		spec dynamodblocal.TableSpec
		want keyschema.Schema // Table and StreamARN are filled in below
	}{
		{
			dynamodblocal.TableSpec{HashKey: "pk"},
			keyschema.Schema{PartitionKey: "pk", PartitionKeyType: "S", StreamViewType: "NEW_AND_OLD_IMAGES"},
		},
		{
			dynamodblocal.TableSpec{HashKey: "userId", HashKeyType: types.ScalarAttributeTypeN, RangeKey: "at", RangeKeyType: types.ScalarAttributeTypeB, StreamViewType: types.StreamViewTypeKeysOnly},
			keyschema.Schema{PartitionKey: "userId", SortKey: "at", PartitionKeyType: "N", StreamViewType: "KEYS_ONLY"},
		},
		{
			// The sort key sorts before the partition key, and its type
			// differs: the lookup must not depend on either order.
			dynamodblocal.TableSpec{HashKey: "z·bin", HashKeyType: types.ScalarAttributeTypeB, RangeKey: "a", RangeKeyType: types.ScalarAttributeTypeS, StreamViewType: types.StreamViewTypeNewImage},
			keyschema.Schema{PartitionKey: "z·bin", SortKey: "a", PartitionKeyType: "B", StreamViewType: "NEW_IMAGE"},
		},
		{
			dynamodblocal.TableSpec{HashKey: "id", RangeKey: "sk", NoStream: true},
			keyschema.Schema{PartitionKey: "id", SortKey: "sk", PartitionKeyType: "S"},
		},
	} {
		name, arn := dynamodblocal.CreateTable(t, ddb, tc.spec)
		want := tc.want
		want.Table, want.StreamARN = name, arn
		got, err := keyschema.Lookup(ctx, ddb, name)
		if err != nil {
			t.Fatalf("Lookup(%s): %v", name, err)
		}
		if !got.Equal(want) {
			t.Errorf("Lookup(%s)\n got  %+v\n want %+v", name, got, want)
		}
		if exact := got.ExactWCU(); exact != (want.StreamViewType == "NEW_AND_OLD_IMAGES") {
			t.Errorf("%s: ExactWCU() = %v for view type %q", name, exact, want.StreamViewType)
		}
		err = got.RequireStream()
		if tc.spec.NoStream {
			if !errors.Is(err, keyschema.ErrNoStream) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "NEW_AND_OLD_IMAGES") {
				t.Errorf("%s without stream: RequireStream() = %v, want ErrNoStream naming the table and the view type", name, err)
			}
		} else if err != nil {
			t.Errorf("%s: RequireStream() = %v", name, err)
		}
	}
}

func TestTableFromARN(t *testing.T) {
	for _, tc := range []struct{ arn, want string }{
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Orders", "Orders"},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000", "Orders"},
		{"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/a.b_c-d/stream/x", "a.b_c-d"},
		{"arn:aws:dynamodb:ddblocal:000000000000:table/hotkeys-1/stream/2026-11-22T02:41:03.054", "hotkeys-1"},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/index/byDate", ""},
		{"arn:aws:s3:::bucket/table/x", ""},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/", ""},
		{"Orders", ""},
		{"", ""},
	} {
		got, err := keyschema.TableFromARN(tc.arn)
		if got != tc.want || (tc.want == "") != errors.Is(err, keyschema.ErrBadARN) {
			t.Errorf("TableFromARN(%q) = %q, %v; want %q", tc.arn, got, err, tc.want)
		}
	}
}

func TestLookupFromStreamARN(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	name, arn := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{HashKey: "k"})
	table, err := keyschema.TableFromARN(arn)
	if err != nil {
		t.Fatal(err)
	}
	got, err := keyschema.Lookup(context.Background(), ddb, table)
	if err != nil {
		t.Fatal(err)
	}
	want := keyschema.Schema{Table: name, StreamARN: arn, PartitionKey: "k", PartitionKeyType: "S", StreamViewType: "NEW_AND_OLD_IMAGES"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup(TableFromARN(%s)) (-want +got):\n%s", arn, diff)
	}
}

func TestLookupDisabledStream(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	ctx := context.Background()
	name, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{})
	_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:           aws.String(name),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := keyschema.Lookup(ctx, ddb, name)
	if err != nil {
		t.Fatal(err)
	}
	// A disabled stream is reported as no stream at all: no ARN, no view type.
	want := keyschema.Schema{Table: name, PartitionKey: "pk", PartitionKeyType: "S"}
	if !got.Equal(want) || !errors.Is(got.RequireStream(), keyschema.ErrNoStream) {
		t.Errorf("after disabling the stream:\n got  %+v, RequireStream() = %v\n want %+v and ErrNoStream", got, got.RequireStream(), want)
	}
}

func TestLookupMissingTable(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	missing := dynamodblocal.TableName("missing")
	_, err := keyschema.Lookup(context.Background(), ddb, missing)
	var nf *types.ResourceNotFoundException
	if !errors.Is(err, keyschema.ErrTableNotFound) || !errors.As(err, &nf) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Lookup(missing) = %v; want ErrTableNotFound wrapping the SDK's error and naming the table", err)
	}
}

// countingAPI counts the DescribeTable calls that reach DynamoDB Local.
type countingAPI struct {
	keyschema.DescribeTableAPI
	calls sync.Map // table -> *atomic.Int64
}

func (c *countingAPI) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	n, _ := c.calls.LoadOrStore(aws.ToString(in.TableName), new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	return c.DescribeTableAPI.DescribeTable(ctx, in, opts...)
}

func (c *countingAPI) count(table string) int64 {
	n, ok := c.calls.Load(table)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

func TestCacheLooksUpOnce(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	api := &countingAPI{DescribeTableAPI: ddb}
	cache := keyschema.NewCache(api)
	var tables []string
	for i := range 3 {
		name, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{HashKey: fmt.Sprintf("key%d", i)})
		tables = append(tables, name)
	}
	missing := dynamodblocal.TableName("missing")

	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for g := range 32 {
		wg.Go(func() {
			for i := range 20 {
				ti := (g + i) % len(tables)
				s, err := cache.Lookup(context.Background(), tables[ti])
				if err != nil || s.PartitionKey != fmt.Sprintf("key%d", ti) || s.Table != tables[ti] {
					errs <- fmt.Errorf("Lookup(%s) = %+v, %v", tables[ti], s, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, tbl := range tables {
		if n := api.count(tbl); n != 1 {
			t.Errorf("%s: %d DescribeTable calls for 640 concurrent lookups, want 1", tbl, n)
		}
	}
	// A failure is not kept: the table may be created later.
	for range 2 {
		if _, err := cache.Lookup(context.Background(), missing); !errors.Is(err, keyschema.ErrTableNotFound) {
			t.Errorf("Lookup(missing) = %v, want ErrTableNotFound", err)
		}
	}
	if n := api.count(missing); n != 2 {
		t.Errorf("missing table: %d DescribeTable calls for 2 lookups, want 2 (failures must not be cached)", n)
	}
}

// blockingAPI answers only once release is closed. called is closed when
// the first call arrives.
type blockingAPI struct {
	release chan struct{}
	called  chan struct{}
	once    sync.Once
	calls   atomic.Int64
}

func (b *blockingAPI) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	b.calls.Add(1)
	b.once.Do(func() { close(b.called) })
	<-b.release
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		TableName: in.TableName,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}}, nil
}

func TestCacheWaiterHonoursContext(t *testing.T) {
	api := &blockingAPI{release: make(chan struct{}), called: make(chan struct{})}
	cache := keyschema.NewCache(api)
	first := make(chan error)
	go func() {
		_, err := cache.Lookup(context.Background(), "Orders")
		first <- err
	}()
	<-api.called // the first lookup is in flight
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cache.Lookup(ctx, "Orders"); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting lookup with a cancelled context = %v, want context.Canceled", err)
	}
	close(api.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if s, err := cache.Lookup(context.Background(), "Orders"); err != nil || !s.Equal(keyschema.Schema{Table: "Orders", PartitionKey: "pk"}) {
		t.Errorf("after release: %+v, %v", s, err)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("%d DescribeTable calls, want 1", n)
	}
}

func TestLookupMalformedAnswer(t *testing.T) {
	for _, out := range []*dynamodb.DescribeTableOutput{
		{},
		{Table: &types.TableDescription{TableName: aws.String("T")}},
		{Table: &types.TableDescription{TableName: aws.String("T"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}}}},
	} {
		_, err := keyschema.Lookup(context.Background(), staticAPI{out}, "T")
		if !errors.Is(err, keyschema.ErrNoKeySchema) {
			t.Errorf("Lookup(%+v) = %v, want ErrNoKeySchema", out.Table, err)
		}
	}
}

type staticAPI struct{ out *dynamodb.DescribeTableOutput }

func (s staticAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return s.out, nil
}

func ExampleSchema_RequireStream() {
	// What DescribeTable answers for a table whose stream is off.
	api := staticAPI{&dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		TableName:            aws.String("Orders"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
	}}}
	s, err := keyschema.Lookup(context.Background(), api, "Orders")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.PartitionKey, s.PartitionKeyType, s.SortKey)
	fmt.Println(s.RequireStream())
	// Output:
	// pk S sk
	// keyschema: no stream enabled: table "Orders" has no stream enabled; enable NEW_AND_OLD_IMAGES (aws dynamodb update-table --table-name Orders --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES) or pass the stream's ARN
}
