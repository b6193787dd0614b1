package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The sample events in events/ are generated from the designs below, so
// that their expected outcome is known by construction: every record's item
// is padded to a chosen size, hence a chosen WCU, and every hot key gets a
// chosen number of writes in a chosen second. `go test ./lambda -run
// TestEventFilesUpToDate -update` rewrites them; without -update the test
// fails when a file and its design drift apart.

var update = flag.Bool("update", false, "rewrite events/*.json from their designs in samples_test.go")

const (
	eventsDir   = "../events"
	account     = "123456789012"
	streamLabel = "2026-11-22T00:00:00.000"
)

// t0 is the start of the samples' first 60 s window. The Runtime API test
// moves every sample to the recent past before posting it, because
// CloudWatch accepts datapoints only from two weeks back to two hours ahead.
var t0 = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)

const windowLength = 60 * time.Second

func streamARN(table string) string {
	return "arn:aws:dynamodb:us-east-1:" + account + ":table/" + table + "/stream/" + streamLabel
}

// shape is how Lambda delivers a sample.
type shape int

const (
	plainBatch    shape = iota // events.DynamoDBEvent
	tumblingBatch              // events.DynamoDBTimeWindowEvent, not final
	tumblingFinal              // events.DynamoDBTimeWindowEvent, isFinalInvokeForWindow
)

func (s shape) String() string {
	return [...]string{"plain DynamoDBEvent", "tumbling window, not final", "tumbling window, final"}[s]
}

// wantKey is a flagged key as designed.
type wantKey struct {
	Key      string
	Severity string
	Pattern  string
	WCU      uint64
	Peak     float64
	// Logical marks a write-sharded key judged as one (BASE#<shard>): the
	// oracle has no such key; its WCU is the sum of its shards', its peak
	// its hottest shard's (the partition cap applies to each shard).
	Logical bool
}

// expect is a sample's designed outcome for its window.
type expect struct {
	Records, WCU, TTLDeletes, Malformed uint64
	LowerBound                          bool
	Hot                                 []wantKey
}

// sample is the design of one file in events/.
type sample struct {
	File, Doc string
	Table     string
	PKName    string            // the partition-key attribute
	SKName    string            // the sort-key attribute; "" for a hash-only table
	Env       map[string]string // HOTKEYS_ variables the sample needs
	Shape     shape
	Window    time.Time // start of its window
	Shard     string
	View      string // StreamViewType
	// Published says whether invoking it alone publishes the window:
	// a final tumbling invoke, or a plain batch of records older than two
	// windows, which the warm container closes at once.
	Published bool
	// NeedsDynamoDBLocal: the partition key is found with DescribeTable.
	NeedsDynamoDBLocal bool
	Want               expect
	// records builds the whole window; part picks this file's records
	// from it (the tumbling sequence splits one window into three files).
	records func(g *gen)
	part    [2]int // [from, to) indexes; zero means all
}

var pkEnv = map[string]string{"HOTKEYS_PARTITION_KEY": "PK"}

// samples is every file in events/, with its design.
var samples = []*sample{
	{
		File: "hot-key-ops-log.json", Doc: "one key, OPS_LOG, takes 46 % of the writes and peaks at 120 WCU/s",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: tumblingFinal, Window: t0,
		Shard: "shardId-00000001795305600000-4f2a9c1b", Published: true,
		Want: expect{Records: 340, WCU: 350, Hot: []wantKey{{Key: "OPS_LOG", Severity: "warning", Pattern: "single_key", WCU: 160, Peak: 120}}},
		records: func(g *gen) {
			for i := range 120 {
				g.insert(5, "OPS_LOG", g.logSK(5, i), 1)
			}
			for i, sec := range spread(40, 0, 59, 5) {
				g.insert(sec, "OPS_LOG", g.logSK(sec, 1000+i), 1)
			}
			g.customerTail(160, 10, 10, 120, 0, 59, 5)
		},
	},
	{
		File: "low-cardinality-status.json", Doc: "STATUS#ACTIVE, an enumerated value used as a key, peaks at 110 WCU/s; STATUS#PENDING (9 %) stays below the threshold",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: plainBatch, Window: t0, Published: true,
		Want: expect{Records: 270, WCU: 270, Hot: []wantKey{{Key: "STATUS#ACTIVE", Severity: "warning", Pattern: "low_cardinality", WCU: 130, Peak: 110}}},
		records: func(g *gen) {
			for range 110 {
				g.insert(12, "STATUS#ACTIVE", g.orderSK(), 1)
			}
			for _, sec := range spread(20, 0, 59, 12) {
				g.modify(sec, "STATUS#ACTIVE", g.orderSK(), 1, 1)
			}
			for _, sec := range spread(25, 0, 59, 12) {
				g.insert(sec, "STATUS#PENDING", g.orderSK(), 1)
			}
			for _, sec := range spread(15, 0, 59, 12) {
				g.insert(sec, "STATUS#SHIPPED", g.orderSK(), 1)
			}
			g.customerTail(100, 0, 0, 100, 0, 59, 12)
		},
	},
	{
		File: "time-bucket.json", Doc: "DATE#2026-11-22, today's bucket, takes half the writes and peaks at 105 WCU/s",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: tumblingFinal, Window: t0,
		Shard: "shardId-00000001795305600000-7d3e0a55", Published: true,
		Want: expect{Records: 300, WCU: 300, Hot: []wantKey{{Key: "DATE#2026-11-22", Severity: "warning", Pattern: "time_bucket", WCU: 150, Peak: 105}}},
		records: func(g *gen) {
			for range 105 {
				g.insert(30, "DATE#2026-11-22", g.eventSK(), 1)
			}
			for _, sec := range spread(45, 0, 59, 30) {
				g.insert(sec, "DATE#2026-11-22", g.eventSK(), 1)
			}
			g.customerTail(150, 0, 0, 150, 0, 59, 30)
		},
	},
	{
		File: "uneven-shards.json", Doc: "ORDERS#SHARD_0..7: shard 0 carries 130 WCU (110 in one second), the other seven 15 each",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: tumblingFinal, Window: t0,
		Shard: "shardId-00000001795305600000-c81b6e02", Published: true,
		Want: expect{Records: 335, WCU: 335, Hot: []wantKey{
			{Key: "ORDERS#<shard>", Severity: "warning", Pattern: "sharded_uneven", WCU: 235, Peak: 110, Logical: true},
			{Key: "ORDERS#SHARD_0", Severity: "warning", Pattern: "sharded_uneven", WCU: 130, Peak: 110},
		}},
		records: func(g *gen) {
			for range 110 {
				g.insert(20, "ORDERS#SHARD_0", g.orderSK(), 1)
			}
			for _, sec := range spread(20, 0, 59, 20) {
				g.insert(sec, "ORDERS#SHARD_0", g.orderSK(), 1)
			}
			for s := 1; s <= 7; s++ {
				for _, sec := range spread(15, 0, 59, 20) {
					g.insert(sec, "ORDERS#SHARD_"+strconv.Itoa(s), g.orderSK(), 1)
				}
			}
			g.customerTail(100, 0, 0, 100, 0, 59, 20)
		},
	},
	{
		File: "ttl-delete-storm.json", Doc: "250 TTL deletes of expired OPS_LOG entries in one second: free, counted apart, nothing flagged",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: plainBatch, Window: t0, Published: true,
		Want: expect{Records: 270, WCU: 20, TTLDeletes: 250},
		records: func(g *gen) {
			for i := range 250 {
				g.ttlRemove(40, "OPS_LOG", g.logSK(40-86400, i))
			}
			g.customerTail(20, 0, 0, 20, 0, 59, 40)
		},
	},
	tumblingPart("tumbling-window-1.json", "first batch of a window (records 0-19 s); its summary goes out in state", tumblingBatch, 0, 120,
		expect{Records: 120, WCU: 120}),
	tumblingPart("tumbling-window-2.json", "second batch (19-39 s): the hot second, 19 s, is split between batches 1 and 2", tumblingBatch, 120, 240,
		expect{Records: 120, WCU: 120}),
	tumblingPart("tumbling-window-final.json", "final invoke (40-59 s); alone it flags nothing, after -1 and -2 it flags TENANT#acme", tumblingFinal, 240, 300,
		expect{Records: 60, WCU: 60}),
	{
		File: "keys-only.json", Doc: "a KEYS_ONLY stream: every write counts at least 1 WCU, and every figure is a lower bound",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: tumblingFinal, Window: t0, View: "KEYS_ONLY",
		Shard: "shardId-00000001795305600000-0b9f4d21", Published: true,
		Want: expect{Records: 180, WCU: 180, LowerBound: true, Hot: []wantKey{{Key: "OPS_LOG", Severity: "warning", Pattern: "single_key", WCU: 120, Peak: 120}}},
		records: func(g *gen) {
			for i := range 120 {
				g.insert(8, "OPS_LOG", g.logSK(8, i), 1)
			}
			g.customerTail(40, 10, 10, 40, 0, 59, 8)
		},
	},
	{
		File: "malformed-record.json", Doc: "one record with an unknown attribute type among 24 good ones: skipped and counted, the batch succeeds",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: tumblingFinal, Window: t0,
		Shard: "shardId-00000001795305600000-5e6a7b8c", Published: true,
		Want: expect{Records: 24, WCU: 28, Malformed: 1},
		records: func(g *gen) {
			g.customerTail(20, 3, 0, 20, 0, 59, -1)
			g.insert(33, "CUSTOMER#"+g.uuid(), g.orderSK(), 2)
			g.malformed(31, "CUSTOMER#"+g.uuid(), g.orderSK())
		},
	},
	{
		File: "plain-batch.json", Doc: "an ordinary batch: inserts, updates and deletes of 1-4 WCU over 40 customers, with every attribute type; nothing flagged",
		Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: plainBatch, Window: t0, Published: true,
		Want: expect{Records: 100, WCU: 160},
		records: func(g *gen) {
			g.fractional = true
			g.rich = true
			customers := make([]string, 40)
			for i := range customers {
				customers[i] = "CUSTOMER#" + g.uuid()
			}
			secs := spread(100, 0, 59, -1)
			n := 0
			next := func() (int, string) { n++; return secs[n-1], customers[(n*7)%len(customers)] }
			for _, w := range classes(30, 12, 5, 3) { // inserts: 81 WCU
				sec, c := next()
				g.insert(sec, c, g.orderSK(), w)
			}
			for _, ow := range [][3]int{{20, 1, 1}, {8, 1, 2}, {5, 3, 2}, {2, 2, 4}} { // updates: 59 WCU
				for range ow[0] {
					sec, c := next()
					g.modify(sec, c, g.orderSK(), ow[1], ow[2])
				}
			}
			for _, w := range classes(10, 5) { // deletes: 20 WCU
				sec, c := next()
				g.remove(sec, c, g.orderSK(), w)
			}
		},
	},
	{
		File: "global-counter.json", Doc: "a hash-only table (Keys has one attribute, so no partition-key setting is needed): one counter item rewritten 115 times in a second",
		Table: "Counters", PKName: "counterId", Shape: plainBatch, Window: t0, Published: true,
		Want: expect{Records: 200, WCU: 200, Hot: []wantKey{{Key: "GLOBAL#page-views", Severity: "warning", Pattern: "single_item", WCU: 150, Peak: 115}}},
		records: func(g *gen) {
			for range 115 {
				g.counter(50, "GLOBAL#page-views")
			}
			for _, sec := range spread(35, 0, 59, 50) {
				g.counter(sec, "GLOBAL#page-views")
			}
			pages := []string{"/", "/cart", "/checkout", "/search", "/account", "/orders", "/help", "/deals", "/gift-cards", "/stores"}
			for i, sec := range spread(50, 0, 59, 50) {
				g.counter(sec, "PAGE#"+pages[i%len(pages)])
			}
		},
	},
	{
		File: "describe-table-lookup.json", Doc: "a table with a sort key and no HOTKEYS_PARTITION_KEY: the function asks DescribeTable which key attribute is the partition key",
		Table: "CustomerOrders", PKName: "customerId", SKName: "createdAt", Shape: tumblingFinal, Window: t0,
		Shard: "shardId-00000001795305600000-9a8b7c6d", Published: true, NeedsDynamoDBLocal: true,
		Want: expect{Records: 200, WCU: 200, Hot: []wantKey{{Key: "CUSTOMER#0042", Severity: "warning", Pattern: "single_key", WCU: 120, Peak: 110}}},
		records: func(g *gen) {
			for range 110 {
				g.insert(3, "CUSTOMER#0042", g.createdSK(3), 1)
			}
			for _, sec := range spread(10, 0, 59, 3) {
				g.insert(sec, "CUSTOMER#0042", g.createdSK(sec), 1)
			}
			for i, sec := range spread(80, 0, 59, 3) {
				g.insert(sec, fmt.Sprintf("CUSTOMER#%04d", 100+i), g.createdSK(sec), 1)
			}
		},
	},
}

// tumblingSequence is one 60 s window split over three invocations, as the
// event source mapping delivers it. TENANT#acme writes 60 WCU at the very
// end of batch 1 and 60 more in the same second at the start of batch 2:
// only a summary carried whole through state sees its 120 WCU/s peak.
var tumblingSequence = expect{Records: 300, WCU: 300, Hot: []wantKey{{Key: "TENANT#acme", Severity: "warning", Pattern: "single_key", WCU: 180, Peak: 120}}}

func tumblingRecords(g *gen) {
	for _, sec := range spread(20, 0, 18, -1) {
		g.insert(sec, "TENANT#acme", g.orderSK(), 1)
	}
	for range 120 {
		g.insert(19, "TENANT#acme", g.orderSK(), 1)
	}
	for _, sec := range spread(20, 20, 39, -1) {
		g.insert(sec, "TENANT#acme", g.orderSK(), 1)
	}
	for _, sec := range spread(20, 40, 59, -1) {
		g.insert(sec, "TENANT#acme", g.orderSK(), 1)
	}
	for _, r := range [][2]int{{0, 18}, {20, 39}, {40, 59}} {
		g.customerTail(40, 0, 0, 40, r[0], r[1], -1)
	}
}

func tumblingPart(file, doc string, sh shape, from, to int, want expect) *sample {
	return &sample{
		File: file, Doc: doc, Table: "Orders", PKName: "PK", SKName: "SK", Env: pkEnv, Shape: sh,
		Window: t0.Add(windowLength), Shard: "shardId-00000001795305600000-2c4e6a8f", Published: sh == tumblingFinal,
		Want: want, records: tumblingRecords, part: [2]int{from, to},
	}
}

func sampleByFile(file string) *sample {
	for _, s := range samples {
		if s.File == file {
			return s
		}
	}
	panic("no sample " + file)
}

// TestEventFilesUpToDate checks that events/ holds exactly what the designs
// generate (or rewrites it with -update), and that every file is within
// the sizes docs/events.md gives for samples.
func TestEventFilesUpToDate(t *testing.T) {
	for _, s := range samples {
		want := s.render()
		path := filepath.Join(eventsDir, s.File)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./lambda -run TestEventFilesUpToDate -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its design: run go test ./lambda -run TestEventFilesUpToDate -update", path)
		}
		if len(got) > 400<<10 {
			t.Errorf("%s is %d KB: keep samples under 400 KB", path, len(got)>>10)
		}
	}
	// No stray files: every events/*.json has a design and an expectation.
	files, _ := filepath.Glob(filepath.Join(eventsDir, "*.json"))
	for _, f := range files {
		found := false
		for _, s := range samples {
			found = found || s.File == filepath.Base(f)
		}
		if !found {
			t.Errorf("%s has no design in samples_test.go, hence no checked outcome", f)
		}
	}
}
