// Command historyscale serves a history table at the scale of a table with
// a thousand stream shards, as DynamoDB serves it (its JSON 1.0 protocol,
// Query pages of 1 MB), for the scale measurement of `hotkeys history` in
// docs/history.md: the items are those the Lambda and the rollup job
// store (store.Table's Item and RollupItem), of summaries made
// through the detector, held in memory and paged on demand. It answers
// Query and nothing else.
//
//	go run ./internal/testkit/historyscale -shards 1000
//
// prints the endpoint to give `hotkeys history` as AWS_ENDPOINT_URL_DYNAMODB,
// and the span it holds, then serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	var cfg config
	var end, addr string
	flag.StringVar(&cfg.table, "table", "bench-history", "the history table's name")
	flag.IntVar(&cfg.shards, "shards", 1000, "stream shards")
	flag.IntVar(&cfg.records, "records", 60000, "records per shard and minute (60,000: 1,000 writes/s per shard)")
	flag.IntVar(&cfg.days, "days", 30, "days of hour rollups")
	flag.IntVar(&cfg.shardHours, "shard-hours", 1, "hours of the shards' windows, up to the end")
	flag.IntVar(&cfg.writeShards, "write-shards", 64, "write shards of the shards' windows")
	flag.IntVar(&cfg.shapes, "shapes", 2, "distinct workloads, in turn minute by minute")
	flag.BoolVar(&cfg.heavy, "heavy", false, "issue 35's workload: some 400 flagged keys a minute, every minute's keys different, 45-byte keys, 1–5 WCU a write (give -records 6000)")
	flag.BoolVar(&cfg.legacy, "legacy", false, "store the shards' windows as builds before write sharding did (one partition key value a day), which every build reads")
	flag.StringVar(&end, "end", "2026-11-23T00:00:00Z", "the end of the span held (RFC 3339, on a minute)")
	flag.StringVar(&addr, "addr", "127.0.0.1:0", "address to serve on")
	flag.Parse()
	var err error
	if cfg.end, err = time.Parse(time.RFC3339, end); err != nil || cfg.end.Truncate(time.Minute) != cfg.end {
		log.Fatalf("-end %q: want RFC 3339 on a minute", end)
	}
	started := time.Now()
	st, err := build(cfg, func(s string) {
		fmt.Fprintf(os.Stderr, "historyscale: %s (%s)\n", s, time.Since(started).Round(time.Millisecond))
	})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("AWS_ENDPOINT_URL_DYNAMODB=http://%s table=%s end=%s\n", ln.Addr(), cfg.table, cfg.end.Format(time.RFC3339))
	log.Fatal(http.Serve(ln, &server{table: cfg.table, st: st}))
}
