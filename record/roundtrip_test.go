package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"
)

// refRecord is a stream record read with encoding/json, for comparison.
type refRecord struct {
	EventID      string `json:"eventID"`
	EventName    string `json:"eventName"`
	ARN          string `json:"eventSourceARN"`
	UserIdentity *struct {
		Type        string `json:"type"`
		PrincipalID string `json:"principalId"`
	} `json:"userIdentity"`
	Dynamodb struct {
		Time           json.Number                           `json:"ApproximateCreationDateTime"`
		Keys           map[string]map[string]json.RawMessage `json:"Keys"`
		NewImage       json.RawMessage                       `json:"NewImage"`
		OldImage       json.RawMessage                       `json:"OldImage"`
		SequenceNumber string                                `json:"SequenceNumber"`
		SizeBytes      int64                                 `json:"SizeBytes"`
		StreamViewType string                                `json:"StreamViewType"`
	} `json:"dynamodb"`
}

// expect computes, from encoding/json, math/big and the plain reference
// sizer only, the Record that Decode must produce; pk names the
// partition key.
func (rr *refRecord) expect(t *testing.T, pk string) Record {
	t.Helper()
	size := func(raw json.RawMessage) int {
		if len(raw) == 0 || isNull(raw) {
			return -1
		}
		n, err := refItemSize(raw)
		if err != nil {
			t.Fatalf("reference size: %v", err)
		}
		return n
	}
	key := func(av map[string]json.RawMessage) ddb.Key {
		for tag, raw := range av {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			switch tag {
			case "S":
				return ddb.Key{Type: ddb.String, Value: []byte(s)}
			case "N":
				c, err := refCanonical(s)
				if err != nil {
					t.Fatal(err)
				}
				return ddb.Key{Type: ddb.Number, Value: []byte(c)}
			case "B":
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					t.Fatal(err)
				}
				return ddb.Key{Type: ddb.Binary, Value: b}
			}
		}
		t.Fatalf("bad key %v", av)
		return ddb.Key{}
	}
	r := Record{
		EventID:        []byte(rr.EventID),
		SequenceNumber: []byte(rr.Dynamodb.SequenceNumber),
		StreamViewType: rr.Dynamodb.StreamViewType,
		NewImageSize:   size(rr.Dynamodb.NewImage),
		OldImageSize:   size(rr.Dynamodb.OldImage),
		SizeBytes:      rr.Dynamodb.SizeBytes,
	}
	if _, name, ok := strings.Cut(rr.ARN, ":table/"); ok {
		r.Table, _, _ = strings.Cut(name, "/")
	}
	switch rr.EventName {
	case "INSERT":
		r.EventName = Insert
	case "MODIFY":
		r.EventName = Modify
	case "REMOVE":
		r.EventName = Remove
	}
	if rr.Dynamodb.Time != "" {
		f, _ := strconv.ParseFloat(string(rr.Dynamodb.Time), 64)
		sec, frac := math.Modf(f)
		r.Time = time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
	}
	for name, av := range rr.Dynamodb.Keys {
		k := key(av)
		n, err := refValueSize(mustJSON(t, av), 0)
		if err != nil {
			t.Fatal(err)
		}
		r.KeysSize += len(name) + n
		if name == pk || len(rr.Dynamodb.Keys) == 1 {
			r.PartitionKey = k
		} else {
			r.SortKey = k
		}
	}
	r.TTLDelete = r.EventName == Remove && rr.UserIdentity != nil &&
		rr.UserIdentity.Type == "Service" && rr.UserIdentity.PrincipalID == "dynamodb.amazonaws.com"
	// The WCU rule, spelled out again.
	ceil := func(n int) uint64 { return uint64(max(1, int(math.Ceil(float64(n)/1024)))) }
	switch {
	case r.TTLDelete:
		r.WCU, r.WCUExact = 0, true
	case r.EventName == Insert && r.NewImageSize >= 0:
		r.WCU, r.WCUExact = ceil(r.NewImageSize), true
	case r.EventName == Modify && r.NewImageSize >= 0 && r.OldImageSize >= 0:
		r.WCU, r.WCUExact = max(ceil(r.NewImageSize), ceil(r.OldImageSize)), true
	case r.EventName == Remove && r.OldImageSize >= 0:
		r.WCU, r.WCUExact = ceil(r.OldImageSize), true
	default:
		r.WCU = ceil(max(r.NewImageSize, r.OldImageSize, r.KeysSize))
	}
	return r
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameRecord is diffRecord allowing for the float64 that encoding/json
// takes the time through.
func sameRecord(a, b Record) string {
	if d := a.Time.Sub(b.Time); d > time.Microsecond || d < -time.Microsecond {
		return "differs in Time: " + a.Time.String() + " vs " + b.Time.String()
	}
	b.Time = a.Time
	return diffRecord(a, b)
}

// Every record of generated batches, in every view type, matches what
// encoding/json and the reference sizer make of it.
func TestDecodeAgainstReference(t *testing.T) {
	for _, view := range []string{"NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"} {
		payload := newGen(uint64(len(view))).batch(600, view)
		var ref struct{ Records []refRecord }
		if err := json.Unmarshal(payload, &ref); err != nil {
			t.Fatal(err)
		}
		var g got
		d, _ := NewDecoder(Config{PartitionKey: "pk"})
		if err := d.Decode(payload, g.visitor()); err != nil {
			t.Fatal(err)
		}
		if len(g.bad) != 0 || len(g.records) != len(ref.Records) {
			t.Fatalf("%s: %d records, %d malformed (%v); want %d", view, len(g.records), len(g.bad), g.bad, len(ref.Records))
		}
		ttl, lower := 0, 0
		for k, rr := range ref.Records {
			want := rr.expect(t, "pk")
			if diff := sameRecord(g.records[k], want); diff != "" {
				t.Fatalf("%s record %d: %s", view, k, diff)
			}
			if want.TTLDelete {
				ttl++
			}
			if !want.WCUExact {
				lower++
			}
		}
		if ttl == 0 || (view == "NEW_AND_OLD_IMAGES") != (lower == 0) {
			t.Errorf("%s: %d TTL deletes and %d inexact records: the batch does not exercise the rules", view, ttl, lower)
		}
	}
}

// A batch built with aws-lambda-go's own types and marshalled by it decodes
// to the same fields.
func TestRoundTripAWSLambdaGoEvents(t *testing.T) {
	av := func(m map[string]events.DynamoDBAttributeValue) map[string]events.DynamoDBAttributeValue { return m }
	item := av(map[string]events.DynamoDBAttributeValue{
		"pk":      events.NewStringAttribute("USER#ünï😀"),
		"sk":      events.NewNumberAttribute("1.50E+2"),
		"blob":    events.NewBinaryAttribute([]byte{0, 1, 2, 3, 254, 255}),
		"ok":      events.NewBooleanAttribute(true),
		"none":    events.NewNullAttribute(),
		"tags":    events.NewStringSetAttribute([]string{"a", "<b>&"}),
		"nums":    events.NewNumberSetAttribute([]string{"1", "-0.001", "6.13E-120"}),
		"bins":    events.NewBinarySetAttribute([][]byte{{1}, {2, 3}}),
		"list":    events.NewListAttribute([]events.DynamoDBAttributeValue{events.NewStringAttribute("x"), events.NewNumberAttribute("12000")}),
		"map":     events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{"名": events.NewStringAttribute("値\n")}),
		"empty_l": events.NewListAttribute([]events.DynamoDBAttributeValue{}),
	})
	keys := av(map[string]events.DynamoDBAttributeValue{"pk": item["pk"], "sk": item["sk"]})
	arn := "arn:aws:dynamodb:eu-central-1:123456789012:table/Round.Trip-1/stream/2026-11-22T10:00:00.000"
	when := time.Date(2026, 11, 22, 10, 0, 5, 500_000_000, time.UTC)
	rec := func(id, name string, newImg, oldImg map[string]events.DynamoDBAttributeValue, ttl bool) events.DynamoDBEventRecord {
		r := events.DynamoDBEventRecord{
			AWSRegion: "eu-central-1", EventID: id, EventName: name, EventSource: "aws:dynamodb", EventVersion: "1.1",
			EventSourceArn: arn,
			Change: events.DynamoDBStreamRecord{
				ApproximateCreationDateTime: events.SecondsEpochTime{Time: when},
				Keys:                        keys, NewImage: newImg, OldImage: oldImg,
				SequenceNumber: "1000" + id, SizeBytes: 321, StreamViewType: "NEW_AND_OLD_IMAGES",
			},
		}
		if ttl {
			r.UserIdentity = &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
		}
		return r
	}
	small := av(map[string]events.DynamoDBAttributeValue{"pk": item["pk"], "sk": item["sk"]})
	in := events.DynamoDBTimeWindowEvent{
		DynamoDBEvent: events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
			rec("1", "INSERT", item, nil, false),
			rec("2", "MODIFY", small, item, false),
			rec("3", "REMOVE", nil, item, true),
			rec("4", "REMOVE", nil, small, false),
		}},
		TimeWindowProperties: events.TimeWindowProperties{
			Window: events.Window{
				Start: events.RFC3339EpochTime{Time: when.Truncate(time.Minute)},
				End:   events.RFC3339EpochTime{Time: when.Truncate(time.Minute).Add(time.Minute)},
			},
			State:   map[string]string{"summary": "AAEC"},
			ShardID: "shardId-00000001", EventSourceARN: arn, IsFinalInvokeForWindow: true,
		},
	}
	payload := mustJSON(t, in)
	var g got
	d, _ := NewDecoder(Config{PartitionKey: "pk"})
	if err := d.Decode(payload, g.visitor()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.calls, "") != "ERRRR" {
		t.Fatalf("calls %v, malformed %v", g.calls, g.bad)
	}
	wantEv := Event{
		WindowStart: in.Window.Start.Time, WindowEnd: in.Window.End.Time, State: map[string]string{"summary": "AAEC"},
		ShardID: in.ShardID, EventSourceARN: arn, IsFinalInvokeForWindow: true, TimeWindow: true,
	}
	if diff := cmp.Diff(wantEv, g.events[0]); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	// The records as aws-lambda-go reads the same payload back, sized from
	// its decoded values by the same rules.
	var back events.DynamoDBEvent
	if err := json.Unmarshal(payload, &back); err != nil {
		t.Fatal(err)
	}
	names := map[string]EventName{"INSERT": Insert, "MODIFY": Modify, "REMOVE": Remove}
	ceil := func(n int) uint64 { return uint64(max(1, (n+1023)/1024)) }
	for k, lr := range back.Records {
		want := Record{
			Table: "Round.Trip-1", Shard: in.ShardID, EventName: names[lr.EventName],
			EventID: []byte(lr.EventID), SequenceNumber: []byte(lr.Change.SequenceNumber), Time: when,
			StreamViewType: lr.Change.StreamViewType,
			PartitionKey:   ddb.Key{Type: ddb.String, Value: []byte(lr.Change.Keys["pk"].String())},
			SortKey:        ddb.Key{Type: ddb.Number, Value: []byte("150")}, // 1.50E+2, canonical
			KeysSize:       lambdaItemSize(lr.Change.Keys), NewImageSize: -1, OldImageSize: -1,
			SizeBytes: lr.Change.SizeBytes, TTLDelete: k == 2, WCUExact: true,
		}
		if lr.Change.NewImage != nil {
			want.NewImageSize = lambdaItemSize(lr.Change.NewImage)
		}
		if lr.Change.OldImage != nil {
			want.OldImageSize = lambdaItemSize(lr.Change.OldImage)
		}
		switch {
		case want.TTLDelete:
		case want.EventName == Insert:
			want.WCU = ceil(want.NewImageSize)
		case want.EventName == Modify:
			want.WCU = max(ceil(want.NewImageSize), ceil(want.OldImageSize))
		default:
			want.WCU = ceil(want.OldImageSize)
		}
		if diff := sameRecord(g.records[k], want); diff != "" {
			t.Errorf("record %d: %s", k, diff)
		}
	}
	if !bytes.Contains(payload, []byte(`"isFinalInvokeForWindow":true`)) {
		t.Fatal("the payload is not what aws-lambda-go writes")
	}
}
