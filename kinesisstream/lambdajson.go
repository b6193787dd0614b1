package kinesisstream

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// The JSON Lambda delivers for Kinesis (AWS Lambda Developer Guide, "Using
// AWS Lambda with Amazon Kinesis", example Kinesis record event):
//
//	{"Records":[{"kinesis":{"kinesisSchemaVersion":"1.0","partitionKey":"1",
//	  "sequenceNumber":"4959…","data":"SGVsbG8…","approximateArrivalTimestamp":1545084650.987},
//	  "eventSource":"aws:kinesis","eventVersion":"1.0",
//	  "eventID":"shardId-000000000006:4959…","eventName":"aws:kinesis:record",
//	  "invokeIdentityArn":"arn:aws:iam::…","awsRegion":"us-east-2",
//	  "eventSourceARN":"arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream"}]}
//
// For Kinesis Data Streams for DynamoDB, "data" is the base64 of one
// DynamoDB change record (docs/kinesis.md). A reader outside Lambda has no
// invocation role, so invokeIdentityArn is left out.

// AppendLambdaEvent appends the JSON of the event Lambda would deliver for
// recs, read from shard shardID of the stream streamARN in region:
// {"Records":[...]}.
func AppendLambdaEvent(dst []byte, recs []types.Record, shardID, streamARN, region string) []byte {
	dst = append(dst, `{"Records":[`...)
	for i := range recs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendLambdaRecord(dst, &recs[i], shardID, streamARN, region)
	}
	return append(dst, "]}"...)
}

// AppendLambdaRecord appends one Kinesis record in the JSON shape Lambda
// delivers (aws-lambda-go's events.KinesisEventRecord): data in base64,
// approximateArrivalTimestamp in epoch seconds with milliseconds, eventID
// the shard ID and the sequence number.
func AppendLambdaRecord(dst []byte, rec *types.Record, shardID, streamARN, region string) []byte {
	seq := aws.ToString(rec.SequenceNumber)
	dst = append(dst, `{"kinesis":{"kinesisSchemaVersion":"1.0","partitionKey":`...)
	dst = jsonscan.AppendQuoted(dst, aws.ToString(rec.PartitionKey))
	dst = append(dst, `,"sequenceNumber":`...)
	dst = jsonscan.AppendQuoted(dst, seq)
	dst = append(dst, `,"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, rec.Data)
	dst = append(dst, '"')
	if rec.ApproximateArrivalTimestamp != nil {
		dst = append(dst, `,"approximateArrivalTimestamp":`...)
		dst = AppendEpochMillis(dst, *rec.ApproximateArrivalTimestamp)
	}
	dst = append(dst, `},"eventSource":"aws:kinesis","eventVersion":"1.0","eventID":`...)
	dst = jsonscan.AppendQuoted(dst, shardID+":"+seq)
	dst = append(dst, `,"eventName":"aws:kinesis:record","awsRegion":`...)
	dst = jsonscan.AppendQuoted(dst, region)
	dst = append(dst, `,"eventSourceARN":`...)
	dst = jsonscan.AppendQuoted(dst, streamARN)
	return append(dst, '}')
}

// AppendEpochMillis writes t as Lambda writes a Kinesis arrival time: epoch
// seconds with three decimals (1545084650.987). Kinesis keeps arrival times
// to the millisecond; a finer t is cut, a time before 1970 is written as 0.
func AppendEpochMillis(dst []byte, t time.Time) []byte {
	ms := max(t.UnixMilli(), 0)
	dst = strconv.AppendInt(dst, ms/1000, 10)
	frac := ms % 1000
	return append(dst, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}
