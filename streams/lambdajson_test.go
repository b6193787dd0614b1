package streams_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/streams"
)

const testARN = "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000"

// everyType is an item holding every attribute type, nested.
func everyType() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":        &types.AttributeValueMemberS{Value: "USER#42"},
		"n":         &types.AttributeValueMemberN{Value: "-1.5E-3"},
		"b":         &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xff, 0xfe}},
		"yes":       &types.AttributeValueMemberBOOL{Value: true},
		"no":        &types.AttributeValueMemberBOOL{Value: false},
		"nil":       &types.AttributeValueMemberNULL{Value: true},
		"ss":        &types.AttributeValueMemberSS{Value: []string{"a", "b\"c", "é"}},
		"ns":        &types.AttributeValueMemberNS{Value: []string{"1", "2.50", "-3e5"}},
		"bs":        &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}, []byte("hello")}},
		"Ω name\t1": &types.AttributeValueMemberS{Value: "line\nbreak \\ \u0001 \u2028 😀"},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": &types.AttributeValueMemberS{Value: "y"}}},
		}},
		"map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"deep": &types.AttributeValueMemberNS{Value: []string{"0.00091"}},
			}},
			"empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}},
	}
}

func testRecords() []types.Record {
	at := time.Date(2026, 11, 22, 10, 0, 5, 250_000_000, time.UTC)
	keys := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "USER#42"}}
	return []types.Record{
		{
			EventID: aws.String("e1"), EventName: types.OperationTypeInsert, EventVersion: aws.String("1.1"),
			EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
			Dynamodb: &types.StreamRecord{
				ApproximateCreationDateTime: aws.Time(at), Keys: keys, NewImage: everyType(),
				SequenceNumber: aws.String("4421584500000000017450439091"), SizeBytes: aws.Int64(321),
				StreamViewType: types.StreamViewTypeNewAndOldImages,
			},
		},
		{
			EventID: aws.String("e2"), EventName: types.OperationTypeModify, EventVersion: aws.String("1.1"),
			EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("eu-west-1"),
			Dynamodb: &types.StreamRecord{
				ApproximateCreationDateTime: aws.Time(at.Truncate(time.Minute)), Keys: keys,
				NewImage: everyType(), OldImage: map[string]types.AttributeValue{"pk": keys["pk"]},
				SequenceNumber: aws.String("4421584500000000017450439092"), SizeBytes: aws.Int64(400),
				StreamViewType: types.StreamViewTypeNewAndOldImages,
			},
		},
		{
			// A TTL delete.
			EventID: aws.String("e3"), EventName: types.OperationTypeRemove, EventVersion: aws.String("1.1"),
			EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
			Dynamodb: &types.StreamRecord{
				ApproximateCreationDateTime: aws.Time(at), Keys: keys, OldImage: everyType(),
				SequenceNumber: aws.String("4421584500000000017450439093"), SizeBytes: aws.Int64(200),
				StreamViewType: types.StreamViewTypeOldImage,
			},
			UserIdentity: &types.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")},
		},
		{
			// KEYS_ONLY, with a binary key and a number sort key.
			EventID: aws.String("e4"), EventName: types.OperationTypeRemove, EventVersion: aws.String("1.1"),
			EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
			Dynamodb: &types.StreamRecord{
				Keys: map[string]types.AttributeValue{
					"id": &types.AttributeValueMemberB{Value: []byte("\x00key")},
					"at": &types.AttributeValueMemberN{Value: "1e1"},
				},
				SequenceNumber: aws.String("4421584500000000017450439094"), SizeBytes: aws.Int64(12),
				StreamViewType: types.StreamViewTypeKeysOnly,
			},
		},
	}
}

// TestAppendLambdaEventMatchesAWSLambdaGo checks the JSON against
// aws-lambda-go's events types, which model what Lambda delivers: decoding
// it must give the very values of the SDK records.
func TestAppendLambdaEventMatchesAWSLambdaGo(t *testing.T) {
	recs := testRecords()
	payload := streams.AppendLambdaEvent(nil, recs, testARN)
	var got events.DynamoDBEvent
	if err := json.Unmarshal(payload, &got); err != nil {
		t.Fatalf("aws-lambda-go cannot decode the payload: %v\n%s", err, payload)
	}
	want := events.DynamoDBEvent{}
	for _, r := range recs {
		want.Records = append(want.Records, toEvents(r, testARN))
	}
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("decoded by aws-lambda-go:\n got  %s\n want %s", gotJSON, wantJSON)
	}
	// Sub-second times survive exactly (aws-lambda-go goes through float64).
	if s := string(payload); !strings.Contains(s, `"ApproximateCreationDateTime":1795341605.25,`) ||
		!strings.Contains(s, `"ApproximateCreationDateTime":1795341600,`) {
		t.Errorf("epoch seconds not as Lambda writes them:\n%s", payload)
	}
}

// toEvents converts an SDK record with aws-lambda-go's constructors.
func toEvents(r types.Record, arn string) events.DynamoDBEventRecord {
	e := events.DynamoDBEventRecord{
		AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
		EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: arn,
	}
	if id := r.UserIdentity; id != nil {
		e.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(id.Type), PrincipalID: aws.ToString(id.PrincipalId)}
	}
	d := r.Dynamodb
	if d.ApproximateCreationDateTime != nil {
		e.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	e.Change.Keys = toEventsItem(d.Keys)
	e.Change.NewImage = toEventsItem(d.NewImage)
	e.Change.OldImage = toEventsItem(d.OldImage)
	e.Change.SequenceNumber = aws.ToString(d.SequenceNumber)
	e.Change.SizeBytes = aws.ToInt64(d.SizeBytes)
	e.Change.StreamViewType = string(d.StreamViewType)
	return e
}

func toEventsItem(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = toEventsAV(v)
	}
	return out
}

func toEventsAV(av types.AttributeValue) events.DynamoDBAttributeValue {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toEventsAV(e)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(toEventsItem(v.Value))
	}
	panic(fmt.Sprintf("unexpected %T", av))
}

// TestAppendLambdaRecordShape pins the exact bytes for one record: the
// field names, their order (Lambda's), and DynamoDB JSON.
func TestAppendLambdaRecordShape(t *testing.T) {
	rec := types.Record{
		EventID: aws.String("c4ca4238a0b923820dcc509a6f75849b"), EventName: types.OperationTypeModify,
		EventVersion: aws.String("1.1"), EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
		Dynamodb: &types.StreamRecord{
			ApproximateCreationDateTime: aws.Time(time.Unix(1479499740, 0)),
			Keys:                        map[string]types.AttributeValue{"Id": &types.AttributeValueMemberN{Value: "101"}},
			NewImage: map[string]types.AttributeValue{
				"Message": &types.AttributeValueMemberS{Value: "This item has changed"},
				"Id":      &types.AttributeValueMemberN{Value: "101"},
			},
			OldImage: map[string]types.AttributeValue{
				"Message": &types.AttributeValueMemberS{Value: "New item!"},
				"Id":      &types.AttributeValueMemberN{Value: "101"},
			},
			SequenceNumber: aws.String("222"), SizeBytes: aws.Int64(59), StreamViewType: types.StreamViewTypeNewAndOldImages,
		},
	}
	// The MODIFY record of the AWS Lambda developer guide's sample event
	// (with-ddb.html), fields in the guide's order.
	want := `{"eventID":"c4ca4238a0b923820dcc509a6f75849b","eventName":"MODIFY","eventVersion":"1.1",` +
		`"eventSource":"aws:dynamodb","awsRegion":"us-east-1","dynamodb":{"ApproximateCreationDateTime":1479499740,` +
		`"Keys":{"Id":{"N":"101"}},"NewImage":{"Id":{"N":"101"},"Message":{"S":"This item has changed"}},` +
		`"OldImage":{"Id":{"N":"101"},"Message":{"S":"New item!"}},"SequenceNumber":"222","SizeBytes":59,` +
		`"StreamViewType":"NEW_AND_OLD_IMAGES"},"eventSourceARN":"` + testARN + `"}`
	if got := string(streams.AppendLambdaRecord(nil, rec, testARN)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Appending keeps what dst held.
	if got := string(streams.AppendLambdaRecord([]byte("x"), rec, testARN)); got != "x"+want {
		t.Errorf("AppendLambdaRecord does not append: %.40s…", got)
	}
}

// TestStringEscaping compares string escaping with encoding/json's.
func TestStringEscaping(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " backslash \ slash /`, "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"é ü 中文 😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate", "<&>",
	} {
		rec := types.Record{Dynamodb: &types.StreamRecord{NewImage: map[string]types.AttributeValue{
			s: &types.AttributeValueMemberS{Value: s},
		}}}
		payload := streams.AppendLambdaRecord(nil, rec, testARN)
		var got struct {
			Dynamodb struct {
				NewImage map[string]struct{ S string }
			} `json:"dynamodb"`
		}
		if err := json.Unmarshal(payload, &got); err != nil {
			t.Errorf("%q: invalid JSON %s: %v", s, payload, err)
			continue
		}
		// encoding/json turns invalid UTF-8 into U+FFFD on the way in; the
		// writer must do the same, and keep everything else.
		want := strings.ToValidUTF8(s, "\uFFFD")
		if s == "\xed\xa0\x80 surrogate" {
			want = "\uFFFD\uFFFD\uFFFD surrogate"
		}
		if diff := cmp.Diff(map[string]struct{ S string }{want: {want}}, got.Dynamodb.NewImage); diff != "" {
			t.Errorf("%q: round trip (-want +got):\n%s", s, diff)
		}
	}
}

func TestEpochSeconds(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Unix(1479499740, 0), "1479499740"},
		{time.Unix(1479499740, 500_000_000), "1479499740.5"},
		{time.Unix(1479499740, 123_456_789), "1479499740.123456789"},
		{time.Unix(1479499740, 1), "1479499740.000000001"},
		{time.Unix(0, 0), "0"},
		{time.Unix(-1, 500_000_000), "-0.5"},
		{time.Unix(-2, 250_000_000), "-1.75"},
	} {
		rec := types.Record{Dynamodb: &types.StreamRecord{ApproximateCreationDateTime: aws.Time(tc.t)}}
		got := string(streams.AppendLambdaRecord(nil, rec, testARN))
		if want := `"dynamodb":{"ApproximateCreationDateTime":` + tc.want + `}`; !strings.Contains(got, want) {
			t.Errorf("%v: got %s, want %s", tc.t, got, want)
		}
	}
}

func TestUnknownAttributeType(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string
	}{
		{`{"x":1}`, `{"NEW":{"x":1}}`},
		{`not json`, `{"NEW":null}`},
	} {
		rec := types.Record{Dynamodb: &types.StreamRecord{NewImage: map[string]types.AttributeValue{
			"a": &types.UnknownUnionMember{Tag: "NEW", Value: []byte(tc.raw)},
			"b": nil,
		}}}
		got := string(streams.AppendLambdaRecord(nil, rec, testARN))
		if want := `"NewImage":{"a":` + tc.want + `,"b":null}`; !strings.Contains(got, want) || !json.Valid([]byte(got)) {
			t.Errorf("got %s, want it to contain %s", got, want)
		}
	}
}

func BenchmarkAppendLambdaEvent(b *testing.B) {
	// A GetRecords page of 1,000 NEW_AND_OLD_IMAGES records.
	recs := make([]types.Record, 0, 1000)
	for len(recs) < 1000 {
		recs = append(recs, testRecords()...)
	}
	buf := streams.AppendLambdaEvent(nil, recs, testARN)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = streams.AppendLambdaEvent(buf[:0], recs, testARN)
	}
}

func ExampleAppendLambdaEvent() {
	recs := []types.Record{{
		EventID: aws.String("1"), EventName: types.OperationTypeInsert, EventVersion: aws.String("1.1"),
		EventSource: aws.String("aws:dynamodb"), AwsRegion: aws.String("us-east-1"),
		Dynamodb: &types.StreamRecord{
			ApproximateCreationDateTime: aws.Time(time.Unix(1795315260, 0)),
			Keys:                        map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "OPS_LOG"}},
			NewImage: map[string]types.AttributeValue{
				"pk":   &types.AttributeValueMemberS{Value: "OPS_LOG"},
				"blob": &types.AttributeValueMemberB{Value: []byte("hi")},
			},
			SequenceNumber: aws.String("100"), SizeBytes: aws.Int64(30), StreamViewType: types.StreamViewTypeNewImage,
		},
	}}
	fmt.Println(string(streams.AppendLambdaEvent(nil, recs, "arn:aws:dynamodb:us-east-1:123456789012:table/Ops/stream/L")))
	// Output:
	// {"Records":[{"eventID":"1","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1","dynamodb":{"ApproximateCreationDateTime":1795315260,"Keys":{"pk":{"S":"OPS_LOG"}},"NewImage":{"blob":{"B":"aGk="},"pk":{"S":"OPS_LOG"}},"SequenceNumber":"100","SizeBytes":30,"StreamViewType":"NEW_IMAGE"},"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Ops/stream/L"}]}
}
