package detector

import (
	"fmt"
	"testing"
	"time"
)

// benchWindow is a busy minute of one table: 200,000 records over 50,000
// keys on 4 shards, one key hot, as the Lambda carries it in its state.
func benchWindow(b *testing.B) *Window {
	w, err := NewWindow(DefaultConfig().Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 200_000 {
		key := fmt.Sprintf("USER#%d", (i*7919)%50_000)
		if i%5 == 0 {
			key = "HOT"
		}
		r := rec("Orders", key, fmt.Sprint(i%13), uint64(1+i%3), t0.Add(time.Duration(i%60)*time.Second))
		r.Shard = fmt.Sprintf("shardId-%d", i%4)
		w.Add(r)
	}
	return w
}

// BenchmarkWindowMarshal encodes a window's state, as every tumbling-window
// invoke of the Lambda does (marshalWithin, within budget).
func BenchmarkWindowMarshal(b *testing.B) {
	ws := []*Window{benchWindow(b)}
	var n int
	b.ReportAllocs()
	for b.Loop() {
		encs, err := marshalWithin(ws, 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		n = len(encs[0])
	}
	b.ReportMetric(float64(n), "bytes")
}

// BenchmarkWindowUnmarshal decodes it, as the next invoke does.
func BenchmarkWindowUnmarshal(b *testing.B) {
	enc, err := benchWindow(b).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig().Sketch
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnmarshalWindow(enc, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(enc)), "bytes")
}
