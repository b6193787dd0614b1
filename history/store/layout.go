package store

import (
	"fmt"
	"strconv"
	"time"

	"github.com/zeebo/xxh3"
)

// How the items are keyed. Every item's partition key ("day") starts with
// its window's UTC date; what follows says which kind of item it is:
//
//	2026-11-22       a shard's window stored by a build before write sharding
//	2026-11-22#17    a shard's window, write shard 17 (Suffix of its stream shard)
//	2026-11-22#m07   rollups of the windows of 07:00–08:00, one per table (and index) and window
//	2026-11-22#h     rollups of the day's hours
//	2026-11-22#c     the rollup job's coverage: one item per hour, naming the windows rolled up
//
// The sort key ("window") starts with the window's start in Unix seconds,
// zero-padded to 12 digits, so that a Query by sort-key range reads a span
// of time in order; then, for a shard's window, "#", the table, "#", the
// stream shard and, for an index, "#" and the index; for a rollup "#", the
// table and, for an index, "#" and the index; for coverage nothing more.
// Table, index and shard names hold no "#", so no two items share a key.

// DefaultWriteShards is the number of write shards of a shard's window
// items when none is configured (HOTKEYS_HISTORY_WRITE_SHARDS, the
// template's HistoryWriteShards). At 16 shards to a write shard on
// average, 1,000 stream shards each writing a 16 KB item in the same
// second put at most about 30 items, 480 WCU, on the busiest partition key
// value, under DynamoDB's 1,000 WCU/s (TestWriteSpread replays it).
const DefaultWriteShards = 64

// MaxWriteShards bounds the write shards: readers query every one.
const MaxWriteShards = 1024

// Suffix returns the write shard, 0 to n-1, of a stream shard's items: a
// hash of the stream shard id, so that each shard writes to one partition
// key value a day and the shards spread evenly over n of them. A reader
// that queries write shards 0 to m-1 for any m ≥ n finds them.
func Suffix(shard string, n int) int {
	if n <= 1 {
		return 0
	}
	return int(xxh3.HashString(shard) % uint64(n))
}

// WriteDelay returns how long a stream shard's final invoke waits before
// storing its window, within spread: fixed by the shard id, so that the
// shards' writes, which all come at the end of a window, spread evenly
// over spread. It hashes with another seed than Suffix, so that the shards
// of one write shard spread in time too.
func WriteDelay(shard string, spread time.Duration) time.Duration {
	if spread <= 0 {
		return 0
	}
	return time.Duration(xxh3.HashStringSeed(shard, 0x5eed) % uint64(spread))
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// shardPartition is the partition key of a shard's window stored under n
// write shards.
func shardPartition(start time.Time, shard string, n int) string {
	return day(start) + "#" + strconv.Itoa(Suffix(shard, n))
}

func windowKey(start time.Time, table, shard, index string) string {
	if index != "" {
		return fmt.Sprintf("%012d#%s#%s#%s", start.Unix(), table, shard, index)
	}
	return fmt.Sprintf("%012d#%s#%s", start.Unix(), table, shard)
}

// timeKey is a sort-key bound: every item of a window starting at t sorts
// at or after it, and "#" sorts before every digit, so every item of a
// window starting before t sorts before it.
func timeKey(t time.Time) string { return fmt.Sprintf("%012d", t.Unix()) }

// Level is what a rollup covers.
type Level int

// The levels of rollup.
const (
	// Windows are rollups of one window length each (a minute with the
	// template's WindowSeconds of 60), stored per hour.
	Windows Level = iota + 1
	// Hours are rollups of one hour, stored per day.
	Hours
)

func (l Level) String() string {
	if l == Hours {
		return "hour"
	}
	return "window"
}

// rollupPartition is the partition key of the rollups of level starting at
// start.
func rollupPartition(l Level, start time.Time) string {
	if l == Hours {
		return day(start) + "#h"
	}
	return fmt.Sprintf("%s#m%02d", day(start), start.UTC().Hour())
}

func rollupKey(start time.Time, table, index string) string {
	if index != "" {
		return fmt.Sprintf("%012d#%s#%s", start.Unix(), table, index)
	}
	return fmt.Sprintf("%012d#%s", start.Unix(), table)
}

func coveragePartition(t time.Time) string { return day(t) + "#c" }

// partitionsOf returns the partition key values that hold the items of
// level (0 for shards' windows, with n write shards) for windows starting
// in [from, to), each with the sort-key range to query, in time order.
func partitionsOf(level Level, n int, from, to time.Time) []span {
	var out []span
	unit := 24 * time.Hour
	if level == Windows {
		unit = time.Hour
	}
	for t := from.UTC().Truncate(unit); t.Before(to); t = t.Add(unit) {
		lo, hi := timeKey(maxTime(from, t)), timeKey(minTime(to, t.Add(unit)))
		switch level {
		case 0:
			out = append(out, span{start: t, lo: lo, hi: hi, keys: append([]string{day(t)}, shardPartitions(t, n)...)})
		case Windows, Hours:
			out = append(out, span{start: t, lo: lo, hi: hi, keys: []string{rollupPartition(level, t)}})
		}
	}
	return out
}

// shardPartitions lists the partition keys of a day's shard windows under
// n write shards.
func shardPartitions(t time.Time, n int) []string {
	keys := make([]string, n)
	for i := range n {
		keys[i] = day(t) + "#" + strconv.Itoa(i)
	}
	return keys
}

// span is a partition (or, for shards' windows, the day's write shards and
// its old partition) and the sort-key range [lo, hi) to read of it.
type span struct {
	start  time.Time
	lo, hi string
	keys   []string
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
