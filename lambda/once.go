package main

import (
	"encoding/binary"
	"strconv"

	"github.com/zeebo/xxh3"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Nothing published twice. Lambda delivers a batch at least once: again
// after a failed or timed-out invocation, and now and then for no reason
// the function can see. A redelivered batch comes with the state its
// first delivery was given, so the state cannot say what that delivery
// did. The records are not counted twice (sequence numbers, event ids);
// what was published from them must not be either, because CloudWatch
// sums duplicate datapoints and SNS sends every message it takes:
//
//   - The container remembers what it did (done, a recentIDs of the last
//     doneMemory things): the final batches whose window it published, the
//     windows it stored in history, the onsets it announced. A batch
//     delivered again to the same warm container publishes nothing twice,
//     whatever the dependencies did the first time.
//   - In the history table, a final batch's window is stored with the
//     batch's identity, once (store.Table.PutOnce), before its metrics are
//     published: another container that gets the same final batch again
//     finds it stored by that batch, and publishes nothing.
//
// What remains possible is in docs/lambda.md ("Nothing twice").

// doneMemory is how many things a container remembers having done: at
// one final batch and a few onsets a window per shard, hours of a
// container's shards.
const doneMemory = 1 << 14

// The kinds of things a container remembers having done.
const (
	donePublished = "published" // a final batch's window reports, published
	doneStored    = "stored"    // one window of a final batch, stored in history
	doneAnnounced = "announced" // an onset, announced
)

// idOf hashes parts, each length-prefixed, into one identity.
func idOf(parts ...string) uint64 {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return xxh3.Hash(b)
}

// publishedID is the identity of a final batch's publication.
func publishedID(batch uint64) uint64 {
	return idOf(donePublished, strconv.FormatUint(batch, 16))
}

// storedID is the identity of the i-th window of a final batch, stored.
func storedID(batch uint64, i int) uint64 {
	return idOf(doneStored, strconv.FormatUint(batch, 16), strconv.Itoa(i))
}

// announcedID is the identity of an onset on a stream shard ("" for a
// plain batch's): a window announces a key once, so the key and its window
// name it.
func announcedID(shard string, o *report.Onset) uint64 {
	return idOf(doneAnnounced, shard, o.Table, o.Index, strconv.FormatInt(o.Start.UnixNano(), 10), o.Key.Type, o.Key.Key)
}
