package clientwatch_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// wireCase is a response as DynamoDB sends it to a caller who did not ask
// for capacity (plain), and the ConsumedCapacity member it adds for one
// who asked, spliced in at position at (0: first member; -1: last).
type wireCase struct {
	name  string
	plain string
	cc    string
	at    int
}

func (c wireCase) asked() string {
	member := `"ConsumedCapacity":` + c.cc
	if c.plain == "{}" {
		return "{" + member + "}"
	}
	if c.at == 0 {
		return "{" + member + "," + c.plain[1:]
	}
	if c.at < 0 {
		return c.plain[:len(c.plain)-1] + "," + member + "}"
	}
	return c.plain[:c.at] + member + "," + c.plain[c.at:]
}

// wireServer answers every call with the case's body: with capacity when
// the request asks for INDEXES, gzipped when the client accepts gzip, and
// with DynamoDB's X-Amz-Crc32 of the bytes sent (spoiled when badCRC).
func wireServer(t *testing.T, c *wireCase, badCRC bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out := []byte(c.plain)
		if bytes.Contains(body, []byte(`"ReturnConsumedCapacity":"INDEXES"`)) {
			out = []byte(c.asked())
		}
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			_, _ = zw.Write(out)
			_ = zw.Close()
			out = z.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		sum := crc32.ChecksumIEEE(out)
		if badCRC {
			sum++
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(sum), 10))
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var digits = regexp.MustCompile(`[0-9]+`)

// warnings collects what the SDK logs (a failed CRC32 check is a
// warning), digits masked.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (l *warnings) Logf(c logging.Classification, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	msg := digits.ReplaceAllString(fmt.Sprintf(format, v...), "#")
	l.msgs = append(l.msgs, string(c)+": "+msg)
}

func (l *warnings) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.msgs
	l.msgs = nil
	return m
}

// TestCapacityTakenOffTheWire: when the caller did not ask for capacity,
// the middleware asks, reads DynamoDB's figures from the response body and
// gives the SDK the body without them. The caller's output must equal the
// plain client's, with the CRC32 check on and passing (and failing alike
// when the checksum is wrong), with and without gzip, wherever the member
// lies and whatever its shape (an object, or an array for batches); the
// figures recorded must be DynamoDB's. A member the wire reader declines
// (an escaped table name) is decoded by the SDK and taken out of the
// output instead: the caller sees the same.
func TestCapacityTakenOffTheWire(t *testing.T) {
	const item = `{"pk":{"S":"ada"},"v":{"N":"1"}}`
	cases := []struct {
		wireCase
		call func(*dynamodb.Client) (any, error)
		rcu  float64
		wcu  uint64
		keys int
	}{
		{
			wireCase: wireCase{"GetItem, capacity last", `{"Item":` + item + `}`, `{"TableName":"Users","CapacityUnits":1.5,"Table":{"CapacityUnits":0.5},"GlobalSecondaryIndexes":{"byV":{"CapacityUnits":1.0}}}`, -1},
			call: func(c *dynamodb.Client) (any, error) {
				return c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: map[string]types.AttributeValue{"pk": s("ada")}})
			},
			rcu: 0.5, keys: 1,
		},
		{
			wireCase: wireCase{"PutItem, capacity alone", `{}`, `{"TableName":"Users","CapacityUnits":3.0,"Table":{"CapacityUnits":2.0}}`, 0},
			call: func(c *dynamodb.Client) (any, error) {
				return c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String("Users"), Item: map[string]types.AttributeValue{"pk": s("ada")}})
			},
			wcu: 2, keys: 1,
		},
		{
			wireCase: wireCase{"Query, capacity first, no Table breakdown", `{"Count":1,"Items":[` + item + `],"ScannedCount":1}`, `{"TableName":"Users","CapacityUnits":0.5}`, 0},
			call: func(c *dynamodb.Client) (any, error) {
				return c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String("Users"), KeyConditionExpression: aws.String("pk = :k"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":k": s("ada")}})
			},
			rcu: 0.5, keys: 1,
		},
		{
			wireCase: wireCase{"Scan, capacity between members, whitespace", `{ "Count" : 2 , "Items" : [ ` + item + ` , {"pk":{"S":"bob"}} ] , "ScannedCount" : 2 }`, ` { "TableName" : "Users" , "CapacityUnits" : 1e0 , "Table" : { "CapacityUnits" : 1 } } `, 16},
			call: func(c *dynamodb.Client) (any, error) {
				return c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String("Users")})
			},
			rcu: 1, keys: 2,
		},
		{
			wireCase: wireCase{"BatchGetItem, capacity array of two tables", `{"Responses":{"Users":[` + item + `],"Other":[{"id":{"S":"x"}}]},"UnprocessedKeys":{}}`,
				`[{"TableName":"Users","CapacityUnits":1.0,"Table":{"CapacityUnits":1.0}},{"TableName":"Other","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}]`, -1},
			call: func(c *dynamodb.Client) (any, error) {
				return c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
					"Users": {Keys: []map[string]types.AttributeValue{{"pk": s("ada")}}},
					"Other": {Keys: []map[string]types.AttributeValue{{"id": s("x")}}},
				}})
			},
			rcu: 1.5, keys: 2,
		},
		{
			wireCase: wireCase{"TransactWriteItems, capacity array", `{"ItemCollectionMetrics":{}}`, `[{"TableName":"Users","CapacityUnits":4.0,"Table":{"CapacityUnits":4.0}}]`, 0},
			call: func(c *dynamodb.Client) (any, error) {
				return c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: aws.String("Users"), Item: map[string]types.AttributeValue{"pk": s("ada")}}},
					{Put: &types.Put{TableName: aws.String("Users"), Item: map[string]types.AttributeValue{"pk": s("bob")}}},
				}})
			},
			wcu: 4, keys: 2,
		},
		{
			wireCase: wireCase{"GetItem, escaped table name: the SDK decodes it", `{"Item":` + item + `}`, `{"TableName":"Us\u0065rs","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}`, -1},
			call: func(c *dynamodb.Client) (any, error) {
				return c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: map[string]types.AttributeValue{"pk": s("ada")}})
			},
			rcu: 0.5, keys: 1,
		},
	}
	for _, tc := range cases {
		for _, gz := range []bool{false, true} {
			for _, badCRC := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/gzip=%v/badCRC=%v", tc.name, gz, badCRC), func(t *testing.T) {
					srv := wireServer(t, &tc.wireCase, badCRC)
					opts := clientwatch.DefaultOptions()
					opts.PartitionKeys = map[string]string{"Users": "pk", "Other": "id"}
					w := newWatcher(t, opts)
					logs := map[bool]*warnings{false: {}, true: {}}
					outs := map[bool]any{}
					for _, watched := range []bool{false, true} {
						var ww *clientwatch.Watcher
						if watched {
							ww = w
						}
						c := dynamodb.New(newClient(srv.URL, ww, nil).Options(), func(o *dynamodb.Options) {
							o.DisableValidateResponseChecksum = false
							o.EnableAcceptEncodingGzip = gz
							o.Logger = logs[watched]
						})
						out, err := tc.call(c)
						if err != nil {
							t.Fatalf("watched=%v: %v", watched, err)
						}
						outs[watched] = out
					}
					// The body the SDK decoded is the plain one, to the byte:
					// taken off the wire, not decoded then dropped (except
					// where the wire reader declines).
					if !gz {
						lengths := map[bool]int64{}
						for watched, out := range outs {
							md := reflect.ValueOf(out).Elem().FieldByName("ResultMetadata").Interface().(middleware.Metadata)
							lengths[watched] = awsmiddleware.GetRawResponse(md).(*smithyhttp.Response).ContentLength
						}
						// DynamoDB sends no whitespace; where a test body has
						// some, the cut may leave a blank more or less.
						want := int64(len(tc.plain))
						switch {
						case strings.Contains(tc.name, "escaped"):
							want = int64(len(tc.asked()))
						case strings.Contains(tc.name, "whitespace"):
							want = lengths[true]
							if lengths[true] >= int64(len(tc.asked())) {
								want = int64(len(tc.plain))
							}
						}
						if lengths[false] != int64(len(tc.plain)) || lengths[true] != want {
							t.Errorf("body lengths: plain %d, watched %d; want %d, %d", lengths[false], lengths[true], len(tc.plain), want)
						}
					}
					if diff := cmp.Diff(outs[false], outs[true], sameOutput...); diff != "" {
						t.Errorf("output (-plain +watched):\n%s", diff)
					}
					// The checksums quoted differ (the watched call's body
					// carried capacity): compare the messages without them.
					plainLog, watchedLog := logs[false].take(), logs[true].take()
					if diff := cmp.Diff(plainLog, watchedLog); diff != "" {
						t.Errorf("SDK log (-plain +watched):\n%s", diff)
					}
					if badCRC != (len(watchedLog) > 0) {
						t.Errorf("bad CRC %v, SDK log %q", badCRC, watchedLog)
					}
					var rcu float64
					var wcu uint64
					var keys int
					for _, rep := range w.Reports() {
						rcu += rep.RCU
						wcu += rep.WCU
						keys += len(rep.TopKeys)
					}
					if rcu != tc.rcu || wcu != tc.wcu || keys != tc.keys {
						t.Errorf("recorded %v RCU, %d WCU, %d keys; DynamoDB reported %v RCU, %d WCU on %d keys", rcu, wcu, keys, tc.rcu, tc.wcu, tc.keys)
					}
				})
			}
		}
	}
}

// TestPaginatorsOnDynamoDBLocal: a Scan paginator through the watched
// client gives the caller the same pages as a plain client (items, counts,
// LastEvaluatedKey), each page's capacity taken off the wire, and the
// window's read capacity is the sum DynamoDB Local reports for the same
// pages when asked.
func TestPaginatorsOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	for i := range 12 {
		item := map[string]types.AttributeValue{"pk": s("k" + strconv.Itoa(i)), "v": s(strings.Repeat("x", 1+700*i))}
		if _, err := plain.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	w := newWatcher(t, opts)
	pages := func(c *dynamodb.Client, rcc types.ReturnConsumedCapacity) (outs []*dynamodb.ScanOutput) {
		p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: &table, Limit: aws.Int32(5), ReturnConsumedCapacity: rcc})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, out)
		}
		return outs
	}
	want, got := pages(plain, ""), pages(newClient(ep, w, nil), "")
	if len(want) != 3 {
		t.Fatalf("%d pages, want 3 (12 items, 5 a page)", len(want))
	}
	if diff := cmp.Diff(want, got, sameOutput...); diff != "" {
		t.Errorf("pages (-plain +watched):\n%s", diff)
	}
	var rcu float64
	for _, o := range pages(plain, types.ReturnConsumedCapacityIndexes) {
		rcu += *o.ConsumedCapacity.Table.CapacityUnits
	}
	var recorded float64
	for _, rep := range w.Reports() {
		recorded += rep.RCU
	}
	if recorded != rcu || rcu == 0 {
		t.Errorf("recorded %v RCU over the pages; DynamoDB Local reported %v", recorded, rcu)
	}
}
