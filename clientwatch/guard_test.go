package clientwatch_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// TestInvalidCallsNotCountedOnDynamoDBLocal: calls DynamoDB refuses as
// invalid (a key missing its sort key, an empty key, a table that does
// not exist) did no work on any partition: they are not load, and count
// nowhere. The caller gets DynamoDB's error as a plain client does.
func TestInvalidCallsNotCountedOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table := sortKeyedTable(t, plain)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk", "no-such-table": "pk"}
	w := newWatcher(t, opts)
	inst := newClient(ep, w, nil)
	calls := []func(c *dynamodb.Client) error{
		func(c *dynamodb.Client) error { // no sort key: ValidationException
			_, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("k")}})
			return err
		},
		func(c *dynamodb.Client) error { // an empty key: ValidationException
			_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s(""), "sk": s("1")}})
			return err
		},
		func(c *dynamodb.Client) error { // ResourceNotFoundException
			_, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: map[string]types.AttributeValue{"pk": s("k")}})
			return err
		},
	}
	for i, call := range calls {
		plainErr, instErr := call(plain), call(inst)
		if plainErr == nil || apiError(plainErr) != apiError(instErr) {
			t.Fatalf("call %d: instrumented %v, plain %v: want the same refusal", i, instErr, plainErr)
		}
	}
	if reps := reportsJSON(t, w); len(reps) != 0 {
		t.Errorf("reports %+v, want none: DynamoDB did no work", reps)
	}
}

// panickyClock advances a millisecond on every reading and panics on
// every fourth: a bug in recording, as seen from the call.
type panickyClock struct {
	mu    sync.Mutex
	t     time.Time
	reads int
}

func (c *panickyClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	c.t = c.t.Add(time.Millisecond)
	if c.reads%4 == 0 {
		panic("clientwatch test: the clock broke")
	}
	return c.t
}

// TestPanicInRecordingNeverTouchesTheCall: a panic while recording a call
// (here its clock's, at every second call's end) is recovered: the caller
// sees exactly what a plain client sees, and the report counts each such
// call as an internal error instead of a request.
func TestPanicInRecordingNeverTouchesTheCall(t *testing.T) {
	srv := instantServer(t)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	opts.Now = (&panickyClock{t: t0}).Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	plain, inst := newClient(srv.URL, nil, srv.Client()), newClient(srv.URL, w, srv.Client())
	const calls = 8
	for i := range calls {
		in := func() *dynamodb.GetItemInput {
			return &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: map[string]types.AttributeValue{"pk": s("user#1")}}
		}
		want, err := plain.GetItem(ctxT(t), in())
		if err != nil {
			t.Fatal(err)
		}
		got, err := func() (out *dynamodb.GetItemOutput, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("the call panicked: %v", r)
				}
			}()
			return inst.GetItem(ctxT(t), in())
		}()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got, sameOutput...); diff != "" {
			t.Fatalf("call %d: output (-plain +instrumented):\n%s", i, diff)
		}
	}
	rep := oneReport(t, w)
	if rep.Requests != calls/2 || rep.InternalErrors != calls/2 {
		t.Errorf("report: %d requests, %d internal errors; want %d and %d", rep.Requests, rep.InternalErrors, calls/2, calls/2)
	}
}

// echoHTTP answers every GetItem in memory with a small item and, when
// asked, ConsumedCapacity for the table the request names.
type echoHTTP struct{}

var tableNameRE = regexp.MustCompile(`"TableName":"([^"]+)"`)

func (echoHTTP) Do(r *http.Request) (*http.Response, error) {
	req, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	body := `{"Item":{"pk":{"S":"k"}}}`
	if m := tableNameRE.FindSubmatch(req); m != nil && bytes.Contains(req, []byte(`"INDEXES"`)) {
		body = `{"Item":{"pk":{"S":"k"}},"ConsumedCapacity":{"TableName":"` + string(m[1]) + `","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}}`
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:          io.NopCloser(bytes.NewReader([]byte(body))),
		ContentLength: int64(len(body)), Request: r,
	}, nil
}

// TestManyTablesStayWithinTheMemoryCap: calls on 200 tables (the issue's
// run: a window of about 471 KB each, 94 MB in all) hold no more heap than
// the default cap on memory, 64 MiB; the tables past the cap are counted,
// unattributed, in the window of "(other tables)".
func TestManyTablesStayWithinTheMemoryCap(t *testing.T) {
	if testing.Short() {
		t.Skip("200 tables")
	}
	const tables, perTable = 200, 20
	var logged bytes.Buffer // the watcher logs to slog.Default unless given a Logger
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{}
	for i := range tables {
		opts.PartitionKeys["table-"+strconv.Itoa(i)] = "pk"
	}
	w := newWatcher(t, opts)
	c := newClient("http://127.0.0.1:1", w, echoHTTP{})
	for i := range tables {
		table := "table-" + strconv.Itoa(i)
		for j := range perTable {
			in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("user#" + strconv.Itoa(j))}}
			if _, err := c.GetItem(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a Watcher after %d tables of %d keys each: %d KB of heap", tables, perTable, held/1024)
	if held > 64<<20 {
		t.Errorf("a Watcher holds %d KB, want at most the default cap of 64 MiB", held/1024)
	}
	var own, other uint64
	var otherRep *reported
	reps := reportsJSON(t, w)
	for i, r := range reps {
		if r.Table == "(other tables)" {
			otherRep = &reps[i]
			other = r.UnattributedRequests
			continue
		}
		own += r.Requests
	}
	if otherRep == nil || own+other != tables*perTable || otherRep.Requests != other || otherRep.RCU != float64(other)/2 {
		t.Errorf("%d reports: %d calls in tables' own windows, %d unattributed in %+v; want all %d calls, the rest unattributed", len(reps), own, other, otherRep, tables*perTable)
	}
	if got := w.Failures(); got != (clientwatch.Failures{PastCap: other}) || other != (tables-clientwatch.DefaultMaxTables)*perTable {
		t.Errorf("Failures() = %+v, want PastCap %d: the calls on the %d tables past the cap", got, (tables-clientwatch.DefaultMaxTables)*perTable, tables-clientwatch.DefaultMaxTables)
	}
	// One warning: the clock did not move a minute between the refusals.
	want := `level=WARN msg="clientwatch: a table is past the cap on tables and memory; its calls count as unattributed in the window of (other tables)" table=table-64 index="" tables=64 max_tables=64 max_memory=67108864 calls_refused=1` + "\n"
	if logged.String() != want {
		t.Errorf("logged:\n%s\nwant:\n%s", logged.String(), want)
	}
	runtime.KeepAlive(w)
}
