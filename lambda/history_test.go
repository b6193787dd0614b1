package main

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/record"
)

// TestHistoryWrittenByTheBootstrap runs the built bootstrap over the sample
// tumbling window on two stream shards with HOTKEYS_HISTORY_TABLE set to a
// table on DynamoDB Local: each final invoke stores its shard's window, a
// redelivered final invoke stores nothing twice, the TTL attribute is the
// window's end plus HOTKEYS_HISTORY_RETENTION_DAYS, and the stored windows
// merge into the truth of the records.
func TestHistoryWrittenByTheBootstrap(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	shift := recentShift()
	p1 := shiftEvent(readSample(t, "tumbling-window-1.json"), shift)
	p2 := shiftEvent(readSample(t, "tumbling-window-2.json"), shift)
	p3 := shiftEvent(readSample(t, "tumbling-window-final.json"), shift)
	const shardA = "shardId-00000001795305600000-2c4e6a8f"
	shardB := "shardId-00000001795305600000-99999999"
	onShard := func(p []byte, shard string) []byte { return bytes.ReplaceAll(p, []byte(shardA), []byte(shard)) }

	f := startFunction(t, map[string]string{"HOTKEYS_PARTITION_KEY": "PK", "HOTKEYS_HISTORY_TABLE": table,
		"HOTKEYS_HISTORY_RETENTION_DAYS": "7", "AWS_ENDPOINT_URL_DYNAMODB": ep})
	for _, shard := range []string{shardA, shardB} {
		state := map[string]string{}
		for _, p := range [][]byte{p1, p2} {
			state = tumblingResponse(t, f.invoke(t, withState(t, onShard(p, shard), state)))
		}
		final := withState(t, onShard(p3, shard), state)
		tumblingResponse(t, f.invoke(t, final))
		if shard == shardA {
			// At least once: the final invoke comes again.
			tumblingResponse(t, f.invoke(t, final))
		}
	}
	tr := sequenceTruth(t)
	start := sampleByFile("tumbling-window-final.json").Window.Add(shift)

	out, err := ddb.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 2 {
		t.Fatalf("%d items stored, want 2 (one per shard; the redelivered final invoke overwrites its own)", len(out.Items))
	}
	for _, item := range out.Items {
		exp, _ := item[store.AttrExpires].(*types.AttributeValueMemberN)
		want := strconv.FormatInt(start.Add(time.Minute+7*24*time.Hour).Unix(), 10)
		if exp == nil || exp.Value != want {
			t.Errorf("expires %v, want %s (window end + 7 days)", item[store.AttrExpires], want)
		}
	}
	m, _ := history.NewMerger("Orders", "", time.Minute, 10)
	err = mustTable(t, ddb, table, store.Options{}).Reader(0).Shards(context.Background(), start, start.Add(time.Minute), m.Add, func(key string, err error) {
		t.Errorf("item %s skipped: %v", key, err)
	})
	if err != nil {
		t.Fatal(err)
	}
	reps := m.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d merged windows, want 1", len(reps))
	}
	rep := reps[0]
	if rep.Records != 2*tr.Records || rep.WCU != 2*tr.WCU || len(rep.Shards) != 2 {
		t.Errorf("merged: %d records, %d WCU, %d shards; want %d, %d, 2 (each shard's window once)", rep.Records, rep.WCU, len(rep.Shards), 2*tr.Records, 2*tr.WCU)
	}
	for _, k := range rep.TopKeys {
		truth := 2 * tr.Keys[k.Key].WCU
		if k.WCULower > truth || truth > k.WCUUpper {
			t.Errorf("%s: [%d, %d] does not bracket %d", k.Key, k.WCULower, k.WCUUpper, truth)
		}
	}
	if rep.HotKeys[0].Key != tumblingSequence.Hot[0].Key {
		t.Errorf("hot keys %+v: want %s first", rep.HotKeys, tumblingSequence.Hot[0].Key)
	}
}

// TestHistoryWriteFailsQuietly: with a history table that cannot be written
// (none on a dead endpoint), the final invoke still succeeds and publishes
// its metrics, and says so: an ERROR log line and a HistoryWriteErrors EMF
// line.
func TestHistoryWriteFailsQuietly(t *testing.T) {
	shift := recentShift()
	f := startFunction(t, map[string]string{"HOTKEYS_PARTITION_KEY": "PK", "HOTKEYS_HISTORY_TABLE": "hotkeys-history"})
	state := map[string]string{}
	for _, name := range []string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"} {
		state = tumblingResponse(t, f.invoke(t, withState(t, shiftEvent(readSample(t, name), shift), state)))
	}
	if f.cw.Attempts() == 0 {
		t.Error("no metrics published after a failed history write")
	}
	var logged, counted bool
	for _, l := range f.lines(t) {
		logged = logged || (l.str("level") == "ERROR" && strings.HasPrefix(l.str("msg"), "history:") && l.str("history_table") == "hotkeys-history")
		counted = counted || (l.num(MetricHistoryWriteErrors) == 1 && l.str("TableName") == "Orders" && l["_aws"] != nil)
	}
	if !logged || !counted {
		t.Errorf("failed history write: logged %v, HistoryWriteErrors EMF %v; want both", logged, counted)
	}
}

// mustTable returns the history table name, reached through api.
func mustTable(t *testing.T, api store.API, name string, opts store.Options) *store.Table {
	t.Helper()
	table, err := store.New(api, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func TestHistoryFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	store := func(m map[string]string) (*historyStore, error) {
		c, err := historyFromEnv(env(m))
		if err != nil {
			return nil, err
		}
		return newHistoryStore(c, nil, "NS", nil)
	}
	if h, err := store(nil); h != nil || err != nil {
		t.Errorf("no table: %v, %v; want off", h, err)
	}
	h, err := store(map[string]string{"HOTKEYS_HISTORY_TABLE": "H", "HOTKEYS_HISTORY_RETENTION_DAYS": "7"})
	if err != nil || h.table.Name() != "H" || h.table.Retention() != 7*24*time.Hour || h.namespace != "NS" {
		t.Errorf("table H, 7 days: %+v, %v", h, err)
	}
	if h, _ := store(map[string]string{"HOTKEYS_HISTORY_TABLE": "H"}); h.table.Retention() != 30*24*time.Hour {
		t.Errorf("default retention %s, want 30 days", h.table.Retention())
	}
	for _, bad := range []string{"0", "-1", "3651", "30d", "1.5"} {
		_, err := historyFromEnv(env(map[string]string{"HOTKEYS_HISTORY_RETENTION_DAYS": bad}))
		if err == nil || !strings.Contains(err.Error(), "HOTKEYS_HISTORY_RETENTION_DAYS") {
			t.Errorf("retention %q: %v, want an error naming the variable", bad, err)
		}
	}
}

// TestHistoryWriteKeepsTheReserve: a write is not started within the
// reserve of the invocation's deadline (a window with many indexes has as
// many summaries to store), and is then logged and counted as failed;
// with time left, the same write stores its item.
func TestHistoryWriteKeepsTheReserve(t *testing.T) {
	client, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, client, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := detector.NewWindow(detector.DefaultConfig().Sketch, "Orders", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w.Add(&record.Record{Table: "Orders", Time: start, WCU: 1, WCUExact: true,
		PartitionKey: ddb.Key{Type: ddb.String, Value: []byte("A")}})
	rep := w.Report(detector.DefaultConfig())
	for _, tc := range []struct {
		left   time.Duration
		stored bool
	}{{time.Second, false}, {time.Minute, true}} {
		var emf, logs bytes.Buffer
		// The store's clock reads tc.left before the invocation's deadline.
		deadline := time.Now().Add(time.Hour)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		s := &historyStore{table: mustTable(t, client, table, store.Options{Retention: time.Hour}), namespace: "NS", emf: &emf,
			log: slog.New(slog.NewJSONHandler(&logs, nil)), now: func() time.Time { return deadline.Add(-tc.left) },
			attempts: 5, firstDelay: time.Millisecond, reserve: 2 * time.Second}
		ok := s.write(ctx, w, rep, "shard-1")
		cancel()
		out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.stored || (len(out.Items) > 0) != tc.stored {
			t.Errorf("%s left, reserve 2s: write %v, %d items stored; want %v", tc.left, ok, len(out.Items), tc.stored)
		}
		failed := strings.Contains(logs.String(), "too close to the invocation's deadline") &&
			strings.Contains(emf.String(), `"`+MetricHistoryWriteErrors+`":1`)
		if failed == tc.stored {
			t.Errorf("%s left: logged and counted as failed %v, want %v; logs %s, EMF %s", tc.left, failed, !tc.stored, logs.String(), emf.String())
		}
	}
}
