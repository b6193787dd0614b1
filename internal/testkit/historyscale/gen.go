package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/record"
)

// A workload of the shape the scale measurement assumes: a table written
// at about recordsPerMinute × shards per minute, each stream shard
// holding keys of its own (a shard is roughly a partition) drawn from a
// Zipf distribution, and one shard in a hundred with a key hot enough to
// be flagged. The summaries are made the way the Lambda makes them
// (detector.Window → Report → history.FromReport).

// shardIDs returns n stream shard ids shaped as DynamoDB Streams names them.
func shardIDs(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("shardId-%020d-%08x", 1795305600000+rng.Int64N(1e9), rng.Uint32())
	}
	return ids
}

// shardWindow returns the summary of one shard's minute starting at start.
func shardWindow(table, shard string, i int, start time.Time, records int, seed uint64) (*history.Summary, error) {
	cfg := detector.DefaultConfig()
	w, err := detector.NewWindow(cfg.Sketch, table, start, start.Add(time.Minute))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	zipf := rand.NewZipf(rng, 1.1, 1, 50_000)
	r := record.Record{Table: table, Shard: shard, WCUExact: true}
	key := make([]byte, 0, 64)
	for n := range records {
		k := zipf.Uint64()
		key = fmt.Appendf(key[:0], "USER#%04d-%06d", i, k)
		r.Time = start.Add(time.Duration(n) * time.Minute / time.Duration(records))
		r.PartitionKey = ddb.Key{Type: ddb.String, Value: key}
		r.WCU = 1 + k%3
		w.Add(&r)
	}
	if i%100 == 7 {
		// A hot key: 300 WCU/s all minute.
		for sec := range 60 {
			r.Time = start.Add(time.Duration(sec) * time.Second)
			r.PartitionKey = ddb.Key{Type: ddb.String, Value: fmt.Appendf(nil, "TENANT#%04d", i)}
			r.WCU = 300
			w.Add(&r)
		}
	}
	hll, err := w.AppendDistinct(nil)
	if err != nil {
		return nil, err
	}
	return history.FromReport(w.Report(cfg), shard, hll), nil
}

// restamp returns a copy of s moved to start, its length kept.
func restamp(s *history.Summary, start time.Time) *history.Summary {
	c := *s
	c.Start, c.End = start, start.Add(s.End.Sub(s.Start))
	return &c
}

// rollupOf merges summaries (of one window or hour) into the rollup the
// rollup job stores.
func rollupOf(table string, step time.Duration, sums []*history.Summary) (*history.Summary, error) {
	m, err := history.NewMerger(table, "", step, 0)
	if err != nil {
		return nil, err
	}
	for _, s := range sums {
		if err := m.Add(s); err != nil {
			return nil, err
		}
	}
	out := m.Flush(sums[0].Start.Add(step))
	if len(out) != 1 {
		return nil, fmt.Errorf("%d rollups of one step", len(out))
	}
	out[0].Compact(history.RollupKeys, history.RollupShards)
	return out[0], nil
}
