package record

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// change is a Kinesis Data Streams for DynamoDB change record of key pk
// (its fields in the order real ones have), with dynamo's extra members.
func change(pk, dynamo string) string {
	return `{"awsRegion":"eu-west-1","eventID":"id-` + pk + `","eventName":"INSERT","userIdentity":null,` +
		`"recordFormat":"application/json","tableName":"T","dynamodb":{"ApproximateCreationDateTime":1795309200759123,` +
		`"Keys":{"pk":{"S":"` + pk + `"}},"NewImage":{"pk":{"S":"` + pk + `"}},"SizeBytes":20` + dynamo + `},"eventSource":"aws:dynamodb"}`
}

// kinesisRecord wraps data as a Lambda Kinesis record carries it.
func kinesisRecord(data string) string {
	return `{"kinesis":{"kinesisSchemaVersion":"1.0","partitionKey":"0123456789ABCDEF0123456789ABCDEF",` +
		`"sequenceNumber":"49590338271490256608559692538361571095921575989136588898","data":"` +
		base64.StdEncoding.EncodeToString([]byte(data)) + `","approximateArrivalTimestamp":1795309200.801},` +
		`"eventSource":"aws:kinesis","eventVersion":"1.0","eventID":"shardId-000000000006:4959","eventName":"aws:kinesis:record",` +
		`"awsRegion":"eu-west-1","eventSourceARN":"arn:aws:kinesis:eu-west-1:1:stream/s"}`
}

func kinesisEvent(recs ...string) string { return `{"Records":[` + strings.Join(recs, ",") + `]}` }

// TestKinesisRecords: a Lambda Kinesis record is its change record, decoded
// by the stream record's rules; what is wrong with it is a malformed
// record, never a syntax error of the payload, and the records around it
// go on.
func TestKinesisRecords(t *testing.T) {
	at := time.Unix(1795309200, 759123000).UTC()
	cases := []struct {
		name    string
		payload string
		pks     string // the records' partition keys
		bad     []error
	}{
		{"a change record", kinesisEvent(kinesisRecord(change("A", ""))), "A", nil},
		{"lone, outside an event", kinesisRecord(change("A", "")), "A", nil},
		{"the change record alone", change("A", ""), "A", nil},
		{"kinesis after the Lambda's fields", kinesisEvent(`{"eventName":"aws:kinesis:record","eventID":"x","kinesis":{"data":"` +
			base64.StdEncoding.EncodeToString([]byte(change("A", ""))) + `"}}`), "A", nil},
		{"mixed with stream records", `[` + minimal("S", "") + `,` + kinesisEvent(kinesisRecord(change("A", "")), kinesisRecord(change("B", ""))) + `]`, "S,A,B", nil},
		{"data not base64", kinesisEvent(`{"kinesis":{"data":"!!"}}`, kinesisRecord(change("B", ""))), "B", []error{ErrKinesisData}},
		{"no data", kinesisEvent(`{"kinesis":{}}`, kinesisRecord(change("B", ""))), "B", []error{ErrKinesisData}},
		{"data a number", kinesisEvent(`{"kinesis":{"data":1}}`), "", []error{ErrKinesisData}},
		{"kinesis not an object", kinesisEvent(`{"kinesis":[]}`), "", []error{ErrKinesisData}},
		{"data not JSON", kinesisEvent(kinesisRecord(`{"eventName":`), kinesisRecord(change("B", ""))), "B", []error{ErrKinesisData}},
		{"data not an object", kinesisEvent(kinesisRecord(`[]`)), "", []error{ErrKinesisData}},
		{"data two values", kinesisEvent(kinesisRecord(change("A", "") + " 1")), "", []error{ErrKinesisData}},
		{"a bad change record", kinesisEvent(kinesisRecord(strings.Replace(change("A", ""), `"INSERT"`, `"UPSERT"`, 1))), "", []error{ErrEventName}},
		{"kinesis inside a change record is skipped", kinesisEvent(kinesisRecord(strings.Replace(change("A", ""), `"awsRegion"`,
			`"kinesis":{"data":"`+base64.StdEncoding.EncodeToString([]byte(change("X", "")))+`"},"awsRegion"`, 1))), "A", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := decode(t, Config{}, tc.payload)
			if err != nil {
				t.Fatal(err)
			}
			if got := pks(g); got != tc.pks {
				t.Errorf("records %q, want %q", got, tc.pks)
			}
			for _, r := range g.records {
				if r.Table != "T" && string(r.PartitionKey.Value) != "S" {
					t.Errorf("record %s: table %q, want T", r.PartitionKey.Value, r.Table)
				}
				if string(r.PartitionKey.Value) != "S" && !r.Time.Equal(at) {
					t.Errorf("record %s: time %v, want %v", r.PartitionKey.Value, r.Time, at)
				}
			}
			if len(g.bad) != len(tc.bad) {
				t.Fatalf("%d malformed, want %d: %+v", len(g.bad), len(tc.bad), g.bad)
			}
			for i, want := range tc.bad {
				if !errors.Is(g.bad[i].Err, want) {
					t.Errorf("malformed %d: %v, want %v", i, g.bad[i].Err, want)
				}
			}
		})
	}
}

// TestTableNameWins: a record with tableName and an eventSourceARN belongs
// to tableName's table, whichever comes first.
func TestTableNameWins(t *testing.T) {
	arn := `"eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/Other/stream/x",`
	for _, payload := range []string{
		strings.Replace(change("A", ""), `"awsRegion"`, arn+`"awsRegion"`, 1),
		strings.Replace(change("A", ""), `"eventSource"`, arn+`"eventSource"`, 1),
	} {
		g, err := decode(t, Config{}, payload)
		if err != nil || len(g.records) != 1 || g.records[0].Table != "T" {
			t.Errorf("%s: %+v %v, want one record of table T", payload, g.records, err)
		}
	}
}

// TestEpochPrecisions: seconds (DynamoDB Streams), milliseconds (old change
// records, and MILLISECOND) and microseconds (the default now) land on the
// same instant, to the precision each has.
func TestEpochPrecisions(t *testing.T) {
	cases := []struct {
		num  string
		want time.Time
	}{
		{"1795309200.759123", time.Unix(1795309200, 759123000).UTC()},
		{"1795309200759123", time.Unix(1795309200, 759123000).UTC()},
		{"1795309200759", time.Unix(1795309200, 759000000).UTC()},
		{"1795309200759.5", time.Unix(1795309200, 759500000).UTC()},
		{"1.795309200759123e15", time.Unix(1795309200, 759123000).UTC()},
		{"1795309200", time.Unix(1795309200, 0).UTC()},
		{"99999999999", time.Unix(99999999999, 0).UTC()},           // seconds: the year 5138
		{"100000000000", time.UnixMilli(100000000000).UTC()},       // milliseconds: 1973
		{"100000000000000", time.UnixMicro(100000000000000).UTC()}, // microseconds: 1973
	}
	for _, tc := range cases {
		payload := strings.Replace(change("A", ""), "1795309200759123", tc.num, 1)
		g, err := decode(t, Config{}, payload)
		if err != nil || len(g.records) != 1 {
			t.Fatalf("%s: %v %+v", tc.num, err, g.bad)
		}
		if got := g.records[0].Time; !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.num, got, tc.want)
		}
	}
}

// FuzzDecodeKinesis: any bytes as a change record decode in a Lambda
// Kinesis event as they decode alone, when alone they are one record
// object: the same records, or one malformed record.
func FuzzDecodeKinesis(f *testing.F) {
	f.Add([]byte(change("A", "")))
	f.Add([]byte(change("A", `,"ApproximateCreationDateTimePrecision":"MICROSECOND"`)))
	f.Add([]byte(`{"eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},"tableName":"T",` +
		`"dynamodb":{"Keys":{"pk":{"N":"1"},"sk":{"B":"AQ=="}},"OldImage":{"pk":{"N":"1"}}}}`))
	f.Add([]byte(minimal("A", "")))
	f.Add([]byte(`{"kinesis":{"data":"e30="}}`))
	f.Add([]byte(`[1`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, pk := range []string{"", "pk"} {
			d, _ := NewDecoder(Config{PartitionKey: pk, Indexes: fuzzIndexes})
			var alone got
			aloneErr := d.Decode(data, alone.visitor())
			var boxed got
			payload := []byte(kinesisEvent(kinesisRecord(string(data)), kinesisRecord(change("Z", ""))))
			err := d.Decode(payload, boxed.visitor())
			var amb *AmbiguousKeyError
			if errors.As(err, &amb) {
				continue // a key the decoder cannot tell stops either way
			}
			if err != nil {
				t.Fatalf("a Kinesis event failed: %v", err)
			}
			if n := len(boxed.records) + len(boxed.bad); n != 2 || len(boxed.events) != 1 {
				t.Fatalf("%d records and malformed, %d events; want 2 and 1", n, len(boxed.events))
			}
			if last := boxed.records[len(boxed.records)-1]; string(last.PartitionKey.Value) != "Z" {
				t.Fatalf("the record after it is %s", fmtRecord(last))
			}
			checkDecoded(t, payload, &boxed, err)
			one := bytes.TrimSpace(data)
			if aloneErr != nil || len(alone.events) > 0 || len(one) == 0 || one[0] != '{' ||
				len(alone.records)+len(alone.bad) != 1 || bytes.Contains(data, []byte("kinesis")) {
				continue // not one record object alone
			}
			want := alone.records
			got := boxed.records[:len(boxed.records)-1]
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), sameErrorText); diff != "" {
				t.Fatalf("decoded differently in a Kinesis event (-alone +boxed):\n%s", diff)
			}
		}
	})
}
