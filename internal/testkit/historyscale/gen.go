package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	return summarize(table, shard, start, func(add func(key []byte, wcu uint64, at time.Duration)) {
		zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, uint64(i))), 1.1, 1, 50_000)
		key := make([]byte, 0, 64)
		for n := range records {
			k := zipf.Uint64()
			add(fmt.Appendf(key[:0], "USER#%04d-%06d", i, k), 1+k%3, time.Duration(n)*time.Minute/time.Duration(records))
		}
		if i%100 == 7 {
			// A hot key: 300 WCU/s all minute.
			for sec := range 60 {
				add(fmt.Appendf(nil, "TENANT#%04d", i), 300, time.Duration(sec)*time.Second)
			}
		}
	})
}

// heavyWindow returns the summary of one shard's minute of the heavy
// workload (issue 35): 45-byte keys from a 100,000-key space of the
// shard's own, 1–5 WCU a write, and on two shards in five a key of its
// own written at 300 WCU/s all minute, which the detector flags: some 400
// flagged keys a minute at 1,000 shards. Every minute's keys differ
// (rename).
func heavyWindow(table, shard string, i int, start time.Time, records int, seed uint64) (*history.Summary, error) {
	return summarize(table, shard, start, func(add func(key []byte, wcu uint64, at time.Duration)) {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		zipf := rand.NewZipf(rng, 1.1, 1, 100_000-1)
		key := make([]byte, 0, heavyKeyLen)
		for n := range records {
			k := zipf.Uint64()
			add(fmt.Appendf(key[:0], "ITEM#%04d#%06d#%s", i, k, padding[:heavyKeyLen-17]), 1+rng.Uint64N(5), time.Duration(n)*time.Minute/time.Duration(records))
		}
		if i%5 < 2 {
			key = fmt.Appendf(key[:0], "TENANT#%04d#%s", i, padding[:heavyKeyLen-12])
			for n := range 60 * 60 { // 60 writes of 5 WCU a second
				add(key, 5, time.Duration(n)*time.Second/60)
			}
		}
	})
}

// summarize returns the summary of a shard's minute starting at start,
// made the Lambda's way from the writes fill adds (key, WCU, time from
// start).
func summarize(table, shard string, start time.Time, fill func(add func(key []byte, wcu uint64, at time.Duration))) (*history.Summary, error) {
	cfg := detector.DefaultConfig()
	w, err := detector.NewWindow(cfg.Sketch, table, start, start.Add(time.Minute))
	if err != nil {
		return nil, err
	}
	r := record.Record{Table: table, Shard: shard, WCUExact: true}
	fill(func(key []byte, wcu uint64, at time.Duration) {
		r.Time, r.PartitionKey, r.WCU = start.Add(at), ddb.Key{Type: ddb.String, Value: key}, wcu
		w.Add(&r)
	})
	hll, err := w.AppendDistinct(nil)
	if err != nil {
		return nil, err
	}
	return history.FromReport(w.Report(cfg), shard, hll), nil
}

// heavyKeyLen is the length of the heavy workload's keys, the last 16
// bytes of which rename sets.
const heavyKeyLen = 45

var padding = "................................................"

// rename returns a copy of s whose keys of heavyKeyLen bytes (the heavy
// workload's) end in minute and hour tags instead (each 8 hex digits), so
// that every minute's keys, and every hour's, differ: rename of a
// shard's window or a window rollup sets minute; of an hour rollup,
// whose keys carry their minute already, hour.
func rename(s *history.Summary, tag uint32, hour bool) *history.Summary {
	c := *s
	c.Keys = slices.Clone(s.Keys)
	at := heavyKeyLen - 8
	if hour {
		at = heavyKeyLen - 16
	}
	for i, k := range c.Keys {
		if len(k.Key) == heavyKeyLen && len(k.Shards) == 0 {
			c.Keys[i].Key = fmt.Sprintf("%s%08x%s", k.Key[:at], tag, k.Key[at+8:])
		}
	}
	return &c
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
