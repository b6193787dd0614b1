package record

import (
	"slices"
	"strings"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// What a payload is. A file handed to replay may be any JSON an AWS user
// has at hand: a Lambda event of another service, an API's output, the
// table's description. Identify names it from its first value, so that a
// caller refuses what is not stream records in one line, rather than
// counting every record malformed. This is the one place that tells event
// kinds apart: a kind becomes readable by changing Source.Readable (and
// teaching Decode its shape), nothing else.

// Source is the kind of a payload, as its first JSON value shows it.
type Source uint8

// The kinds Identify tells apart.
const (
	// SourceUnknown is JSON that none of the kinds below describes.
	SourceUnknown Source = iota
	// SourceInvalid is a payload whose first value is not JSON as far as
	// Identify read it: Decode says where and why.
	SourceInvalid
	// SourceNone holds no JSON value (empty, or whitespace), or an empty
	// array.
	SourceNone
	// SourceLambdaEvent is a Lambda event of DynamoDB stream records
	// (DynamoDBEvent, or DynamoDBTimeWindowEvent), or an array of them.
	SourceLambdaEvent
	// SourceGetRecords is the output of DynamoDB Streams' GetRecords
	// (`aws dynamodbstreams get-records`): Records and NextShardIterator.
	SourceGetRecords
	// SourceRecords is DynamoDB stream records alone: one object, an
	// array of them, or one per line.
	SourceRecords
	// SourceNull is the JSON literal null.
	SourceNull
	// SourceEmptyObject is {}.
	SourceEmptyObject
	// SourceKinesis is a Lambda event of Kinesis Data Streams records
	// (eventSource aws:kinesis), such as Kinesis Data Streams for DynamoDB
	// delivers.
	SourceKinesis
	// SourceSQS is a Lambda event of Amazon SQS messages.
	SourceSQS
	// SourceSNS is a Lambda event of Amazon SNS notifications.
	SourceSNS
	// SourceS3 is an Amazon S3 event notification.
	SourceS3
	// SourceHTTP is an HTTP request event: API Gateway (REST or HTTP API),
	// an Application Load Balancer, or a function URL.
	SourceHTTP
	// SourceEventBridge is an Amazon EventBridge event.
	SourceEventBridge
	// SourceCloudWatchLogs is a CloudWatch Logs subscription event.
	SourceCloudWatchLogs
	// SourceDescribeTable is the output of DynamoDB's DescribeTable.
	SourceDescribeTable
	// SourceOtherEvent is a Lambda event of another service's records:
	// Shape.EventSource names it.
	SourceOtherEvent
)

// Readable reports whether Decode reads a payload of this kind as stream
// records (SourceNone and SourceInvalid included: Decode says that there
// is nothing, or where the JSON breaks). Every other kind is not stream
// records, whatever its records hold.
func (s Source) Readable() bool {
	switch s {
	case SourceLambdaEvent, SourceGetRecords, SourceRecords, SourceNone, SourceInvalid:
		return true
	}
	return false
}

// Shape is what Identify found.
type Shape struct {
	Source Source
	// EventSource is the first record's eventSource (EventSource for
	// SNS), when it has one: "aws:dynamodb", "aws:sqs", ...
	EventSource string
	// Members are the first object's member names, for SourceUnknown.
	Members []string
	// JSONType is the JSON type of a first value that is no object:
	// "array", "string", "number" or "boolean", for SourceUnknown.
	JSONType string
}

// String names the shape for people: "an Amazon SQS event (eventSource
// aws:sqs)".
func (s Shape) String() string {
	switch s.Source {
	case SourceInvalid:
		return "not JSON"
	case SourceNone:
		return "empty"
	case SourceLambdaEvent:
		return "a Lambda event of DynamoDB stream records"
	case SourceGetRecords:
		return "DynamoDB Streams GetRecords output (aws dynamodbstreams get-records)"
	case SourceRecords:
		return "DynamoDB stream records"
	case SourceNull:
		return "JSON null"
	case SourceEmptyObject:
		return "an empty JSON object ({})"
	case SourceKinesis:
		return "a Lambda event of Kinesis Data Streams records (eventSource aws:kinesis)"
	case SourceSQS:
		return "a Lambda event of Amazon SQS messages (eventSource aws:sqs)"
	case SourceSNS:
		return "a Lambda event of Amazon SNS notifications (EventSource aws:sns)"
	case SourceS3:
		return "an Amazon S3 event notification (eventSource aws:s3)"
	case SourceHTTP:
		return "an HTTP request event (API Gateway, an Application Load Balancer or a function URL)"
	case SourceEventBridge:
		return "an Amazon EventBridge event (detail-type, source, detail)"
	case SourceCloudWatchLogs:
		return "a CloudWatch Logs subscription event (awslogs)"
	case SourceDescribeTable:
		return "the output of aws dynamodb describe-table"
	case SourceOtherEvent:
		return "a Lambda event of " + s.EventSource + " records"
	}
	if s.JSONType != "" {
		return "a JSON " + s.JSONType
	}
	if len(s.Members) > 0 {
		return "a JSON object of " + strings.Join(quoteAll(s.Members, 5), ", ")
	}
	return "JSON of an unknown shape"
}

// quoteAll quotes the first n names, and says how many more there are.
func quoteAll(names []string, n int) []string {
	out := make([]string, 0, min(len(names), n)+1)
	for _, name := range names[:min(len(names), n)] {
		out = append(out, `"`+name+`"`)
	}
	if len(names) > n {
		out = append(out, "…")
	}
	return out
}

// Identify tells what payload is from its first JSON value (of an array,
// its first element), reading no more than that value.
func Identify(payload []byte) Shape {
	var s jsonscan.Scanner
	s.Reset(payload)
	i := jsonscan.SkipWS(payload, bomLen(payload))
	if i >= len(payload) {
		return Shape{Source: SourceNone}
	}
	switch payload[i] {
	case '{':
		return identifyObject(&s, i)
	case '[':
		j, closed := s.Open(i, ']')
		switch {
		case closed:
			return Shape{Source: SourceNone}
		case s.Peek(j) == '{':
			return identifyObject(&s, j)
		}
		return identifyScalar(&s, j, "array")
	case 'n':
		if s.Literal(i, "null") < 0 {
			return Shape{Source: SourceInvalid}
		}
		return Shape{Source: SourceNull}
	}
	return identifyScalar(&s, i, "")
}

// identifyScalar names a first value that is not an object; in, when not
// "", is the container it is the first element of.
func identifyScalar(s *jsonscan.Scanner, i int, in string) Shape {
	if s.SkipValue(i) < 0 {
		return Shape{Source: SourceInvalid}
	}
	t := jsonType(s.Peek(i))
	if in != "" {
		t = in + " of " + t + "s"
	}
	return Shape{Source: SourceUnknown, JSONType: t}
}

// jsonType names the JSON type of a value that starts with c.
func jsonType(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// object is what identifyObject gathers of an object's members.
type object struct {
	names       []string
	records     *object // the first element of a Records (or records) array of objects
	emptyArray  bool    // Records is []
	eventSource string
}

func (o *object) has(names ...string) bool {
	for _, n := range names {
		if slices.Contains(o.names, n) {
			return true
		}
	}
	return false
}

// identifyObject names the object at i.
func identifyObject(s *jsonscan.Scanner, i int) Shape {
	top, ok := readObject(s, i, true)
	if !ok {
		return Shape{Source: SourceInvalid}
	}
	if len(top.names) == 0 {
		return Shape{Source: SourceEmptyObject}
	}
	if rec := top.records; rec != nil || top.emptyArray {
		if rec == nil { // "Records": [], a batch of nothing
			if top.has("NextShardIterator") {
				return Shape{Source: SourceGetRecords}
			}
			return Shape{Source: SourceLambdaEvent}
		}
		sh := Shape{EventSource: rec.eventSource}
		switch {
		case rec.eventSource == "aws:dynamodb" || (rec.eventSource == "" && rec.has("dynamodb")):
			sh.Source = SourceLambdaEvent
			if top.has("NextShardIterator") {
				sh.Source = SourceGetRecords
			}
		case rec.eventSource == "aws:kinesis" || (rec.eventSource == "" && rec.has("kinesis")):
			sh.Source = SourceKinesis
		case rec.eventSource == "aws:sqs" || (rec.eventSource == "" && rec.has("receiptHandle")):
			sh.Source = SourceSQS
		case rec.eventSource == "aws:sns" || (rec.eventSource == "" && rec.has("Sns")):
			sh.Source = SourceSNS
		case rec.eventSource == "aws:s3" || (rec.eventSource == "" && rec.has("s3")):
			sh.Source = SourceS3
		case rec.eventSource != "":
			sh.Source = SourceOtherEvent
		case rec.has("eventName", "eventID", "eventSourceARN"): // a record without its dynamodb: Decode says so
			sh.Source = SourceLambdaEvent
		default:
			sh.Source, sh.Members = SourceUnknown, top.names
		}
		return sh
	}
	switch {
	case top.has("dynamodb", "eventName", "eventID", "eventSourceARN"):
		return Shape{Source: SourceRecords}
	case top.has("awslogs"):
		return Shape{Source: SourceCloudWatchLogs}
	case top.has("httpMethod", "routeKey", "rawPath") || (top.has("requestContext") && top.has("headers", "path", "body")):
		return Shape{Source: SourceHTTP}
	case top.has("detail-type") && top.has("source"):
		return Shape{Source: SourceEventBridge}
	case top.has("Table") && len(top.names) == 1:
		return Shape{Source: SourceDescribeTable}
	}
	return Shape{Source: SourceUnknown, Members: top.names}
}

// readObject reads the member names of the object at i, and, when top,
// the first record of its Records: its member names and eventSource.
// ok is false on a syntax error.
func readObject(s *jsonscan.Scanner, i int, top bool) (o object, ok bool) {
	i, closed := s.Open(i, '}')
	for !closed {
		v, name := s.Key(i)
		if v < 0 {
			return o, false
		}
		n := string(name)
		o.names = append(o.names, n)
		end := -1
		switch {
		case top && (n == "Records" || n == "records") && s.Peek(v) == '[':
			j, empty := s.Open(v, ']')
			if empty {
				o.emptyArray, end = true, j
				break
			}
			if s.Peek(j) == '{' {
				rec, ok := readObject(s, j, false)
				if !ok {
					return o, false
				}
				o.records = &rec
			}
			end = s.SkipValue(v) // the whole array, from its start
		case !top && (n == "eventSource" || n == "EventSource") && s.Peek(v) == '"':
			var src []byte
			end, src = s.StringBytes(v)
			o.eventSource = string(src)
		default:
			end = s.SkipValue(v)
		}
		if end < 0 {
			return o, false
		}
		if i, closed = s.Next(end, '}'); i < 0 {
			return o, false
		}
	}
	return o, true
}
