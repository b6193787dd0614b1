package streams

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// AppendLambdaEvent appends the JSON of the event Lambda would deliver for
// recs: {"Records":[...]}. Feeding it to record's decoder gives `watch` the
// very code path of the Lambda and of `replay`, item sizing included.
func AppendLambdaEvent(dst []byte, recs []types.Record, streamARN string) []byte {
	dst = append(dst, `{"Records":[`...)
	for i, rec := range recs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendLambdaRecord(dst, rec, streamARN)
	}
	return append(dst, "]}"...)
}

// AppendLambdaRecord appends one stream record in the JSON shape Lambda
// delivers for DynamoDB Streams (aws-lambda-go's events.DynamoDBEventRecord),
// with attribute values in DynamoDB JSON ({"S":…}, {"N":…}, {"B":base64}, …).
// streamARN becomes eventSourceARN. Map attributes are written in name order,
// so the output is deterministic.
func AppendLambdaRecord(dst []byte, rec types.Record, streamARN string) []byte {
	dst = append(dst, '{')
	dst = appendStringField(dst, "eventID", rec.EventID)
	if rec.EventName != "" {
		dst = appendField(dst, "eventName")
		dst = appendString(dst, string(rec.EventName))
	}
	dst = appendStringField(dst, "eventVersion", rec.EventVersion)
	dst = appendField(dst, "eventSource")
	if rec.EventSource != nil {
		dst = appendString(dst, *rec.EventSource)
	} else {
		dst = append(dst, `"aws:dynamodb"`...)
	}
	dst = appendStringField(dst, "awsRegion", rec.AwsRegion)
	if d := rec.Dynamodb; d != nil {
		dst = appendField(dst, "dynamodb")
		dst = appendStreamRecord(dst, d)
	}
	dst = appendField(dst, "eventSourceARN")
	dst = appendString(dst, streamARN)
	if id := rec.UserIdentity; id != nil {
		dst = appendField(dst, "userIdentity")
		dst = append(dst, '{')
		dst = appendStringField(dst, "type", id.Type)
		dst = appendStringField(dst, "principalId", id.PrincipalId)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendStreamRecord(dst []byte, d *types.StreamRecord) []byte {
	dst = append(dst, '{')
	comma := false
	field := func(name string) {
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = appendString(dst, name)
		dst = append(dst, ':')
	}
	if d.ApproximateCreationDateTime != nil {
		field("ApproximateCreationDateTime")
		dst = appendEpochSeconds(dst, *d.ApproximateCreationDateTime)
	}
	if d.Keys != nil {
		field("Keys")
		dst = appendItem(dst, d.Keys)
	}
	if d.NewImage != nil {
		field("NewImage")
		dst = appendItem(dst, d.NewImage)
	}
	if d.OldImage != nil {
		field("OldImage")
		dst = appendItem(dst, d.OldImage)
	}
	if d.SequenceNumber != nil {
		field("SequenceNumber")
		dst = appendString(dst, *d.SequenceNumber)
	}
	if d.SizeBytes != nil {
		field("SizeBytes")
		dst = strconv.AppendInt(dst, *d.SizeBytes, 10)
	}
	if d.StreamViewType != "" {
		field("StreamViewType")
		dst = appendString(dst, string(d.StreamViewType))
	}
	return append(dst, '}')
}

// appendEpochSeconds writes t as Lambda does: seconds since the epoch, with
// a fraction only when t has one (exactly, not through a float64).
func appendEpochSeconds(dst []byte, t time.Time) []byte {
	sec, nsec := t.Unix(), t.Nanosecond()
	if sec < 0 && nsec > 0 {
		// -0.5 s is Unix() -1 plus 500 ms.
		sec, nsec = sec+1, 1e9-nsec
		if sec == 0 {
			dst = append(dst, '-')
		}
	}
	dst = strconv.AppendInt(dst, sec, 10)
	if nsec == 0 {
		return dst
	}
	var frac [10]byte
	b := strconv.AppendInt(frac[:0], int64(nsec)+1e9, 10) // "1" + 9 digits, zero-padded
	b = b[1:]
	for len(b) > 0 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	dst = append(dst, '.')
	return append(dst, b...)
}

// appendItem writes a map of attribute values, names in sorted order. A
// small map is sorted on the stack.
func appendItem(dst []byte, item map[string]types.AttributeValue) []byte {
	var stack [16]string
	names := stack[:0]
	for name := range item {
		names = append(names, name)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, name)
		dst = append(dst, ':')
		dst = appendAttributeValue(dst, item[name])
	}
	return append(dst, '}')
}

func appendAttributeValue(dst []byte, av types.AttributeValue) []byte {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		dst = append(dst, `{"S":`...)
		dst = appendString(dst, v.Value)
	case *types.AttributeValueMemberN:
		dst = append(dst, `{"N":`...)
		dst = appendString(dst, v.Value)
	case *types.AttributeValueMemberB:
		dst = append(dst, `{"B":`...)
		dst = appendBase64(dst, v.Value)
	case *types.AttributeValueMemberBOOL:
		dst = append(dst, `{"BOOL":`...)
		dst = strconv.AppendBool(dst, v.Value)
	case *types.AttributeValueMemberNULL:
		dst = append(dst, `{"NULL":`...)
		dst = strconv.AppendBool(dst, v.Value)
	case *types.AttributeValueMemberSS:
		dst = appendStrings(append(dst, `{"SS":`...), v.Value)
	case *types.AttributeValueMemberNS:
		dst = appendStrings(append(dst, `{"NS":`...), v.Value)
	case *types.AttributeValueMemberBS:
		dst = append(dst, `{"BS":[`...)
		for i, b := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendBase64(dst, b)
		}
		dst = append(dst, ']')
	case *types.AttributeValueMemberL:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendAttributeValue(dst, e)
		}
		dst = append(dst, ']')
	case *types.AttributeValueMemberM:
		dst = append(dst, `{"M":`...)
		dst = appendItem(dst, v.Value)
	case *types.UnknownUnionMember:
		// A type newer than this SDK: pass it on as it came, so the
		// decoder sees it (and counts the record malformed, as it cannot
		// size it) rather than a silently smaller item.
		dst = append(dst, '{')
		dst = appendString(dst, v.Tag)
		dst = append(dst, ':')
		if json.Valid(v.Value) {
			dst = append(dst, v.Value...)
		} else {
			dst = append(dst, "null"...)
		}
	default: // nil
		return append(dst, "null"...)
	}
	return append(dst, '}')
}

// appendStrings appends a JSON array of strings: an SS or NS value.
func appendStrings(dst []byte, values []string) []byte {
	dst = append(dst, '[')
	for i, s := range values {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

func appendField(dst []byte, name string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = appendString(dst, name)
	return append(dst, ':')
}

// appendStringField writes name and *s, unless s is nil.
func appendStringField(dst []byte, name string, s *string) []byte {
	if s == nil {
		return dst
	}
	dst = appendField(dst, name)
	return appendString(dst, *s)
}

// appendString writes s as a JSON string (see jsonscan.AppendQuoted).
func appendString(dst []byte, s string) []byte { return jsonscan.AppendQuoted(dst, s) }
