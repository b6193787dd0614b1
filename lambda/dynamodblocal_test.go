package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// TestLambdaPathOnDynamoDBLocal is the Lambda's path end to end on real
// stream records: writes to DynamoDB Local, read back from its stream, put
// into the Lambda event shape, and run through the handler as a tumbling
// window (state carried from batch to batch) and as plain batches. The
// handler is not told the partition key: it must look it up with
// DescribeTable. The metrics it publishes must carry the WCU DynamoDB Local
// charged.
func TestLambdaPathOnDynamoDBLocal(t *testing.T) {
	ddb, dds := dynamodblocal.Clients(t)
	table, streamARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{
		Prefix: "lambda", HashKey: "PK", HashKeyType: types.ScalarAttributeTypeS,
		RangeKey: "SK", RangeKeyType: types.ScalarAttributeTypeS,
	})
	var items []map[string]types.AttributeValue
	for i := range 150 {
		items = append(items, dynamodblocal.Item("OPS_LOG", fmt.Sprintf("LINE#%d", i), 1500))
	}
	for i := range 60 {
		items = append(items, dynamodblocal.Item(fmt.Sprintf("USER#%d", i), "PROFILE", 100))
	}
	charged, total := dynamodblocal.PutCharged(t, ddb, table, "PK", items)

	// Read the stream back: Lambda-shaped pages, as the event source mapping
	// would deliver them.
	var pages [][]byte
	var shard string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := streams.DefaultConfig()
	cfg.StreamARN, cfg.From, cfg.Limit = streamARN, streams.TrimHorizon, 50
	reader, err := streams.NewReader(dds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = reader.Run(ctx, streams.Handler{Batch: func(id string, payload []byte) error {
		pages = append(pages, bytes.Clone(payload))
		shard = id
		seen += strings.Count(string(payload), `"eventID"`)
		if seen >= 210 {
			cancel()
		}
		return nil
	}})
	if err != nil || seen != 210 {
		t.Fatalf("read %d of 210 records from the stream (err %v)", seen, err)
	}

	newTestHandler := func(out io.Writer, now func() time.Time) *handler {
		pub, err := alert.NewPublisher(alert.Config{Namespace: "HotKeyDetector", Mode: alert.ModeEMF, Top: 10, StorageResolution: 60}, nil, out)
		if err != nil {
			t.Fatal(err)
		}
		h, err := newHandler(detector.DefaultConfig(), "", indexesAuto, keyschema.NewCache(ddb), pub, slog.New(slog.NewJSONHandler(io.Discard, nil)), now)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	check := func(t *testing.T, emf string) {
		t.Helper()
		var tableWCU, opsLog float64
		sc := bufio.NewScanner(strings.NewReader(emf))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil || line["_aws"] == nil {
				continue
			}
			if v, ok := line["WriteCapacityUnits"].(float64); ok {
				tableWCU += v
			}
			if line["PartitionKey"] == "OPS_LOG" {
				opsLog += line["KeyWriteCapacityUnits"].(float64)
			}
		}
		if uint64(tableWCU) != total || uint64(opsLog) != charged["OPS_LOG"] || charged["OPS_LOG"] != 300 {
			t.Errorf("published WriteCapacityUnits %v and OPS_LOG %v; DynamoDB Local charged %d and %d (want 300)",
				tableWCU, opsLog, total, charged["OPS_LOG"])
		}
	}

	// Time is the test's, not the wall clock's: DynamoDB Local rounds
	// record times to the minute, so writes made across a minute boundary
	// would otherwise split into two windows, and whether OPS_LOG is flagged
	// in each half would depend on when the test runs. Every record is set
	// to one instant in the middle of a window; the WCU, which is what this
	// test checks against DynamoDB Local, is untouched.
	at := time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC)
	for i, p := range pages {
		if n, m := len(creationTimeRE.FindAll(p, -1)), strings.Count(string(p), `"eventID"`); n != m {
			t.Fatalf("page %d: %d record times for %d records", i, n, m)
		}
		pages[i] = creationTimeRE.ReplaceAll(p, fmt.Appendf(nil, `"ApproximateCreationDateTime":%d`, at.Unix()))
	}
	fixed := func() time.Time { return at }

	t.Run("tumbling window", func(t *testing.T) {
		var out bytes.Buffer
		h := newTestHandler(&out, fixed)
		start := at.Truncate(time.Hour)
		state := map[string]string{}
		invoke := func(records []byte, final bool) {
			ev := map[string]any{
				"Records": json.RawMessage(records), "shardId": shard, "eventSourceARN": streamARN,
				"window": map[string]string{"start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339)},
				"state":  state, "isFinalInvokeForWindow": final, "isWindowTerminatedEarly": false,
			}
			payload, _ := json.Marshal(ev)
			resp, err := h.Invoke(context.Background(), payload)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				State map[string]string `json:"state"`
			}
			if err := json.Unmarshal(resp, &r); err != nil || r.State == nil {
				t.Fatalf("response %s: state missing or null", resp)
			}
			state = r.State
		}
		for _, p := range pages {
			invoke(recordsOf(t, p), false)
		}
		invoke(recordsOf(t, pages[0]), false) // a redelivered batch must not count twice
		invoke([]byte("[]"), true)
		check(t, out.String())
	})
	t.Run("plain batches", func(t *testing.T) {
		var out bytes.Buffer
		clock := at
		h := newTestHandler(&out, func() time.Time { return clock })
		for _, p := range append(pages, pages[0]) { // with one batch delivered twice
			if _, err := h.Invoke(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		if out.Len() != 0 {
			t.Fatalf("a window was published before it closed: %s", out.String())
		}
		// Ten minutes on, a quiet stream's empty batch closes the window by the clock.
		clock = clock.Add(10 * time.Minute)
		if _, err := h.Invoke(context.Background(), []byte(`{"Records":[]}`)); err != nil {
			t.Fatal(err)
		}
		check(t, out.String())
	})
}

// recordsOf returns the Records array of a Lambda event payload.
func recordsOf(t *testing.T, payload []byte) []byte {
	var ev struct {
		Records json.RawMessage
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Records
}
