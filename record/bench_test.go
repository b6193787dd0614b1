package record

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// reportCPU adds CPU time per op, and the throughput it implies, to a
// benchmark's figures; call the func it returns after the loop.
func reportCPU(b *testing.B, bytesPerOp int) func() {
	start := cpuTime()
	return func() {
		used := cpuTime() - start
		if used <= 0 || b.N == 0 {
			return
		}
		perOp := used.Seconds() / float64(b.N)
		b.ReportMetric(perOp*1e9, "cpu-ns/op")
		if bytesPerOp > 0 {
			b.ReportMetric(float64(bytesPerOp)/perOp/1e6, "cpu-MB/s")
		}
	}
}

// BenchmarkDecode decodes the benchmark batch, 10,000 NEW_AND_OLD_IMAGES
// batch from raw bytes to records with their WCU.
func BenchmarkDecode(b *testing.B) {
	payload := benchBatch()
	d, _ := NewDecoder(Config{PartitionKey: "pk"})
	var total uint64
	v := Visitor{Record: func(r *Record) error { total += r.WCU; return nil }}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	defer reportCPU(b, len(payload))()
	for b.Loop() {
		if err := d.Decode(payload, v); err != nil {
			b.Fatal(err)
		}
	}
	if total == 0 {
		b.Fatal("no WCU")
	}
}

// BenchmarkDecodeCountPerKey does exactly the baseline's work with this
// package: WCU per partition key in a map.
func BenchmarkDecodeCountPerKey(b *testing.B) {
	payload := benchBatch()
	d, _ := NewDecoder(Config{PartitionKey: "pk"})
	perKey := make(map[string]*uint64)
	v := Visitor{Record: func(r *Record) error {
		p := perKey[string(r.PartitionKey.Value)] // no allocation for a known key
		if p == nil {
			p = new(uint64)
			perKey[string(r.PartitionKey.Value)] = p
		}
		*p += r.WCU
		return nil
	}}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	defer reportCPU(b, len(payload))()
	for b.Loop() {
		clear(perKey)
		if err := d.Decode(payload, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineEventsDynamoDBEvent is the baseline README's figures
// and docs/performance.md measure against:
// encoding/json into aws-lambda-go's events.DynamoDBEvent, item sizes from
// events.DynamoDBAttributeValue by the same rules, WCU per key in a map.
func BenchmarkBaselineEventsDynamoDBEvent(b *testing.B) {
	payload := benchBatch()
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	defer reportCPU(b, len(payload))()
	for b.Loop() {
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			b.Fatal(err)
		}
		perKey := make(map[string]uint64)
		for _, r := range ev.Records {
			newSize, oldSize := -1, -1
			if r.Change.NewImage != nil {
				newSize = lambdaItemSize(r.Change.NewImage)
			}
			if r.Change.OldImage != nil {
				oldSize = lambdaItemSize(r.Change.OldImage)
			}
			ttl := r.EventName == "REMOVE" && r.UserIdentity != nil &&
				r.UserIdentity.Type == "Service" && r.UserIdentity.PrincipalID == "dynamodb.amazonaws.com"
			name := map[string]EventName{"INSERT": Insert, "MODIFY": Modify, "REMOVE": Remove}[r.EventName]
			wcu, _ := ddb.ItemWriteUnits(name.kind(ttl), newSize, oldSize, lambdaItemSize(r.Change.Keys))
			perKey[r.Change.Keys["pk"].String()] += wcu
		}
	}
}

// lambdaItemSize sizes an item decoded by aws-lambda-go.
func lambdaItemSize(item map[string]events.DynamoDBAttributeValue) int {
	size := 0
	for name, v := range item {
		size += len(name) + lambdaValueSize(v)
	}
	return size
}

func lambdaValueSize(v events.DynamoDBAttributeValue) int {
	num := func(s string) int {
		n, _ := ddb.NumberSize(s)
		return n
	}
	size := 0
	switch v.DataType() {
	case events.DataTypeString:
		size = len(v.String())
	case events.DataTypeNumber:
		size = num(v.Number())
	case events.DataTypeBinary:
		size = len(v.Binary())
	case events.DataTypeBoolean, events.DataTypeNull:
		size = 1
	case events.DataTypeStringSet:
		for _, s := range v.StringSet() {
			size += len(s)
		}
	case events.DataTypeNumberSet:
		for _, s := range v.NumberSet() {
			size += num(s)
		}
	case events.DataTypeBinarySet:
		for _, s := range v.BinarySet() {
			size += len(s)
		}
	case events.DataTypeList:
		size = 3
		for _, e := range v.List() {
			size += 1 + lambdaValueSize(e)
		}
	case events.DataTypeMap:
		size = 3 + len(v.Map()) + lambdaItemSize(v.Map())
	}
	return size
}

func BenchmarkItemSize(b *testing.B) {
	item := newGen(3).item(12, 3)
	b.SetBytes(int64(len(item)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ItemSize(item); err != nil {
			b.Fatal(err)
		}
	}
}
