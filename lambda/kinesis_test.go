package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestKinesisTumblingEqualsStream: the tumbling-window samples, delivered
// as Kinesis events
// spread round robin over 4 Kinesis shards with duplicates, shuffling
// within each shard and microsecond times, each shard's window in three
// batches whose first Lambda delivers twice (at least once), publish
// windows whose totals add up to the writes' records and WCU, and whose
// heavy keys' WCU add up to theirs, exactly (the oracle, oracle_test.go). Per-key figures are sums across
// Kinesis shards (docs/kinesis.md).
func TestKinesisTumblingEqualsStream(t *testing.T) {
	files := []string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"}
	now := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)

	var raws [][]byte
	var changes []kinesisbridge.Change
	for _, f := range files {
		raw := readSample(t, f)
		raws = append(raws, raw)
		c, err := kinesisbridge.FromStreamEvent(raw, kinesisbridge.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c...)
	}
	truth, err := analyse("PK", raws...)
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := readEnvelope(raws[0])
	if err != nil {
		t.Fatal(err)
	}

	got := &capture{}
	shards, err := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 4, Route: kinesisbridge.RoundRobin,
		Duplicates: 30, Shuffle: true, Seed: 32, ArriveBefore: ev.WindowEnd})
	if err != nil {
		t.Fatal(err)
	}
	const arn = "arn:aws:kinesis:us-east-1:123456789012:stream/orders"
	redelivered := 0
	for s, recs := range shards {
		h := tumblingHandler(t, got, &bytes.Buffer{}, now)
		state := map[string]string{}
		parts := [][]int{{0, len(recs) / 3}, {len(recs) / 3, 2 * len(recs) / 3}, {2 * len(recs) / 3, len(recs)}}
		for p, part := range parts {
			w := kinesisbridge.Window{Start: ev.WindowStart, End: ev.WindowEnd, State: state, Final: p == len(parts)-1}
			batch := kinesisbridge.AppendWindowEvent(nil, recs[part[0]:part[1]], kinesisbridge.ShardID(s), arn, "us-east-1", w)
			tries := 1
			if p == 0 {
				tries = 2 // Lambda delivers the first batch again, with the same state
				redelivered += part[1] - part[0]
			}
			for range tries {
				resp, err := h.Invoke(context.Background(), batch)
				if err != nil {
					t.Fatal(err)
				}
				if p < len(parts)-1 {
					state = tumblingResponse(t, resp)
				}
			}
		}
	}
	sum := sums(got.reps)["Orders"]
	if sum.Records != truth.Records || sum.WCU != truth.WCU || sum.Malformed != truth.Malformed || len(got.reps) < 4 {
		t.Errorf("4 shards' windows (%d) add up to %d records, %d WCU, %d malformed; the writes were %d, %d, %d",
			len(got.reps), sum.Records, sum.WCU, sum.Malformed, truth.Records, truth.WCU, truth.Malformed)
	}
	// A batch Lambda retries comes with the state from before it: its first
	// try's counts are dropped with that try's state, not counted twice.
	if sum.Duplicates != 30 || redelivered == 0 {
		t.Errorf("%d duplicates counted; 30 delivered twice by Kinesis (%d records retried by Lambda)", sum.Duplicates, redelivered)
	}
	// The heaviest keys are in every shard's top keys: their sums are exact.
	heavy := map[string]uint64{}
	for k, kt := range truth.Keys {
		if kt.WCU*10 >= truth.WCU {
			heavy[k] = kt.WCU
		}
	}
	gotHeavy := map[string]uint64{}
	for k := range heavy {
		gotHeavy[k] = sum.Keys[k]
	}
	if len(heavy) == 0 {
		t.Fatal("the samples have no key of 10 % of the WCU")
	}
	if diff := cmp.Diff(heavy, gotHeavy); diff != "" {
		t.Errorf("heavy keys' WCU summed over the shards (-writes +kinesis):\n%s", diff)
	}
}

// tableSums adds up a table's windows (the table's, not its indexes').
type tableSums struct {
	Records, WCU, Malformed, Duplicates uint64
	Keys                                map[string]uint64
}

func sums(reps []report.Report) map[string]tableSums {
	out := map[string]tableSums{}
	for _, r := range reps {
		if r.Index != "" {
			continue
		}
		s := out[r.Table]
		if s.Keys == nil {
			s.Keys = map[string]uint64{}
		}
		s.Records += r.Records
		s.WCU += r.WCU
		s.Malformed += r.Malformed
		s.Duplicates += r.Duplicates
		for _, k := range r.TopKeys {
			s.Keys[k.Key] += k.WCU
		}
		out[r.Table] = s
	}
	return out
}
