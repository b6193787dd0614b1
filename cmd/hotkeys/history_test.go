package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
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
	"github.com/hotkeys-dev/hotkeys/report"
)

// storedDay is a workload over shards and minutes, summarised per shard and
// 1-minute window as the Lambda's tumbling windows summarise it, with its
// exact truth per minute: the table's, and that of its index GSI1, whose
// key OPS_LOG takes 120 WCU/s on every shard. Some windows lost records to
// a bug in hotkeys (internal errors): those are stored as version 3.
type storedDay struct {
	summaries     []*history.Summary          // the table's windows, then GSI1's
	wcu           map[int64]map[string]uint64 // minute -> key -> WCU
	records       map[int64]uint64
	internal      map[int64]uint64            // minute -> internal errors
	indexWCU      map[int64]map[string]uint64 // GSI1's
	indexInternal map[int64]uint64
}

func newStoredDay(t *testing.T, shards, minutes int, start time.Time) *storedDay {
	rng := rand.New(rand.NewPCG(12, 12))
	cfg := detector.DefaultConfig()
	cfg.Top = 5
	d := &storedDay{wcu: map[int64]map[string]uint64{}, records: map[int64]uint64{}, internal: map[int64]uint64{},
		indexWCU: map[int64]map[string]uint64{}, indexInternal: map[int64]uint64{}}
	var indexSums []*history.Summary
	for m := range minutes {
		ws := start.Add(time.Duration(m) * time.Minute)
		d.wcu[ws.Unix()] = map[string]uint64{}
		d.indexWCU[ws.Unix()] = map[string]uint64{}
		for sh := range shards {
			shard := fmt.Sprintf("shardId-%d", sh)
			w, err := detector.NewWindow(cfg.Sketch, "Orders", ws, ws.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			add := func(k string, wcu uint64, sec int) {
				r := record.Record{Table: "Orders", Shard: shard, Time: ws.Add(time.Duration(sec) * time.Second),
					PartitionKey: ddb.Key{Type: ddb.String, Value: []byte(k)}, WCU: wcu, WCUExact: true}
				w.Add(&r)
				d.wcu[ws.Unix()][k] += wcu
				d.records[ws.Unix()]++
			}
			for sec := range 60 {
				for range 20 {
					add(fmt.Sprintf("USER#%d", rng.IntN(5000)), uint64(1+rng.IntN(2)), sec)
				}
				add(fmt.Sprintf("K%d", int(rng.ExpFloat64()*4)), 3, sec)
				if m == sh && m < 2 {
					// A key hot on shard 0 in minute 0 and on shard 1 in
					// minute 1.
					add("HOT", 400, sec)
				}
			}
			internal := uint64((m*shards + sh) % 3) // none in a third of the windows
			w.AddInternal(internal)
			d.internal[ws.Unix()] += internal
			hll, err := w.AppendDistinct(nil)
			if err != nil {
				t.Fatal(err)
			}
			d.summaries = append(d.summaries, history.FromReport(w.Report(cfg), shard, hll))

			iw, err := detector.NewIndexWindow(cfg.IndexSketchConfig(), "Orders", "GSI1", ws, ws.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			for sec := range 60 {
				r := record.Record{Table: "Orders", Time: ws.Add(time.Duration(sec) * time.Second)}
				for _, e := range []struct {
					key string
					wcu uint64
				}{{"OPS_LOG", 120}, {fmt.Sprintf("DAY#%d", rng.IntN(40)), 1}} {
					w := record.IndexWrite{Index: "GSI1", WCU: e.wcu, Exact: true,
						Put: ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: []byte(e.key)}, WCU: e.wcu}}
					iw.AddIndex(&r, &w)
					d.indexWCU[ws.Unix()][e.key] += e.wcu
				}
			}
			if m%2 == 1 && sh == 0 {
				iw.AddInternal(5)
				d.indexInternal[ws.Unix()] += 5
			}
			if hll, err = iw.AppendDistinct(nil); err != nil {
				t.Fatal(err)
			}
			indexSums = append(indexSums, history.FromReport(iw.Report(cfg), shard, hll))
		}
	}
	d.summaries = append(d.summaries, indexSums...)
	return d
}

// TestHistoryOnDynamoDBLocal stores shard-window summaries in a history
// table on DynamoDB Local, as the Lambda does, adds a redelivered window and
// corrupt and foreign items, and merges them with `hotkeys history`: the
// table-wide figures of every step must bracket the truth of the same
// records.
func TestHistoryOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	ctx := context.Background()
	// Late in a UTC day, so that the steps span two days (two partitions).
	start := time.Date(2026, 11, 22, 23, 58, 0, 0, time.UTC)
	day := newStoredDay(t, 3, 4, start)
	const retention = 30 * 24 * time.Hour
	stored, err := store.New(ddb, table, store.Options{Retention: retention})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range day.summaries {
		if err := stored.Put(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// A redelivered final invoke writes its window again: same item.
	if err := stored.Put(ctx, day.summaries[0]); err != nil {
		t.Fatal(err)
	}
	// The TTL attribute: the window's end plus the retention.
	got, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		store.AttrDay:    &types.AttributeValueMemberS{Value: fmt.Sprintf("2026-11-22#%d", store.Suffix("shardId-0", store.DefaultWriteShards))},
		store.AttrWindow: &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d#Orders#shardId-0", start.Unix())},
	}})
	if err != nil || got.Item == nil {
		t.Fatalf("get the stored window: %v, %v", err, got)
	}
	if n, _ := got.Item[store.AttrExpires].(*types.AttributeValueMemberN); n == nil || n.Value != strconv.FormatInt(start.Add(time.Minute+retention).Unix(), 10) {
		t.Errorf("expires = %v, want %d", got.Item[store.AttrExpires], start.Add(time.Minute+retention).Unix())
	}
	// Items history cannot use, each skipped with a warning.
	good, _ := stored.Item(day.summaries[0])
	if f := good[store.AttrFormat].(*types.AttributeValueMemberN).Value; f != "1" {
		t.Fatalf("the corrupt items are made from an item of format %s, want 1", f)
	}
	window := func(s string) *types.AttributeValueMemberS {
		return &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d#%s", start.Unix(), s)}
	}
	corrupt := map[string]map[string]types.AttributeValue{
		"corrupt": {store.AttrWindow: window("Orders#corrupt"), store.AttrSummary: &types.AttributeValueMemberB{Value: []byte("hk\x01garbage")}},
		"version": {store.AttrWindow: window("Orders#v4"), store.AttrFormat: &types.AttributeValueMemberN{Value: "4"}},
		// A table's summary (version 1) under an index's format, and under
		// that of a window with internal errors.
		"mismatch":  {store.AttrWindow: window("Orders#v2"), store.AttrFormat: &types.AttributeValueMemberN{Value: "2"}},
		"mismatch3": {store.AttrWindow: window("Orders#v3"), store.AttrFormat: &types.AttributeValueMemberN{Value: "3"}},
		"missing":   {store.AttrWindow: window("Orders#missing"), store.AttrSummary: nil},
		"foreign":   {store.AttrWindow: window("Orders#copied-from-elsewhere")},
		"flipped":   {store.AttrWindow: window("Orders#flipped"), store.AttrSummary: &types.AttributeValueMemberB{Value: flip(good[store.AttrSummary].(*types.AttributeValueMemberB).Value)}},
	}
	for name, change := range corrupt {
		item := map[string]types.AttributeValue{}
		for k, v := range good {
			item[k] = v
		}
		for k, v := range change {
			if v == nil {
				delete(item, k)
			} else {
				item[k] = v
			}
		}
		if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}

	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", ep)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", dynamodblocal.Region)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	// A table that is not a history table: DynamoDB refuses the Query, and
	// the error asks whether it is the one meant.
	other, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "nothistory", HashKey: "PK", NoStream: true})
	var errOther bytes.Buffer
	if code := run(ctx, []string{"history", "--table", other, "--since", "1h"}, nil, &bytes.Buffer{}, &errOther); code == exitOK ||
		!strings.Contains(errOther.String(), "ValidationException") || !strings.Contains(errOther.String(), "is "+other+" the stack's HistoryTable output") {
		t.Errorf("history of a table that is not a history table: exit %d, stderr:\n%s", code, errOther.String())
	}
	page := filepath.Join(t.TempDir(), "history.html")
	for _, step := range []time.Duration{time.Minute, 2 * time.Minute} {
		var out, errb bytes.Buffer
		code := run(ctx, []string{"history", "--table", table, "--from", start.Format(time.RFC3339), "--to", start.Add(4 * time.Minute).Format(time.RFC3339),
			"--step", step.String(), "--top", "5", "--format", "json", "--heatmap", page}, nil, &out, &errb)
		if code != exitInputError || strings.Count(errb.String(), "skipped item") != len(corrupt) {
			t.Errorf("step %s: exit %d, want 1 with %d items skipped; stderr:\n%s", step, code, len(corrupt), errb.String())
		}
		var reps, indexReps []report.Report
		for _, rep := range decodeReport(t, out.String()).Windows {
			switch rep.Index {
			case "":
				reps = append(reps, rep)
			case "GSI1":
				indexReps = append(indexReps, rep)
			default:
				t.Fatalf("a report of index %q", rep.Index)
			}
		}
		if want := int(4 * time.Minute / step); len(reps) != want || len(indexReps) != want {
			t.Fatalf("step %s: %d steps of the table and %d of GSI1, want %d of each:\n%s", step, len(reps), len(indexReps), want, out.String())
		}
		for i, rep := range indexReps {
			truth, wcu, internal := map[string]uint64{}, uint64(0), uint64(0)
			for at := rep.Start.Unix(); at < rep.End.Unix(); at += 60 {
				for k, w := range day.indexWCU[at] {
					truth[k] += w
					wcu += w
				}
				internal += day.indexInternal[at]
			}
			if rep.InternalErrors != internal {
				t.Errorf("step %s GSI1 #%d: internal errors %d, want %d", step, i, rep.InternalErrors, internal)
			}
			if rep.WCU != wcu || !rep.Start.Equal(reps[i].Start) || len(rep.Shards) != 0 {
				t.Errorf("step %s GSI1 #%d: %d WCU from %s, %d shards; want %d from %s, none (an index has no stream shards)",
					step, i, rep.WCU, rep.Start, len(rep.Shards), wcu, reps[i].Start)
			}
			for _, k := range slices.Concat(rep.TopKeys, rep.HotKeys) {
				if k.WCULower > truth[k.Key] || truth[k.Key] > k.WCUUpper {
					t.Errorf("step %s GSI1 #%d: %s [%d, %d] does not bracket %d", step, i, k.Key, k.WCULower, k.WCUUpper, truth[k.Key])
				}
			}
			if len(rep.HotKeys) == 0 || rep.HotKeys[0].Key != "OPS_LOG" {
				t.Errorf("step %s GSI1 #%d: hot keys %+v, want OPS_LOG first", step, i, rep.HotKeys)
			}
		}
		for i, rep := range reps {
			truth, records, internal := map[string]uint64{}, uint64(0), uint64(0)
			for at := rep.Start.Unix(); at < rep.End.Unix(); at += 60 {
				for k, w := range day.wcu[at] {
					truth[k] += w
				}
				records += day.records[at]
				internal += day.internal[at]
			}
			if rep.InternalErrors != internal {
				t.Errorf("step %s #%d: internal errors %d, want %d (the windows' sum)", step, i, rep.InternalErrors, internal)
			}
			var wcu uint64
			for _, w := range truth {
				wcu += w
			}
			if rep.WCU != wcu || rep.Records != records {
				t.Errorf("step %s #%d: %d WCU, %d records; truth %d, %d (a redelivered window counted twice?)", step, i, rep.WCU, rep.Records, wcu, records)
			}
			if d := float64(rep.DistinctKeys) / float64(len(truth)); d < 0.97 || d > 1.03 {
				t.Errorf("step %s #%d: distinct keys %d, truth %d", step, i, rep.DistinctKeys, len(truth))
			}
			listed := map[string]bool{}
			for _, k := range slices.Concat(rep.TopKeys, rep.HotKeys) {
				listed[k.Key] = true
				if k.WCULower > truth[k.Key] || truth[k.Key] > k.WCUUpper {
					t.Errorf("step %s #%d: %s [%d, %d] does not bracket %d", step, i, k.Key, k.WCULower, k.WCUUpper, truth[k.Key])
				}
			}
			for k, w := range truth {
				if !listed[k] && w > rep.OtherKeysWCUUpper {
					t.Errorf("step %s #%d: unlisted %s wrote %d, over other_keys_wcu_upper %d", step, i, k, w, rep.OtherKeysWCUUpper)
				}
			}
			var shards []string
			for _, s := range rep.Shards {
				shards = append(shards, s.Shard)
			}
			if slices.Sort(shards); !slices.Equal(shards, []string{"shardId-0", "shardId-1", "shardId-2"}) {
				t.Errorf("step %s #%d: merged shards %v", step, i, shards)
			}
			hot := slices.IndexFunc(rep.HotKeys, func(k report.KeyReport) bool { return k.Key == "HOT" })
			if hotMinute := rep.Start.Unix() <= start.Add(time.Minute).Unix(); hotMinute != (hot >= 0) {
				t.Errorf("step %s #%d: HOT flagged %v, want %v: hot keys %+v", step, i, hot >= 0, hotMinute, rep.HotKeys)
			}
			if step == time.Minute && i < 2 && rep.Shards[0].Shard != fmt.Sprintf("shardId-%d", i) {
				t.Errorf("minute %d: busiest shard %s, want shardId-%d, where HOT was", i, rep.Shards[0].Shard, i)
			}
		}
		html, err := os.ReadFile(page)
		if err != nil || !bytes.Contains(html, []byte(">HOT</text>")) || !bytes.Contains(html, []byte(">OPS_LOG</text>")) || !bytes.Contains(html, []byte("index GSI1")) {
			t.Errorf("step %s: --heatmap: %v; want a HOT row and a map of index GSI1 with an OPS_LOG row", step, err)
		}
	}
}

func flip(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)/2] ^= 0x40
	return b
}

func TestHistoryUsage(t *testing.T) {
	for _, args := range [][]string{
		{"history"},
		{"history", "--table", "h", "--since", "1h", "--from", "2026-11-22T10:00:00Z"},
		{"history", "--table", "h", "--from", "yesterday"},
		{"history", "--table", "h", "--from", "2026-11-22T10:00:00Z", "--to", "2026-11-22T09:00:00Z"},
		{"history", "--table", "h", "--step", "1500ms"},
		{"history", "--table", "h", "--format", "xml"},
		{"history", "--table", "h", "--memory", "-1"},
	} {
		code, _, errs := hotkeys(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, "hotkeys:") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestSoftMemoryLimit: --memory sets the runtime's soft limit while history
// reads, and the one before comes back after; GOMEMLIMIT, when set, wins.
func TestSoftMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := softMemoryLimit(100)
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("limit %d while reading, want %d", got, 100<<20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after, want %d as before", got, before)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	softMemoryLimit(100)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d with GOMEMLIMIT set, want %d untouched", got, before)
	}
}

// TestTableShowsInternalErrors: a stored window that lost records to a bug
// in hotkeys says so in the table output, beside malformed and late; one
// without says nothing of it.
func TestTableShowsInternalErrors(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rep := report.Report{Window: report.Window{Table: "Orders", Start: start, End: start.Add(time.Minute)}, Totals: report.Totals{Records: 100, WCU: 120, Malformed: 2, Late: 1, InternalErrors: 1234}}
	clean := rep
	clean.InternalErrors = 0
	for _, c := range []struct {
		rep  report.Report
		want []string
	}{
		{rep, []string{"malformed 2   late 1\ninternal errors 1,234\n", "! hotkeys skipped 1,234 record(s) for a bug of its own"}},
		{clean, []string{"malformed 2   late 1\n"}},
	} {
		var out bytes.Buffer
		w := newStreamWriter(testOutput("table"), &out)
		if err := w.Write([]report.Report{c.rep}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(nil); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("internal errors %d: output lacks %q:\n%s", c.rep.InternalErrors, want, out.String())
			}
		}
		if c.rep.InternalErrors == 0 && strings.Contains(out.String(), "internal error") {
			t.Errorf("a window without internal errors mentions them:\n%s", out.String())
		}
	}
}
