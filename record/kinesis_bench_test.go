package record

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
)

// kinesisBenchBatch is the benchmark batch's 10,000 records as Kinesis
// Data Streams for DynamoDB delivers them: each change record (times in
// microseconds) base64 in a Lambda Kinesis record, one shard's event.
func kinesisBenchBatch(b *testing.B) []byte {
	changes, err := kinesisbridge.FromStreamEvent(benchBatch(), kinesisbridge.Microsecond)
	if err != nil {
		b.Fatal(err)
	}
	shards, err := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return kinesisbridge.AppendEvent(nil, shards[0], kinesisbridge.ShardID(0), "arn:aws:kinesis:us-east-1:123456789012:stream/bench", "us-east-1")
}

// BenchmarkDecodeSource decodes the same 10,000 records as a DynamoDB
// Streams batch and as a Kinesis batch, in one run: issue 32 keeps the
// second within 1.5 times the first. Bytes per op are each payload's.
func BenchmarkDecodeSource(b *testing.B) {
	for _, src := range []struct {
		name    string
		payload func(*testing.B) []byte
	}{
		{"stream", func(*testing.B) []byte { return benchBatch() }},
		{"kinesis", kinesisBenchBatch},
	} {
		b.Run(src.name, func(b *testing.B) {
			payload := src.payload(b)
			d, _ := NewDecoder(Config{PartitionKey: "pk"})
			var n, total uint64
			v := Visitor{Record: func(r *Record) error { n++; total += r.WCU; return nil }}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			defer reportCPU(b, len(payload))()
			for b.Loop() {
				if err := d.Decode(payload, v); err != nil {
					b.Fatal(err)
				}
			}
			if total == 0 || n%10000 != 0 {
				b.Fatalf("%d records, %d WCU", n, total)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
		})
	}
}

// BenchmarkKinesisBase64 is the platform's share of a Kinesis batch, run
// beside BenchmarkDecodeSource: encoding/base64 decoding the 10,000
// records' data alone, once the event's JSON is parsed (not timed).
func BenchmarkKinesisBase64(b *testing.B) {
	var ev events.KinesisEvent
	payload := kinesisBenchBatch(b)
	if err := json.Unmarshal(payload, &ev); err != nil {
		b.Fatal(err)
	}
	data := make([][]byte, len(ev.Records))
	size := 0
	for i, r := range ev.Records {
		data[i] = []byte(base64.StdEncoding.EncodeToString(r.Kinesis.Data))
		size += len(data[i])
	}
	buf := make([]byte, size)
	b.SetBytes(int64(len(payload)))
	defer reportCPU(b, len(payload))()
	for b.Loop() {
		for _, s := range data {
			if _, err := base64.StdEncoding.Decode(buf, s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
