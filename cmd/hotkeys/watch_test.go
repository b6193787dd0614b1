package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// safetyNet only turns a hang into a failure: every watch test stops on an
// event (the last record analysed), never after some time has passed.
const safetyNet = 60 * time.Second

// watchAt is the time of every record in the watch tests, and the clock
// watch reads. DynamoDB Local rounds record times to the minute, so with the
// wall clock a run that crossed a window boundary would split the workload
// in two, and what is flagged would depend on when the test ran. watchAt is
// in the middle of a 15-minute window; the clock standing still, no window
// closes before watch stops and reports it.
var watchAt = time.Date(2026, 11, 22, 10, 7, 30, 0, time.UTC)

var creationTimeRE = regexp.MustCompile(`"ApproximateCreationDateTime":\d+(\.\d+)?`)

// fixWatch makes watch's clock stand at watchAt, gives every record that
// time, and calls fed with the number of records so far after each batch
// watch has analysed (Batch returns only then). It is undone when t ends.
func fixWatch(t *testing.T, fed func(records int)) {
	clock, reader := watchClock, watchReader
	t.Cleanup(func() { watchClock, watchReader = clock, reader })
	watchClock = func() time.Time { return watchAt }
	watchReader = func(r streamReader) streamReader { return &fixedTimeReader{r: r, t: t, fed: fed} }
}

type fixedTimeReader struct {
	r   streamReader
	t   *testing.T
	fed func(records int)
}

func (f *fixedTimeReader) Run(ctx context.Context, h streams.Handler) error {
	batch, seen := h.Batch, 0
	at := fmt.Appendf(nil, `"ApproximateCreationDateTime":%d`, watchAt.Unix())
	h.Batch = func(shard string, payload []byte) error {
		n := strings.Count(string(payload), `"eventID"`)
		if m := len(creationTimeRE.FindAll(payload, -1)); m != n {
			f.t.Errorf("a page of %d records has %d record times", n, m)
		}
		err := batch(shard, creationTimeRE.ReplaceAll(payload, at))
		seen += n
		f.fed(seen)
		return err
	}
	return f.r.Run(ctx, h)
}

// watchEnv points the AWS SDK's standard configuration at DynamoDB Local.
func watchEnv(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", ep)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", ep)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", dynamodblocal.Region)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
}

// watchUntil runs watch with args and stops it, as Ctrl-C does, once it has
// analysed records records.
func watchUntil(t *testing.T, records int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fixWatch(t, func(n int) {
		if n >= records {
			cancel()
		}
	})
	stop := time.AfterFunc(safetyNet, cancel) // only against a hang
	defer stop.Stop()
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"watch"}, args...), nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestWatchFindsTheHotKey writes a skewed workload to a DynamoDB Local
// table — one hot key, a long tail, and a write-sharded key with one heavy
// shard — and runs `hotkeys watch` on its stream. The WCU it reports must be
// what DynamoDB Local charged, write by write.
func TestWatchFindsTheHotKey(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{
		Prefix: "watch", HashKey: "PK", HashKeyType: types.ScalarAttributeTypeS,
		RangeKey: "SK", RangeKeyType: types.ScalarAttributeTypeS,
	})
	var items []map[string]types.AttributeValue
	for i := range 300 {
		items = append(items, dynamodblocal.Item("OPS_LOG", fmt.Sprintf("LINE#%04d", i), 1500)) // 2 WCU each
		items = append(items, dynamodblocal.Item(fmt.Sprintf("USER#%04d", i), "PROFILE", 200))
	}
	for i := range 200 {
		items = append(items, dynamodblocal.Item("ORDERS#SHARD_0", fmt.Sprintf("ORDER#%d", i), 100))
	}
	for s := 1; s < 4; s++ {
		for i := range 20 {
			items = append(items, dynamodblocal.Item(fmt.Sprintf("ORDERS#SHARD_%d", s), fmt.Sprintf("ORDER#%d", i), 100))
		}
	}
	charged, total := dynamodblocal.PutCharged(t, ddb, table, "PK", items)

	watchEnv(t)
	page := filepath.Join(t.TempDir(), "watch.html")
	code, out, errs := watchUntil(t, len(items), "--table", table, "--from", "trim_horizon", "--window", "15m", "--format", "json", "--heatmap", page)
	if code != exitOK {
		t.Fatalf("watch exit %d; stderr:\n%s", code, errs)
	}
	if !strings.Contains(errs, "partition key \"PK\"") {
		t.Errorf("watch did not look the partition key up: %s", errs)
	}
	var records, wcu uint64
	keyWCU := map[string]uint64{}
	flagged := map[string]report.KeyReport{}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Errorf("%d reports, want the one window watch stopped in", len(lines))
	}
	drawn := heatmap.New(heatmap.Options{})
	for _, line := range lines {
		drawn.Add(decodeReport(t, line).Windows...)
		for _, w := range decodeReport(t, line).Windows {
			if start := watchAt.Truncate(15 * time.Minute); !w.Start.Equal(start) {
				t.Errorf("window starts at %v, want %v: the records' times were not the test's", w.Start, start)
			}
			records += w.Records
			wcu += w.WCU
			for _, k := range w.TopKeys {
				keyWCU[k.Key] += k.WCU
			}
			for _, k := range w.HotKeys {
				flagged[k.Key] = k
			}
		}
	}
	if records != 860 || wcu != total {
		t.Errorf("watch saw %d records and %d WCU; DynamoDB Local took 860 writes and charged %d WCU", records, wcu, total)
	}
	if keyWCU["OPS_LOG"] != charged["OPS_LOG"] || charged["OPS_LOG"] != 600 {
		t.Errorf("OPS_LOG: watch says %d WCU, DynamoDB Local charged %d (want 600)", keyWCU["OPS_LOG"], charged["OPS_LOG"])
	}
	if keyWCU["ORDERS#SHARD_0"] != charged["ORDERS#SHARD_0"] {
		t.Errorf("ORDERS#SHARD_0: watch says %d WCU, DynamoDB Local charged %d", keyWCU["ORDERS#SHARD_0"], charged["ORDERS#SHARD_0"])
	}
	if k, ok := flagged["OPS_LOG"]; !ok || k.Pattern != report.PatternSingleKey {
		t.Errorf("OPS_LOG not flagged as a single key: %+v", k)
	}
	if k, ok := flagged["ORDERS#<shard>"]; !ok || k.Pattern != report.PatternShardedUneven {
		t.Errorf("the uneven write shards were not found: %+v", flagged)
	}
	for k := range flagged {
		if strings.HasPrefix(k, "USER#") {
			t.Errorf("tail key %s flagged", k)
		}
	}
	// --heatmap draws exactly the windows watch printed.
	var want bytes.Buffer
	if err := heatmap.WriteHTML(&want, drawn.Maps()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(page); err != nil || !bytes.Equal(got, want.Bytes()) || !bytes.Contains(got, []byte(">OPS_LOG</text>")) {
		t.Errorf("watch --heatmap: %v; the page (%d bytes) is not the one drawn from the printed windows (%d bytes), or lacks OPS_LOG", err, len(got), want.Len())
	}
}

// TestWatchStopsOnCancel is Ctrl-C: the window in progress is reported and
// watch exits cleanly. --duration stops watch the same way.
func TestWatchStopsOnCancel(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "cancel"})
	for i := range 5 {
		_, err := ddb.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	watchEnv(t)
	t.Run("cancel", func(t *testing.T) {
		code, out, errs := watchUntil(t, 5, "--table", table, "--from", "trim_horizon", "--window", "15m")
		if code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, errs)
		}
		if !strings.Contains(out, "records 5 ") || !strings.Contains(errs, "stopped") {
			t.Errorf("the window in progress was not reported on cancel:\n%s\n%s", out, errs)
		}
	})
	t.Run("duration", func(t *testing.T) {
		// How many records a second gives watch depends on the machine: the
		// test checks only that --duration stops it cleanly.
		fixWatch(t, func(int) {})
		done := make(chan struct{})
		var code int
		var errb bytes.Buffer
		go func() {
			defer close(done)
			code = run(context.Background(), []string{"watch", "--table", table, "--from", "trim_horizon", "--duration", "1s"}, nil, &bytes.Buffer{}, &errb)
		}()
		select {
		case <-done:
		case <-time.After(safetyNet): // only against a hang
			t.Fatal("watch --duration 1s did not stop")
		}
		if code != exitOK || !strings.Contains(errb.String(), "stopped") {
			t.Errorf("exit %d; stderr:\n%s", code, errb.String())
		}
	})
}
