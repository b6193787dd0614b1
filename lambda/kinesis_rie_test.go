package main

import (
	"testing"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
)

// TestRIEKinesisEqualsStream is issue 32's "done when" through the built
// bootstrap under the RIE: the tumbling samples, once as DynamoDB stream
// events and once as Kinesis events over 4 shards (round robin, 30
// duplicates, shuffled, microsecond times), each a window in three
// batches, publish to CloudWatch the same table-wide StreamRecords and
// WriteCapacityUnits (summed over the shards' windows), exactly.
func TestRIEKinesisEqualsStream(t *testing.T) {
	shift := recentShift()
	files := []string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"}
	env := map[string]string{"HOTKEYS_PARTITION_KEY": "PK"}

	stream := startFunction(t, env)
	state := map[string]string{}
	var changes []kinesisbridge.Change
	for i, f := range files {
		p := shiftEvent(readSample(t, f), shift)
		resp := stream.invoke(t, withState(t, p, state))
		if i < len(files)-1 {
			state = tumblingResponse(t, resp)
		}
		c, err := kinesisbridge.FromStreamEvent(p, kinesisbridge.Microsecond)
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c...)
	}
	ev, _, err := readEnvelope(shiftEvent(readSample(t, files[0]), shift))
	if err != nil {
		t.Fatal(err)
	}
	shards, err := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 4, Route: kinesisbridge.RoundRobin,
		Duplicates: 30, Shuffle: true, Seed: 32, ArriveBefore: ev.WindowEnd})
	if err != nil {
		t.Fatal(err)
	}
	kin := startFunction(t, env)
	for s, recs := range shards {
		state := map[string]string{}
		parts := [][]int{{0, len(recs) / 3}, {len(recs) / 3, 2 * len(recs) / 3}, {2 * len(recs) / 3, len(recs)}}
		for p, part := range parts {
			w := kinesisbridge.Window{Start: ev.WindowStart, End: ev.WindowEnd, State: state, Final: p == len(parts)-1}
			resp := kin.invoke(t, kinesisbridge.AppendWindowEvent(nil, recs[part[0]:part[1]], kinesisbridge.ShardID(s),
				"arn:aws:kinesis:us-east-1:123456789012:stream/orders", "us-east-1", w))
			if p < len(parts)-1 {
				state = tumblingResponse(t, resp)
			}
		}
	}
	tableSums := func(f *function) map[string]float64 {
		out := map[string]float64{}
		for _, d := range f.cw.Data() {
			if d.Dimension(alert.DimensionPartitionKey) == "" && d.Dimension(alert.DimensionIndexName) == "" &&
				(d.MetricName == alert.MetricStreamRecords || d.MetricName == alert.MetricWriteCapacityUnits) {
				out[d.Dimension(alert.DimensionTableName)+" "+d.MetricName] += d.Value
			}
		}
		return out
	}
	want, got := tableSums(stream), tableSums(kin)
	if len(want) != 2 || want["Orders "+alert.MetricStreamRecords] == 0 {
		t.Fatalf("the stream's windows published %v", want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v through 4 Kinesis shards, %v through the stream", k, got[k], v)
		}
	}
}
