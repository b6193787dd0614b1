package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestIdentify names every kind of payload from its first value: the
// samples of testdata/sources are the events other services send a Lambda
// (as AWS's documentation shows them) and API outputs a user may have at
// hand.
func TestIdentify(t *testing.T) {
	files := map[string]Source{
		"kinesis.json":          SourceKinesis,
		"sqs.json":              SourceSQS,
		"sns.json":              SourceSNS,
		"s3.json":               SourceS3,
		"api-gateway.json":      SourceHTTP,
		"api-gateway-http.json": SourceHTTP,
		"eventbridge.json":      SourceEventBridge,
		"cloudwatch-logs.json":  SourceCloudWatchLogs,
		"describe-table.json":   SourceDescribeTable,
		"empty-object.json":     SourceEmptyObject,
		"null.json":             SourceNull,
	}
	entries, err := os.ReadDir("testdata/sources")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Errorf("testdata/sources holds %d files, the test names %d", len(entries), len(files))
	}
	for name, want := range files {
		b, err := os.ReadFile(filepath.Join("testdata/sources", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := Identify(b); got.Source != want || got.Source.Readable() {
			t.Errorf("%s: %v (%q), want %v and not readable", name, got.Source, got, want)
		}
	}

	for _, c := range []struct {
		name, payload string
		want          Shape
	}{
		{"Lambda event", readFile(t, "dynamodb-event.json"), Shape{Source: SourceLambdaEvent, EventSource: "aws:dynamodb"}},
		{"tumbling window", readFile(t, "dynamodb-time-window-event.json"), Shape{Source: SourceLambdaEvent, EventSource: "aws:dynamodb"}},
		{"a record", minimal("A", ""), Shape{Source: SourceRecords}},
		{"records by line", minimal("A", "") + "\n" + minimal("B", ""), Shape{Source: SourceRecords}},
		{"array of records", "[" + minimal("A", "") + "]", Shape{Source: SourceRecords}},
		{"array of events", `[{"Records":[` + minimal("A", "") + `]}]`, Shape{Source: SourceLambdaEvent}},
		{"get-records", `{"Records":[` + minimal("A", "") + `],"NextShardIterator":"arn:aws:dynamodb:r:1:table/T/stream/x|1|AA"}`, Shape{Source: SourceGetRecords}},
		{"get-records, nothing", `{"Records":[],"NextShardIterator":null}`, Shape{Source: SourceGetRecords}},
		{"an empty batch", `{"Records":[]}`, Shape{Source: SourceLambdaEvent}},
		{"a record lacking dynamodb", `{"Records":[{"eventName":"INSERT"}]}`, Shape{Source: SourceLambdaEvent}},
		{"byte-order mark", "\xef\xbb\xbf" + minimal("A", ""), Shape{Source: SourceRecords}},
		{"empty", " \n", Shape{Source: SourceNone}},
		{"empty array", "[ ]", Shape{Source: SourceNone}},
		{"not JSON", `{"Records":[{"eventID":"1",}]}`, Shape{Source: SourceInvalid}},
		{"cut short", `{"Records":[`, Shape{Source: SourceInvalid}},
		{"nul", `nul`, Shape{Source: SourceInvalid}},
		{"another service", `{"Records":[{"eventSource":"aws:ses","ses":{}}]}`, Shape{Source: SourceOtherEvent, EventSource: "aws:ses"}},
		{"an object of something", `{"a":1,"b":[2]}`, Shape{Source: SourceUnknown, Members: []string{"a", "b"}}},
		{"a number", `42`, Shape{Source: SourceUnknown, JSONType: "number"}},
		{"an array of strings", `["x"]`, Shape{Source: SourceUnknown, JSONType: "array of strings"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Identify([]byte(c.payload))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestShapeString: what a user reads of each kind.
func TestShapeString(t *testing.T) {
	for _, c := range []struct {
		shape Shape
		want  string
	}{
		{Shape{Source: SourceSQS, EventSource: "aws:sqs"}, "a Lambda event of Amazon SQS messages (eventSource aws:sqs)"},
		{Shape{Source: SourceOtherEvent, EventSource: "aws:ses"}, "a Lambda event of aws:ses records"},
		{Shape{Source: SourceUnknown, Members: []string{"a", "b", "c", "d", "e", "f"}}, `a JSON object of "a", "b", "c", "d", "e", …`},
		{Shape{Source: SourceUnknown, JSONType: "number"}, "a JSON number"},
		{Shape{Source: SourceGetRecords}, "DynamoDB Streams GetRecords output (aws dynamodbstreams get-records)"},
	} {
		if got := c.shape.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.shape.Source, got, c.want)
		}
	}
}

// FuzzIdentify: Identify never panics, and whatever Decode reads without
// a syntax error and finds a record in is a readable kind.
func FuzzIdentify(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	entries, _ := os.ReadDir("testdata/sources")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("testdata/sources", e.Name())); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		sh := Identify(payload)
		_ = sh.String()
		d, _ := NewDecoder(Config{PartitionKey: "pk"})
		var g got
		if err := d.Decode(payload, g.visitor()); err == nil && len(g.records) > 0 && !sh.Source.Readable() {
			// The first value decides: a later value may be a record.
			first := Identify(firstValue(payload))
			if first.Source != sh.Source {
				t.Fatalf("Identify says %v, of the first value alone %v", sh.Source, first.Source)
			}
			if len(g.records) > 0 && recordFirst(d, payload) {
				t.Fatalf("Identify says %v (%q), but the first value holds a record", sh.Source, sh)
			}
		}
	})
}

// firstValue returns payload's first JSON value (or all of it, when that
// cannot be told).
func firstValue(payload []byte) []byte {
	var d Decoder
	d.scan.Reset(payload)
	i := bomLen(payload)
	for i < len(payload) && (payload[i] == ' ' || payload[i] == '\n' || payload[i] == '\t' || payload[i] == '\r') {
		i++
	}
	if end := d.scan.SkipValue(i); end > 0 {
		return payload[:end]
	}
	return payload
}

// recordFirst reports whether the first value of payload alone decodes to
// a record.
func recordFirst(d *Decoder, payload []byte) bool {
	var g got
	_ = d.Decode(firstValue(payload), g.visitor())
	return len(g.records) > 0
}

// TestISOTimes: ApproximateCreationDateTime as AWS CLI v2 prints it, in
// any zone, reads as the same instant as epoch seconds; what is not an
// ISO 8601 time with its zone makes the record malformed, saying so.
func TestISOTimes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-22T10:00:00Z", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2026-11-22T11:00:00+01:00", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2026-11-22T05:30:00-04:30", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2026-11-22T10:00:00.250000+00:00", time.Date(2026, 11, 22, 10, 0, 0, 250_000_000, time.UTC)},
		{"2026-11-22 10:00:00.123456789123Z", time.Date(2026, 11, 22, 10, 0, 0, 123_456_789, time.UTC)},
		{"2026-11-22t10:00:00,5z", time.Date(2026, 11, 22, 10, 0, 0, 500_000_000, time.UTC)},
		{"2026-11-22T12:00:00+0200", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2026-11-22T12:00:00+02", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2024-02-29T00:00:00Z", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"2000-03-01T00:00:00Z", time.Date(2000, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"1970-01-01T00:00:00Z", time.Unix(0, 0).UTC()},
		{"1969-12-31T23:59:59Z", time.Unix(-1, 0).UTC()},
		{"0001-01-01T00:00:00Z", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"9999-12-31T23:59:59Z", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
	} {
		got, ok := parseISOTime([]byte(c.in))
		if !ok || !got.Equal(c.want) {
			t.Errorf("parseISOTime(%q) = %v, %v; want %v", c.in, got, ok, c.want)
		}
		g := mustDecode(t, DefaultConfig(), minimal("A", `,"ApproximateCreationDateTime":"`+c.in+`"`))
		if len(g.records) != 1 || !g.records[0].Time.Equal(c.want) {
			t.Errorf("a record at %q: %v, malformed %v", c.in, g.records, g.bad)
		}
	}
	for _, in := range []string{
		"2026-11-22T10:00:00", "2026-11-22", "2026-11-22T10:00Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
		"2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T10:60:00Z", "2026-11-22T10:00:60Z",
		"2026-11-22T10:00:00.Z", "2026-11-22T10:00:00+1:00", "2026-11-22T10:00:00+01:60", "2026-11-22T10:00:00 Z",
		"2026-11-22T10:00:00Zjunk", "2026-11-22X10:00:00Z", "２026-11-22T10:00:00Z", "1795309200", "",
	} {
		if got, ok := parseISOTime([]byte(in)); ok {
			t.Errorf("parseISOTime(%q) = %v, want refused", in, got)
		}
		g := mustDecode(t, DefaultConfig(), minimal("A", `,"ApproximateCreationDateTime":"`+in+`"`))
		if len(g.records) != 0 || len(g.bad) != 1 || !errors.Is(g.bad[0].Err, ErrFieldType) || !strings.Contains(g.bad[0].Err.Error(), "ISO 8601") {
			t.Errorf("a record at %q: records %v, malformed %v; want one malformed, naming ISO 8601", in, g.records, g.bad)
		}
	}
}

// FuzzISOTime: parseISOTime accepts exactly the RFC 3339 times with a
// 4-digit year that time.Parse accepts (beside the ISO 8601 spellings it
// also takes), and reads them as the same instant.
func FuzzISOTime(f *testing.F) {
	for _, s := range []string{"2026-11-22T10:00:00Z", "2026-11-22T11:00:00.5+01:00", "2024-02-29T23:59:59.999999999-12:00", "0000-01-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseISOTime([]byte(s))
		want, err := time.Parse(time.RFC3339Nano, s)
		if err == nil && (len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') {
			return // time.Parse is lenient (a one-digit hour): RFC 3339 is not
		}
		if z := s[max(0, len(s)-6):]; err == nil && len(z) == 6 && (z[0] == '+' || z[0] == '-') && (z[1:3] > "23" || z[4:] > "59") {
			return // so is it with offsets (+00:60)
		}
		if err == nil && (!ok || !got.Equal(want)) {
			t.Fatalf("parseISOTime(%q) = %v, %v; time.Parse: %v", s, got, ok, want)
		}
		if ok && err == nil && got.Nanosecond() != want.Nanosecond() {
			t.Fatalf("parseISOTime(%q) nanoseconds %d, want %d", s, got.Nanosecond(), want.Nanosecond())
		}
	})
}

// TestISOTimesCounted: the decoder says how many times it read as ISO
// 8601, so that a caller can say which format it read; the epoch path
// counts none.
func TestISOTimesCounted(t *testing.T) {
	d, _ := NewDecoder(DefaultConfig())
	var g got
	payload := minimal("A", `,"ApproximateCreationDateTime":"2026-11-22T10:00:00Z"`) + minimal("B", `,"ApproximateCreationDateTime":1795309200`) +
		minimal("C", `,"ApproximateCreationDateTime":"2026-11-22T10:00:01Z"`)
	if err := d.Decode([]byte(payload), g.visitor()); err != nil || len(g.records) != 3 {
		t.Fatalf("%v, %d records", err, len(g.records))
	}
	if d.ISOTimes() != 2 {
		t.Errorf("ISOTimes %d, want 2", d.ISOTimes())
	}
}

// TestGetRecordsOutput: the output of `aws dynamodbstreams get-records`
// names no table in its records; the stream ARN its NextShardIterator
// starts with does, and Config.Table stands in when nothing does. The
// API's spelling of a TTL delete's userIdentity is a TTL delete too.
func TestGetRecordsOutput(t *testing.T) {
	rec := `{"eventID":"1","eventName":"REMOVE","eventSource":"aws:dynamodb","dynamodb":{"ApproximateCreationDateTime":"2026-11-22T11:00:00+01:00",` +
		`"Keys":{"PK":{"S":"A"}},"OldImage":{"PK":{"S":"A"}},"SequenceNumber":"1","SizeBytes":9,"StreamViewType":"NEW_AND_OLD_IMAGES"},` +
		`"userIdentity":{"PrincipalId":"dynamodb.amazonaws.com","Type":"Service"}}`
	iter := `"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T00:00:00.000|1|AAAAAAAAAAHcHLKM"`
	for _, c := range []struct {
		name, payload, table, want string
	}{
		{"from the iterator", `{"Records":[` + rec + `],"NextShardIterator":` + iter + `}`, "", "Orders"},
		{"the iterator first", `{"NextShardIterator":` + iter + `,"Records":[` + rec + `]}`, "Other", "Orders"},
		{"from the flag", `{"Records":[` + rec + `],"NextShardIterator":null}`, "Other", "Other"},
		{"nothing", `{"Records":[` + rec + `],"NextShardIterator":null}`, "", ""},
		{"a record alone, from the flag", rec, "Other", "Other"},
		{"the record's own ARN wins", `{"Records":[` + strings.Replace(rec, `"eventID":"1",`, `"eventID":"1","eventSourceARN":"arn:aws:dynamodb:r:1:table/Mine/stream/x",`, 1) +
			`],"NextShardIterator":` + iter + `}`, "Other", "Mine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := mustDecode(t, Config{Table: c.table}, c.payload)
			if len(g.records) != 1 {
				t.Fatalf("%d records, malformed %v", len(g.records), g.bad)
			}
			r := g.records[0]
			if r.Table != c.want || !r.TTLDelete || r.WCU != 0 || !r.Time.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) {
				t.Errorf("table %q, TTL delete %v, WCU %d, time %v; want %q, a TTL delete (0 WCU) at 10:00 UTC", r.Table, r.TTLDelete, r.WCU, r.Time, c.want)
			}
		})
	}
	// A malformed record takes the table the same way.
	g := mustDecode(t, Config{Table: "Other"}, `{"Records":[{"eventName":"INSERT"}],"NextShardIterator":`+iter+`}`)
	if len(g.bad) != 1 || g.bad[0].Table != "Orders" {
		t.Errorf("malformed %+v, want one of table Orders", g.bad)
	}
}

// TestByteOrderMark: a payload that starts with a UTF-8 byte-order mark
// decodes as without it, and offsets still count from the payload's start.
func TestByteOrderMark(t *testing.T) {
	g := mustDecode(t, DefaultConfig(), "\xef\xbb\xbf"+minimal("A", ""))
	if pks(g) != "A" || len(g.bad) != 0 {
		t.Errorf("records %q, malformed %v", pks(g), g.bad)
	}
	_, err := decode(t, DefaultConfig(), "\xef\xbb\xbf{x")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 4 {
		t.Errorf("error %v, want a syntax error at byte 4", err)
	}
	d, _ := NewDecoder(DefaultConfig())
	if table := d.FirstTable([]byte("\xef\xbb\xbf" + minimal("A", ""))); table != "T" {
		t.Errorf("FirstTable after a byte-order mark: %q, want T", table)
	}
}

// TestMissingKeyError: a configured partition key that a record lacks is
// a MissingKeyError naming the record's key attributes, wrapping ErrKey.
func TestMissingKeyError(t *testing.T) {
	g := mustDecode(t, Config{PartitionKey: "createdAt"}, minimal("A", ""))
	var mk *MissingKeyError
	if len(g.bad) != 1 || !errors.As(g.bad[0].Err, &mk) || !errors.Is(g.bad[0].Err, ErrKey) {
		t.Fatalf("malformed %v, want one MissingKeyError", g.bad)
	}
	if diff := cmp.Diff(&MissingKeyError{PartitionKey: "createdAt", Keys: []string{"pk"}}, mk); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if want := `record: unusable key: partition key "createdAt" is not in dynamodb.Keys, which holds "pk"`; g.bad[0].Err.Error() != want {
		t.Errorf("message %q", g.bad[0].Err)
	}
}
