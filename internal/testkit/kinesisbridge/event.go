package kinesisbridge

import (
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
)

// AppendEvent appends the plain Lambda Kinesis event of recs, records of
// shard shardID of streamARN in region: what kinesisstream hands watch, and
// what Lambda delivers, invokeIdentityArn aside.
func AppendEvent(dst []byte, recs []types.Record, shardID, streamARN, region string) []byte {
	return kinesisstream.AppendLambdaEvent(dst, recs, shardID, streamARN, region)
}

// Window is a tumbling window's part of a Lambda Kinesis event.
type Window struct {
	Start, End      time.Time
	State           map[string]string // nil: {}
	Final           bool              // isFinalInvokeForWindow
	TerminatedEarly bool              // isWindowTerminatedEarly
}

// AppendWindowEvent appends the Lambda Kinesis time-window event of recs
// (AWS Lambda Developer Guide, "Using AWS Lambda with Amazon Kinesis",
// example KinesisTimeWindowEvent): the records, then window, state,
// shardId, eventSourceARN, isFinalInvokeForWindow, isWindowTerminatedEarly.
func AppendWindowEvent(dst []byte, recs []types.Record, shardID, streamARN, region string, w Window) []byte {
	dst = AppendEvent(dst, recs, shardID, streamARN, region)
	dst = dst[:len(dst)-1] // reopen the object
	dst = append(dst, `,"window":{"start":`...)
	dst = jsonscan.AppendQuoted(dst, w.Start.UTC().Format(time.RFC3339))
	dst = append(dst, `,"end":`...)
	dst = jsonscan.AppendQuoted(dst, w.End.UTC().Format(time.RFC3339))
	dst = append(dst, `},"state":{`...)
	for i, k := range slices.Sorted(maps.Keys(w.State)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonscan.AppendQuoted(dst, k)
		dst = append(dst, ':')
		dst = jsonscan.AppendQuoted(dst, w.State[k])
	}
	dst = append(dst, `},"shardId":`...)
	dst = jsonscan.AppendQuoted(dst, shardID)
	dst = append(dst, `,"eventSourceARN":`...)
	dst = jsonscan.AppendQuoted(dst, streamARN)
	dst = append(dst, `,"isFinalInvokeForWindow":`...)
	dst = appendBool(dst, w.Final)
	dst = append(dst, `,"isWindowTerminatedEarly":`...)
	dst = appendBool(dst, w.TerminatedEarly)
	return append(dst, '}')
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}
