package kinesisbridge_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/kinesisbridge"
	"github.com/hotkeys-dev/hotkeys/record"
)

// A stream record, and the change record Kinesis Data Streams for DynamoDB
// carries for the same write, byte for byte: the field order, the null
// userIdentity, the UUID eventID, the 16-digit time and the precision field
// after SizeBytes are those of change records captured from real streams
// (docs/kinesis.md, "The change record").
const (
	streamEvent = `{"Records":[{"eventID":"f89436e0627d4d37987942f86249aa83","eventName":"INSERT","eventVersion":"1.1",` +
		`"eventSource":"aws:dynamodb","awsRegion":"us-east-2","dynamodb":{"ApproximateCreationDateTime":1721011165.89155,` +
		`"Keys":{"flight_date":{"S":"2024-01-23 04:01:53"},"flight_number":{"S":"BA28"}},` +
		`"NewImage":{"arr":{"S":"TZX"},"flight_number":{"S":"BA28"},"status":{"S":"CANCELLED"},"flight_date":{"S":"2024-01-23 04:01:53"}},` +
		`"SequenceNumber":"400000001000000000242","SizeBytes":125,"StreamViewType":"NEW_AND_OLD_IMAGES"},` +
		`"eventSourceARN":"arn:aws:dynamodb:us-east-2:123456789012:table/flight/stream/2024-07-15T00:00:00.000"}]}`
	changeRecord = `{"awsRegion":"us-east-2","eventID":"f89436e0-627d-4d37-9879-42f86249aa83","eventName":"INSERT",` +
		`"userIdentity":null,"recordFormat":"application/json","tableName":"flight",` +
		`"dynamodb":{"ApproximateCreationDateTime":1721011165891550,` +
		`"Keys":{"flight_date":{"S":"2024-01-23 04:01:53"},"flight_number":{"S":"BA28"}},` +
		`"NewImage":{"arr":{"S":"TZX"},"flight_number":{"S":"BA28"},"status":{"S":"CANCELLED"},"flight_date":{"S":"2024-01-23 04:01:53"}},` +
		`"SizeBytes":125,"ApproximateCreationDateTimePrecision":"MICROSECOND"},"eventSource":"aws:dynamodb"}`
)

func TestFromStreamEventIsTheChangeRecord(t *testing.T) {
	got, err := kinesisbridge.FromStreamEvent([]byte(streamEvent), kinesisbridge.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	want := kinesisbridge.Change{
		EventID: "f89436e0-627d-4d37-9879-42f86249aa83",
		Table:   "flight",
		Keys:    json.RawMessage(`{"flight_date":{"S":"2024-01-23 04:01:53"},"flight_number":{"S":"BA28"}}`),
		Created: time.UnixMicro(1721011165891550).UTC(),
		Data:    []byte(changeRecord),
	}
	if diff := cmp.Diff([]kinesisbridge.Change{want}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPrecisions: the time in microseconds, in milliseconds, and in the old
// form (milliseconds, no precision field), exact from the seconds' digits.
func TestPrecisions(t *testing.T) {
	for _, tc := range []struct {
		seconds string
		p       kinesisbridge.Precision
		want    string
	}{
		{"1795309200.759", kinesisbridge.Microsecond, `"ApproximateCreationDateTime":1795309200759000,`},
		{"1795309200.759", kinesisbridge.Millisecond, `"ApproximateCreationDateTime":1795309200759,`},
		{"1795309200.7591239", kinesisbridge.Microsecond, `"ApproximateCreationDateTime":1795309200759123,`},
		{"1795309260", kinesisbridge.Legacy, `"ApproximateCreationDateTime":1795309260000,`},
		{"1.7953092007591e9", kinesisbridge.Microsecond, `"ApproximateCreationDateTime":1795309200759100,`},
	} {
		ev := strings.Replace(streamEvent, "1721011165.89155", tc.seconds, 1)
		got, err := kinesisbridge.FromStreamEvent([]byte(ev), tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.seconds, err)
		}
		data := string(got[0].Data)
		if !strings.Contains(data, tc.want) {
			t.Errorf("%s at %v: %s lacks %s", tc.seconds, tc.p, data, tc.want)
		}
		field := `"ApproximateCreationDateTimePrecision":"` + tc.p.String() + `"`
		if has := strings.Contains(data, "ApproximateCreationDateTimePrecision"); has != (tc.p != kinesisbridge.Legacy) ||
			(has && !strings.Contains(data, field)) {
			t.Errorf("%s at %v: precision field wrong in %s", tc.seconds, tc.p, data)
		}
	}
}

func TestFromStreamEventRejects(t *testing.T) {
	for _, tc := range []struct{ name, payload, want string }{
		{"not JSON", `{"Records":[`, "not a Lambda DynamoDB Streams event"},
		{"Kinesis ARN", strings.Replace(streamEvent, "arn:aws:dynamodb:us-east-2:123456789012:table/flight/stream/2024-07-15T00:00:00.000", "arn:aws:kinesis:us-east-2:1:stream/s", 1), "is not a DynamoDB stream's"},
		{"no time", strings.Replace(streamEvent, `"ApproximateCreationDateTime":1721011165.89155,`, "", 1), "ApproximateCreationDateTime"},
		{"no keys", strings.Replace(streamEvent, `"Keys":`, `"Other":`, 1), "no dynamodb.Keys"},
	} {
		_, err := kinesisbridge.FromStreamEvent([]byte(tc.payload), kinesisbridge.Microsecond)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := kinesisbridge.FromStreamEvent([]byte(`[1]`), kinesisbridge.Microsecond); !errors.Is(err, kinesisbridge.ErrNotStreamEvent) {
		t.Errorf("an array: %v", err)
	}
}

// TestSamplesConvert converts every DynamoDB stream sample of events/ and
// decodes the change records with record's decoder, each as a lone record
// and all of them as one Lambda Kinesis event: both are sized, charged,
// timed and named exactly as the stream records they came from (the time
// from microseconds, the table from tableName). Only what a change record
// does not carry differs: the sequence number, the stream view type and
// the shard.
func TestSamplesConvert(t *testing.T) {
	files, err := filepath.Glob("../../../events/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	keyOf := map[string]string{"global-counter.json": "", "describe-table-lookup.json": "customerId"}
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := kinesisbridge.FromStreamEvent(raw, kinesisbridge.Microsecond)
			if err != nil {
				t.Fatal(err)
			}
			pk, ok := keyOf[base]
			if !ok {
				pk = "PK"
			}
			dec, err := record.NewDecoder(record.Config{PartitionKey: pk})
			if err != nil {
				t.Fatal(err)
			}
			want, wantBad := decodeAll(t, dec, raw)
			for i := range want {
				want[i].SequenceNumber, want[i].StreamViewType, want[i].Shard = nil, "", ""
				want[i].EventID = []byte(uuidOf(string(want[i].EventID)))
			}
			var lone []record.Record
			loneBad := 0
			for _, c := range changes {
				recs, bad := decodeAll(t, dec, c.Data)
				lone, loneBad = append(lone, recs...), loneBad+bad
			}
			shards, err := kinesisbridge.Spread(changes, kinesisbridge.Options{Shards: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			event := kinesisbridge.AppendEvent(nil, shards[0], kinesisbridge.ShardID(0), "arn:aws:kinesis:us-east-1:123456789012:stream/s", "us-east-1")
			batch, batchBad := decodeAll(t, dec, event)
			for _, got := range []struct {
				how  string
				recs []record.Record
				bad  int
			}{{"lone change records", lone, loneBad}, {"a Lambda Kinesis event", batch, batchBad}} {
				if got.bad != wantBad {
					t.Errorf("%s: %d malformed, %d stream records", got.how, got.bad, wantBad)
				}
				if reflect.DeepEqual(want, got.recs) {
					continue // cmp.Diff takes seconds on hundreds of equal records
				}
				if diff := cmp.Diff(want, got.recs); diff != "" {
					t.Errorf("%s decode differently from their stream records (-stream +change):\n%s", got.how, diff)
				}
			}
		})
	}
}

// decodeAll decodes payload and returns copies of its records, and how many
// were malformed (malformed-record.json's bad attribute value is as bad in
// its change record).
func decodeAll(t *testing.T, dec *record.Decoder, payload []byte) (out []record.Record, malformed int) {
	t.Helper()
	err := dec.Decode(payload, record.Visitor{
		Record: func(r *record.Record) error {
			c := *r
			c.EventID = append([]byte(nil), r.EventID...)
			c.SequenceNumber = append([]byte(nil), r.SequenceNumber...)
			c.PartitionKey.Value = append([]byte(nil), r.PartitionKey.Value...)
			c.SortKey.Value = append([]byte(nil), r.SortKey.Value...)
			c.Indexes = nil
			out = append(out, c)
			return nil
		},
		Malformed: func(*record.Malformed) error { malformed++; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, malformed
}

func uuidOf(id string) string {
	if len(id) != 32 {
		return id
	}
	return id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
}
