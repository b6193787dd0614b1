package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/heatmap"
	"github.com/hotkeys-dev/hotkeys/internal/dynamodblocal"
)

// TestWatchFindsTheHotKey writes a skewed workload to a DynamoDB Local
// table — one hot key, a long tail, and a write-sharded key with one heavy
// shard — and runs `hotkeys watch` on its stream. The WCU it reports must be
// what DynamoDB Local charged, write by write.
func TestWatchFindsTheHotKey(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{
		Prefix: "watch", HashKey: "PK", HashKeyType: types.ScalarAttributeTypeS,
		RangeKey: "SK", RangeKeyType: types.ScalarAttributeTypeS,
	})
	ctx := context.Background()
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

	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", ep)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", ep)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", dynamodblocal.Region)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	var out, errb bytes.Buffer
	page := filepath.Join(t.TempDir(), "watch.html")
	// DynamoDB Local rounds record times to the minute: a 15-minute window
	// keeps the whole workload in one window unless the test straddles a
	// quarter hour, which the sums below tolerate.
	code := run(ctx, []string{"watch", "--table", table, "--from", "trim_horizon", "--duration", "6s",
		"--window", "15m", "--format", "json", "--heatmap", page}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("watch exit %d; stderr:\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "partition key \"PK\"") {
		t.Errorf("watch did not look the partition key up: %s", errb.String())
	}
	var records, wcu uint64
	keyWCU := map[string]uint64{}
	flagged := map[string]detector.KeyReport{}
	drawn := heatmap.New(heatmap.Options{})
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		drawn.Add(decodeReport(t, line).Windows...)
		for _, w := range decodeReport(t, line).Windows {
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
	if k, ok := flagged["OPS_LOG"]; !ok || k.Pattern != detector.PatternSingleKey {
		t.Errorf("OPS_LOG not flagged as a single key: %+v", k)
	}
	if k, ok := flagged["ORDERS#<shard>"]; !ok || k.Pattern != detector.PatternShardedUneven {
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
// watch exits cleanly.
func TestWatchStopsOnCancel(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
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
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", ep)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", ep)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", dynamodblocal.Region)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"watch", "--table", table, "--from", "trim_horizon", "--window", "15m"}, nil, &out, &errb)
	if code != exitOK || time.Since(start) > 20*time.Second {
		t.Fatalf("exit %d after %s; stderr:\n%s", code, time.Since(start), errb.String())
	}
	if !strings.Contains(out.String(), "records 5 ") || !strings.Contains(errb.String(), "stopped") {
		t.Errorf("the window in progress was not reported on cancel:\n%s\n%s", out.String(), errb.String())
	}
}
