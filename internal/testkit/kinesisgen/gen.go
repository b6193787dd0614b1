package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
)

// The Kinesis samples, each made from DynamoDB stream samples of events/ as
// Kinesis Data Streams for DynamoDB would deliver the same writes to Lambda:
// one Kinesis shard (a Lambda batch holds one shard's records), microsecond
// timestamps (the default precision), each shard's records shuffled and a few
// delivered twice.
const (
	streamARN = "arn:aws:kinesis:us-east-1:123456789012:stream/Orders-changes"
	region    = "us-east-1"
	outDir    = "kinesis" // under events/: see docs/events.md
)

var (
	windowStart = time.Date(2026, 11, 22, 1, 1, 0, 0, time.UTC) // the tumbling samples' window
	windowEnd   = windowStart.Add(time.Minute)
)

// generate makes the samples from the stream samples in eventsDir and
// returns them by file name under eventsDir.
func generate(eventsDir string) (map[string][]byte, error) {
	out := map[string][]byte{}

	// kinesis-batch.json: plain-batch.json's 100 writes, 3 of them twice.
	batch, err := changesOf(eventsDir, "plain-batch.json")
	if err != nil {
		return nil, err
	}
	shards, err := kinesisbridge.Spread(batch, kinesisbridge.Options{Shards: 1, Duplicates: 3, Shuffle: true, Seed: 1})
	if err != nil {
		return nil, err
	}
	out[filepath.Join(outDir, "kinesis-batch.json")] = lines(kinesisbridge.AppendEvent(nil, shards[0], kinesisbridge.ShardID(0), streamARN, region))

	// kinesis-tumbling-window-1, -2 and -final.json: the 300 writes of
	// tumbling-window-1, -2 and -final.json, 4 of them twice, shuffled over
	// the whole window, in three batches of 120, 120 and the rest, all
	// arrived within the window (Lambda windows Kinesis records by arrival).
	var window []kinesisbridge.Change
	for _, f := range []string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"} {
		c, err := changesOf(eventsDir, f)
		if err != nil {
			return nil, err
		}
		window = append(window, c...)
	}
	shards, err = kinesisbridge.Spread(window, kinesisbridge.Options{Shards: 1, Duplicates: 4, Shuffle: true, Seed: 2, ArriveBefore: windowEnd})
	if err != nil {
		return nil, err
	}
	recs := shards[0]
	for i, part := range []struct {
		name       string
		start, end int
	}{{"1", 0, 120}, {"2", 120, 240}, {"final", 240, len(recs)}} {
		w := kinesisbridge.Window{Start: windowStart, End: windowEnd, Final: i == 2}
		ev := kinesisbridge.AppendWindowEvent(nil, recs[part.start:part.end], kinesisbridge.ShardID(0), streamARN, region, w)
		out[filepath.Join(outDir, "kinesis-tumbling-window-"+part.name+".json")] = lines(ev)
	}
	return out, nil
}

func changesOf(eventsDir, file string) ([]kinesisbridge.Change, error) {
	raw, err := os.ReadFile(filepath.Join(eventsDir, file))
	if err != nil {
		return nil, err
	}
	c, err := kinesisbridge.FromStreamEvent(raw, kinesisbridge.Microsecond)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// lines puts each record of an event on a line of its own, as the stream
// samples are, for readable diffs. The separators cannot occur inside the
// records' strings: data is base64, partition keys hex digits.
func lines(ev []byte) []byte {
	ev = bytes.Replace(ev, []byte(`{"Records":[`), []byte("{\"Records\":[\n"), 1)
	ev = bytes.ReplaceAll(ev, []byte(`},{"kinesis":`), []byte("},\n{\"kinesis\":"))
	if i := bytes.LastIndex(ev, []byte(`}]`)); i >= 0 {
		ev = append(ev[:i+1:i+1], append([]byte("\n]"), ev[i+2:]...)...)
	}
	return append(ev, '\n')
}
