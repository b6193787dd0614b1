package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// oneWriteWindow returns the window of Orders at 10:00 on 2026-11-22 with
// one write, and its report.
func oneWriteWindow(t *testing.T) (*detector.Window, report.Report) {
	t.Helper()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := detector.DefaultConfig()
	w, err := detector.NewWindow(cfg.Sketch, "Orders", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w.Add(&record.Record{Table: "Orders", Time: start, WCU: 1, WCUExact: true, PartitionKey: ddb.Key{Type: ddb.String, Value: []byte("A")}})
	return w, w.Report(cfg)
}

// TestHistoryWriteSpread: a final invoke waits its shard's
// store.WriteDelay once before its first write, however many
// windows (the table's, the indexes') it stores; the wait is cut so that
// twice the reserve of the deadline is left, and skipped when less is;
// the items go to the shard's write shard. The clock and the wait are the
// test's: nothing sleeps.
func TestHistoryWriteSpread(t *testing.T) {
	client, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, client, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	w, rep := oneWriteWindow(t)
	const shard = "shardId-00000001795305600000-0000f778"
	const spread = 8 * time.Second
	full := store.WriteDelay(shard, spread)
	if full < 5*time.Second {
		t.Fatalf("the test wants a shard whose delay is over 5s, this one's is %s", full)
	}
	for _, tc := range []struct {
		left time.Duration
		want []time.Duration
	}{
		{time.Minute, []time.Duration{full}},
		{full + 3*time.Second, []time.Duration{full - time.Second}}, // 2 × 2 s kept
		{3 * time.Second, nil},
	} {
		var slept []time.Duration
		deadline := time.Now().Add(time.Hour)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		var logs bytes.Buffer
		s := &historyStore{table: mustTable(t, client, table, store.Options{WriteShards: 16, Retention: time.Hour}), namespace: "NS", emf: &bytes.Buffer{},
			log: slog.New(slog.NewJSONHandler(&logs, nil)), now: func() time.Time { return deadline.Add(-tc.left) },
			attempts: 1, firstDelay: time.Millisecond, reserve: time.Second * 2, spread: spread,
			sleep: func(_ context.Context, d time.Duration) { slept = append(slept, d) }}
		for range 3 { // the table's window and two indexes'
			s.write(ctx, w, rep, shard)
		}
		cancel()
		if fmt.Sprint(slept) != fmt.Sprint(tc.want) {
			t.Errorf("%s left: waited %v, want %v", tc.left, slept, tc.want)
		}
	}
	out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("2026-11-22#%d", store.Suffix(shard, 16))
	for _, item := range out.Items {
		if pk := item[store.AttrDay].(*types.AttributeValueMemberS).Value; pk != want {
			t.Errorf("stored under %s, want %s", pk, want)
		}
	}
	if len(out.Items) != 1 {
		t.Errorf("%d items, want the one window stored (again and again)", len(out.Items))
	}
}

func TestHistoryFromEnvWriteShardsAndSpread(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		m["HOTKEYS_HISTORY_TABLE"] = "H"
		return func(k string) string { return m[k] }
	}
	h, err := historyFromEnv(env(map[string]string{}))
	if err != nil || h.WriteShards != store.DefaultWriteShards || h.spread != 0 {
		t.Errorf("defaults: %+v, %v; want %d write shards, no spread", h, err, store.DefaultWriteShards)
	}
	h, err = historyFromEnv(env(map[string]string{"HOTKEYS_HISTORY_WRITE_SHARDS": "8", "HOTKEYS_HISTORY_WRITE_SPREAD": "4"}))
	if err != nil || h.WriteShards != 8 || h.spread != 4*time.Second {
		t.Errorf("8 write shards, 4 s: %+v, %v", h, err)
	}
	for name, bad := range map[string][]string{
		"HOTKEYS_HISTORY_WRITE_SHARDS": {"0", "1025", "x", "1.5"},
		"HOTKEYS_HISTORY_WRITE_SPREAD": {"-1", "21", "21s", "1m", "x"},
	} {
		for _, v := range bad {
			if _, err := historyFromEnv(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// TestHistoryWritesSpreadOnDynamoDBLocal: the Lambda's own write path
// (historyFromEnv's defaults, newHistoryStore, historyStore.write) stores the windows of
// 1,000 stream shards, closed at the same instant, on DynamoDB Local. Read
// back, each shard's item is under its write shard, the items are over
// every one of the default 64 partition key values, and the busiest value
// holds few enough that, were every item the largest a window can be
// (16 KB, 16 WCU), all of them landing in one second would stay within
// DynamoDB's 1,000 WCU per second per partition: the same count
// history/store's TestWriteSpread replays, here from what was stored.
func TestHistoryWritesSpreadOnDynamoDBLocal(t *testing.T) {
	client, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, client, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	c, err := historyFromEnv(func(k string) string { return map[string]string{"HOTKEYS_HISTORY_TABLE": table}[k] })
	if err != nil {
		t.Fatal(err)
	}
	s, err := newHistoryStore(c, client, "NS", slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var emf bytes.Buffer
	s.emf = &emf
	w, rep := oneWriteWindow(t)
	rng := rand.New(rand.NewPCG(25, 1000))
	shards := map[string]bool{}
	for len(shards) < 1000 {
		shards[fmt.Sprintf("shardId-%020d-%08x", 1795305600000+rng.Int64N(1e9), rng.Uint32())] = true
	}
	ctx := context.Background()
	for shard := range shards {
		if !s.write(ctx, w, rep, shard) {
			t.Fatalf("shard %s: window not stored: %s", shard, emf.String())
		}
	}

	perKey := map[string]int{}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range out.Items {
			pk := item[store.AttrDay].(*types.AttributeValueMemberS).Value
			sk := strings.Split(item[store.AttrWindow].(*types.AttributeValueMemberS).Value, "#")
			if len(sk) != 3 || !shards[sk[2]] {
				t.Fatalf("item %s / %v: not one of the shards' windows", pk, sk)
			}
			if want := fmt.Sprintf("2026-11-22#%d", store.Suffix(sk[2], store.DefaultWriteShards)); pk != want {
				t.Errorf("shard %s stored under %s, want %s", sk[2], pk, want)
			}
			perKey[pk]++
			delete(shards, sk[2])
		}
	}
	if len(shards) != 0 {
		t.Fatalf("%d shards' windows missing", len(shards))
	}
	busiest := slices.Max(slices.Collect(maps.Values(perKey)))
	largest := int(ddb.WriteUnits(16 * 1024)) // history.MaxEncodedSize and the item's key and attributes
	t.Logf("1,000 windows over %d partition key values, at most %d on one (%d WCU if every one were %d WCU)", len(perKey), busiest, busiest*largest, largest)
	if len(perKey) != store.DefaultWriteShards || busiest*largest > int(ddb.PartitionWriteUnits) {
		t.Errorf("1,000 windows over %d partition key values (want %d), at most %d on one: %d WCU in a second, over DynamoDB's %d",
			len(perKey), store.DefaultWriteShards, busiest, busiest*largest, ddb.PartitionWriteUnits)
	}
}
