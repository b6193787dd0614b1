package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/streams"
)

// TestIndexesOnDynamoDBLocal is the GSI hot key of the daily-bucket fix,
// end to end through the built bootstrap: the table's key is
// OPS_LOG#<date>, spread over three days, while every log line's GSI1PK is
// "OPS_LOG". The records are DynamoDB Local's real stream, the function
// asks DynamoDB Local's DescribeTable for the index, and its findings log
// must name GSI1 and OPS_LOG, and its EMF metrics carry IndexName=GSI1,
// with exactly the WCU DynamoDB Local charged the index
// (ReturnConsumedCapacity=INDEXES); the history table holds the index's
// window beside the table's, and it merges to that WCU; with key
// redaction on, no stored item holds OPS_LOG, and GSI1's hot key is its
// stand-in (hotkeys hash-key OPS_LOG). With HOTKEYS_INDEXES=off there is
// no index window, and no DescribeTable is needed.
func TestIndexesOnDynamoDBLocal(t *testing.T) {
	ddb, dds := dynamodblocal.Clients(t)
	endpoint := dynamodblocal.Endpoint(t)
	table, streamARN := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{
		Prefix: "OpsLog", HashKey: "PK", RangeKey: "SK",
		Indexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		IndexAttributes: []types.AttributeDefinition{{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeS}},
	})
	var items []map[string]types.AttributeValue
	for i := range 180 {
		item := dynamodblocal.Item(fmt.Sprintf("OPS_LOG#2026-11-%02d", 20+i%3), fmt.Sprintf("LINE#%d", i), 100)
		item["GSI1PK"] = &types.AttributeValueMemberS{Value: "OPS_LOG"}
		items = append(items, item)
	}
	for i := range 40 { // in no index
		items = append(items, dynamodblocal.Item(fmt.Sprintf("USER#%d", i), "PROFILE", 100))
	}
	gsiCharged := dynamodblocal.PutIndexesCharged(t, ddb, table, items)
	if gsiCharged < 180 {
		t.Fatalf("DynamoDB Local charged GSI1 %d WCU for 180 entries", gsiCharged)
	}

	// DynamoDB Local's stream, as tumbling-window batches of 50.
	var pages [][]byte
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := streams.DefaultConfig()
	cfg.StreamARN, cfg.From, cfg.Limit = streamARN, streams.TrimHorizon, 50
	reader, err := streams.NewReader(dds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = reader.Run(ctx, streams.Handler{Batch: func(_ string, payload []byte) error {
		pages = append(pages, bytes.Clone(payload))
		if seen += strings.Count(string(payload), `"eventID"`); seen >= len(items) {
			cancel()
		}
		return nil
	}})
	if err != nil || seen != len(items) {
		t.Fatalf("read %d of %d records from the stream (err %v)", seen, len(items), err)
	}
	// One instant for every record (DynamoDB Local rounds times to the
	// minute, and a minute boundary would split the window); recent, so
	// that CloudWatch's time range is no concern.
	at := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour + 30*time.Second)
	start := at.Truncate(15 * time.Minute)
	var records [][]byte
	for _, p := range pages {
		p = creationTimeRE.ReplaceAll(p, fmt.Appendf(nil, `"ApproximateCreationDateTime":%d`, at.Unix()))
		records = append(records, recordsOf(t, p))
	}

	for _, mode := range []string{"auto", "off", "redacted"} {
		t.Run(mode, func(t *testing.T) {
			historyTable, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
				RangeKey: store.AttrWindow, NoStream: true})
			env := map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "HOTKEYS_INDEXES": mode,
				"HOTKEYS_PARTITION_KEY": "PK", "HOTKEYS_METRICS": "emf", "HOTKEYS_WINDOW": "900", "HOTKEYS_HISTORY_TABLE": historyTable}
			if mode == "redacted" {
				env["HOTKEYS_INDEXES"] = "auto"
				maps.Copy(env, redactionEnv)
			}
			f := startFunction(t, env)
			state := map[string]string{}
			for i, recs := range records {
				ev := map[string]any{
					"Records": json.RawMessage(recs), "shardId": "shardId-1", "eventSourceARN": streamARN,
					"window": map[string]string{"start": start.Format(time.RFC3339), "end": start.Add(15 * time.Minute).Format(time.RFC3339)},
					"state":  state, "isFinalInvokeForWindow": i == len(records)-1, "isWindowTerminatedEarly": false,
				}
				payload, _ := json.Marshal(ev)
				state = tumblingResponse(t, f.invoke(t, payload))
				if _, ok := state["hotkeys.index.0"]; ok != (mode != "off" && i < len(records)-1) {
					t.Fatalf("batch %d: index window in the state: %v", i, ok)
				}
			}
			lines := f.lines(t)
			var gsi []logLine
			for _, l := range findings(lines) {
				if l.str("index") != "" {
					gsi = append(gsi, l)
				}
			}
			// The index's metrics: EMF lines with an IndexName dimension.
			var indexWCU, opsLogWCU float64
			indexLines := 0
			for _, l := range emfLines(lines) {
				if l.str("IndexName") == "" {
					continue
				}
				indexLines++
				if l.str("IndexName") != "GSI1" || l.str("TableName") != table {
					t.Errorf("EMF line for index %q of table %q", l.str("IndexName"), l.str("TableName"))
				}
				if v, ok := l["WriteCapacityUnits"].(float64); ok {
					indexWCU += v
				}
				if l.str("PartitionKey") == "OPS_LOG" {
					opsLogWCU += l.num("KeyWriteCapacityUnits")
				}
			}
			// The history table: the table's window, and GSI1's unless off.
			stored := map[string]*history.Summary{}
			err := mustTable(t, ddb, historyTable, store.Options{}).Reader(0).Shards(context.Background(), start, start.Add(15*time.Minute), func(s *history.Summary) error {
				stored[s.Index] = s
				return nil
			}, func(key string, err error) { t.Errorf("history item %s skipped: %v", key, err) })
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := stored[""]; !ok || len(stored) != map[string]int{"auto": 2, "off": 1, "redacted": 2}[mode] {
				t.Fatalf("history holds the windows of %v; want the table's and, unless off, GSI1's", slices.Collect(maps.Keys(stored)))
			}
			if mode == "redacted" {
				checkHistoryRedacted(t, ddb, historyTable, table, stored["GSI1"], gsiCharged)
				return
			}
			if mode == "off" {
				if len(gsi) != 0 || indexLines != 0 {
					t.Errorf("HOTKEYS_INDEXES=off, yet %d index findings and %d index EMF lines", len(gsi), indexLines)
				}
				return
			}
			m, _ := history.NewMerger(table, "GSI1", 15*time.Minute, 10)
			if err := m.Add(stored["GSI1"]); err != nil {
				t.Fatal(err)
			}
			merged := m.Reports()[0]
			if merged.Index != "GSI1" || merged.WCU != gsiCharged || len(merged.HotKeys) != 1 || merged.HotKeys[0].Key != "OPS_LOG" ||
				merged.HotKeys[0].WCULower != gsiCharged || merged.HotKeys[0].WCUUpper != gsiCharged {
				t.Errorf("GSI1 from the history table: index %q, %d WCU, hot keys %+v; want GSI1, OPS_LOG alone at exactly the %d WCU DynamoDB Local charged",
					merged.Index, merged.WCU, merged.HotKeys, gsiCharged)
			}
			if indexWCU != float64(gsiCharged) || opsLogWCU != float64(gsiCharged) {
				t.Errorf("EMF: GSI1's WriteCapacityUnits %v and OPS_LOG's KeyWriteCapacityUnits %v; DynamoDB Local charged the index %d",
					indexWCU, opsLogWCU, gsiCharged)
			}
			if len(gsi) != 1 {
				t.Fatalf("%d index findings, want 1 (GSI1's OPS_LOG): %v", len(gsi), gsi)
			}
			l := gsi[0]
			if l.str("table") != table || l.str("index") != "GSI1" || l.str("key") != "OPS_LOG" || l.str("pattern") != "constant_key" ||
				l.num("wcu") != float64(gsiCharged) || l.num("wcu_lower") != float64(gsiCharged) || l.num("wcu_upper") != float64(gsiCharged) {
				t.Errorf("index finding %v; want table %s, index GSI1, key OPS_LOG, pattern constant_key, %d WCU exactly as DynamoDB Local charged",
					l, table, gsiCharged)
			}
			analysed := false
			for _, l := range lines {
				analysed = analysed || (l.str("msg") == "global secondary indexes analysed" && fmt.Sprint(l["indexes"]) == "[GSI1]")
			}
			if !analysed {
				t.Error("no log line names the indexes DescribeTable gave")
			}
		})
	}
}

// checkHistoryRedacted: with key redaction on, no item of the history table
// holds OPS_LOG in any form (the table's keys OPS_LOG#<date> included), and
// GSI1's summary names its hot key by its stand-in, the one `hotkeys
// hash-key OPS_LOG` gives with the same secret, at the WCU DynamoDB Local
// charged.
func checkHistoryRedacted(t *testing.T, ddb *dynamodb.Client, historyTable, table string, gsi1 *history.Summary, charged uint64) {
	t.Helper()
	out, err := ddb.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(historyTable)})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		for name, v := range item {
			var raw []byte
			switch v := v.(type) {
			case *types.AttributeValueMemberB:
				raw = v.Value
			case *types.AttributeValueMemberS:
				raw = []byte(v.Value)
			}
			if bytes.Contains(raw, []byte("OPS_LOG")) {
				t.Errorf("history item attribute %s holds OPS_LOG with redaction on", name)
			}
		}
	}
	standIn, errs, err := runCLI(t, testSecret, nil, "hash-key", "OPS_LOG")
	if err != nil {
		t.Fatalf("hotkeys hash-key: %v: %s", err, errs)
	}
	m, _ := history.NewMerger(table, "GSI1", 15*time.Minute, 10)
	if err := m.Add(gsi1); err != nil {
		t.Fatal(err)
	}
	hot := m.Reports()[0].HotKeys
	if len(hot) != 1 || hot[0].Key != strings.TrimSpace(standIn) || hot[0].WCUUpper != charged {
		t.Errorf("GSI1's hot keys from the history table %+v; want one, %s (hotkeys hash-key OPS_LOG), at %d WCU", hot, strings.TrimSpace(standIn), charged)
	}
}
