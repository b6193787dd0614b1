package kinesisstream_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
)

func decodeData(t *testing.T, payload []byte) []string {
	t.Helper()
	var ev events.KinesisEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatalf("payload is not a Lambda Kinesis event: %v\n%s", err, payload)
	}
	var data []string
	for _, r := range ev.Records {
		data = append(data, string(r.Kinesis.Data))
	}
	return data
}

// TestAppendLambdaEventIsAWSExample rebuilds the first record of the example
// Kinesis record event of the AWS Lambda Developer Guide ("Using AWS Lambda
// with Amazon Kinesis") byte for byte, invokeIdentityArn aside: a reader
// outside Lambda has no invocation role.
func TestAppendLambdaEventIsAWSExample(t *testing.T) {
	const example = `{"Records":[{"kinesis":{"kinesisSchemaVersion":"1.0","partitionKey":"1",` +
		`"sequenceNumber":"49590338271490256608559692538361571095921575989136588898","data":"SGVsbG8sIHRoaXMgaXMgYSB0ZXN0Lg==",` +
		`"approximateArrivalTimestamp":1545084650.987},"eventSource":"aws:kinesis","eventVersion":"1.0",` +
		`"eventID":"shardId-000000000006:49590338271490256608559692538361571095921575989136588898",` +
		`"eventName":"aws:kinesis:record","awsRegion":"us-east-2",` +
		`"eventSourceARN":"arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream"}]}`
	rec := types.Record{
		PartitionKey:                aws.String("1"),
		SequenceNumber:              aws.String("49590338271490256608559692538361571095921575989136588898"),
		Data:                        []byte("Hello, this is a test."),
		ApproximateArrivalTimestamp: aws.Time(time.UnixMilli(1545084650987)),
	}
	got := kinesisstream.AppendLambdaEvent(nil, []types.Record{rec}, "shardId-000000000006",
		"arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream", "us-east-2")
	if string(got) != example {
		t.Errorf("got\n%s\nwant\n%s", got, example)
	}
	// And aws-lambda-go reads it back whole, the arrival time through a
	// float64 of seconds (1545084650.986999988): to the millisecond only.
	var ev events.KinesisEvent
	if err := json.Unmarshal(got, &ev); err != nil {
		t.Fatal(err)
	}
	if r := ev.Records[0]; string(r.Kinesis.Data) != "Hello, this is a test." || r.Kinesis.ApproximateArrivalTimestamp.Round(time.Millisecond).UnixMilli() != 1545084650987 {
		t.Errorf("aws-lambda-go reads %+v", r)
	}
}

func TestAppendLambdaRecordEscapes(t *testing.T) {
	rec := types.Record{PartitionKey: aws.String("a\"b\\c\n"), SequenceNumber: aws.String("1"), Data: []byte{0, 0xff}}
	got := kinesisstream.AppendLambdaEvent(nil, []types.Record{rec}, "shardId-000000000000", "arn:aws:kinesis:r:1:stream/s", "r")
	var ev events.KinesisEvent
	if err := json.Unmarshal(got, &ev); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if k := ev.Records[0].Kinesis; k.PartitionKey != "a\"b\\c\n" || string(k.Data) != "\x00\xff" {
		t.Errorf("read back %+v", k)
	}
	if strings.Contains(string(got), "approximateArrivalTimestamp") {
		t.Errorf("a record without an arrival time got one: %s", got)
	}
}

func TestAppendEpochMillis(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.UnixMilli(1545084650987), "1545084650.987"},
		{time.UnixMilli(1545084650000), "1545084650.000"},
		{time.UnixMilli(1545084650007), "1545084650.007"},
		{time.UnixMicro(1545084650987654), "1545084650.987"}, // cut, not rounded
		{time.Unix(0, 0), "0.000"},
		{time.Unix(-5, 0), "0.000"},
	} {
		if got := string(kinesisstream.AppendEpochMillis(nil, tc.t)); got != tc.want {
			t.Errorf("AppendEpochMillis(%v) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := kinesisstream.DefaultConfig()
	good.StreamARN = "arn:aws:kinesis:eu-west-1:123456789012:stream/orders-cdc"
	if err := good.Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*kinesisstream.Config)
		want string
	}{
		{"DynamoDB stream ARN", func(c *kinesisstream.Config) {
			c.StreamARN = "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2026-11-22T00:00:00.000"
		}, "is not a Kinesis stream ARN"},
		{"consumer ARN", func(c *kinesisstream.Config) { c.StreamARN = good.StreamARN + "/consumer/hotkeys:1700000000" }, "is not a Kinesis stream ARN"},
		{"no name", func(c *kinesisstream.Config) { c.StreamARN = "arn:aws:kinesis:eu-west-1:123456789012:stream/" }, "is not a Kinesis stream ARN"},
		{"no region", func(c *kinesisstream.Config) { c.StreamARN = "arn:aws:kinesis::123456789012:stream/s" }, "is not a Kinesis stream ARN"},
		{"name only", func(c *kinesisstream.Config) { c.StreamARN = "orders-cdc" }, "is not a Kinesis stream ARN"},
		{"from", func(c *kinesisstream.Config) { c.From = "at_timestamp" }, `From "at_timestamp"`},
		{"min poll", func(c *kinesisstream.Config) { c.MinPoll = 0 }, "MinPoll 0s must be positive"},
		{"max poll", func(c *kinesisstream.Config) { c.MaxPoll = c.MinPoll / 2 }, "is below MinPoll"},
		{"limit", func(c *kinesisstream.Config) { c.Limit = kinesisstream.MaxLimit + 1 }, "Limit 10001: want 1 to 10000"},
		{"list interval", func(c *kinesisstream.Config) { c.ListInterval = 0 }, "ListInterval 0s must be positive"},
	} {
		c := good
		tc.edit(&c)
		err := c.Validate()
		if !errors.Is(err, kinesisstream.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want ErrConfig saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := kinesisstream.NewReader(nil, good); !errors.Is(err, kinesisstream.ErrConfig) {
		t.Errorf("NewReader(nil) = %v", err)
	}
}
