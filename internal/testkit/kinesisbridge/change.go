// Package kinesisbridge is test support for the second source of issue 32:
// it turns DynamoDB stream records into what Kinesis Data Streams for
// DynamoDB delivers, as AWS documents and real streams show it
// (docs/kinesis.md), so that the same workload can be fed once as DynamoDB
// stream events and once as Kinesis events.
//
//   - FromStreamEvent converts the records of a Lambda DynamoDB Streams
//     event (events/*.json, or what package streams reads from DynamoDB
//     Local) into Kinesis change records: a pure function.
//   - Spread places change records on Kinesis shards, by a route the test
//     chooses (AWS does not document its own), with seeded duplicates and
//     shuffling: deterministic for a seed.
//   - AppendEvent and AppendWindowEvent write the Lambda Kinesis events of a
//     shard's records (plain and tumbling window).
//   - Put writes them to a live stream (kinesalite), shard by shard, and
//     ReadDynamoDBStream reads a DynamoDB Local stream to start from.
//
// go run ./internal/testkit/kinesisgen makes events/kinesis/ with it.
package kinesisbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// Precision is how a change record writes ApproximateCreationDateTime.
type Precision uint8

// The precisions Kinesis Data Streams for DynamoDB writes (its
// ApproximateCreationDateTimePrecision setting, MICROSECOND by default).
const (
	// Microsecond: epoch microseconds (16 digits) and
	// "ApproximateCreationDateTimePrecision":"MICROSECOND".
	Microsecond Precision = iota
	// Millisecond: epoch milliseconds (13 digits) and
	// "ApproximateCreationDateTimePrecision":"MILLISECOND".
	Millisecond
	// Legacy: epoch milliseconds and no precision field, as records were
	// before the setting existed.
	Legacy
)

func (p Precision) String() string {
	switch p {
	case Microsecond:
		return "MICROSECOND"
	case Millisecond:
		return "MILLISECOND"
	case Legacy:
		return "legacy milliseconds"
	}
	return fmt.Sprintf("Precision(%d)", uint8(p))
}

// Change is one DynamoDB change record as Kinesis Data Streams for DynamoDB
// writes it into a Kinesis record's data.
type Change struct {
	EventID string          // the change record's eventID
	Table   string          // tableName
	Keys    json.RawMessage // dynamodb.Keys, as the stream record had them
	Created time.Time       // ApproximateCreationDateTime, to the microsecond
	Data    []byte          // the JSON document: what a Kinesis record carries
}

// ErrNotStreamEvent is wrapped by FromStreamEvent's errors.
var ErrNotStreamEvent = errors.New("kinesisbridge: not a Lambda DynamoDB Streams event")

// streamEvent is the part of a Lambda DynamoDB Streams event (plain or
// tumbling window) a change record is made from.
type streamEvent struct {
	Records        []streamRecord `json:"Records"`
	EventSourceARN string         `json:"eventSourceARN"` // a tumbling window's
}

type streamRecord struct {
	EventID        string          `json:"eventID"`
	EventName      string          `json:"eventName"`
	AWSRegion      string          `json:"awsRegion"`
	EventSourceARN string          `json:"eventSourceARN"`
	UserIdentity   json.RawMessage `json:"userIdentity"`
	Dynamodb       struct {
		ApproximateCreationDateTime json.Number     `json:"ApproximateCreationDateTime"`
		Keys                        json.RawMessage `json:"Keys"`
		NewImage                    json.RawMessage `json:"NewImage"`
		OldImage                    json.RawMessage `json:"OldImage"`
		SizeBytes                   json.Number     `json:"SizeBytes"`
	} `json:"dynamodb"`
}

// FromStreamEvent converts every record of payload, one Lambda DynamoDB
// Streams event ({"Records":[...]}, with or without the tumbling-window
// fields), into the change record Kinesis Data Streams for DynamoDB would
// carry for it, in order:
//
//	{"awsRegion":…,"eventID":…,"eventName":…,"userIdentity":…|null,
//	 "recordFormat":"application/json","tableName":…,
//	 "dynamodb":{"ApproximateCreationDateTime":…,"Keys":…,"NewImage":…,
//	   "OldImage":…,"SizeBytes":…,"ApproximateCreationDateTimePrecision":…},
//	 "eventSource":"aws:dynamodb"}
//
// in that field order, as captured streams show it. There is no
// SequenceNumber and no StreamViewType. The table is the stream ARN's; the
// eventID a 32-hex-digit stream eventID written as a UUID (Kinesis change
// records carry UUIDs), anything else kept; Keys, images and userIdentity
// are copied as they are (compacted).
func FromStreamEvent(payload []byte, p Precision) ([]Change, error) {
	var ev streamEvent
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&ev); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotStreamEvent, err)
	}
	out := make([]Change, 0, len(ev.Records))
	for i := range ev.Records {
		c, err := fromStreamRecord(&ev.Records[i], ev.EventSourceARN, p)
		if err != nil {
			return nil, fmt.Errorf("kinesisbridge: record %d (%s): %w", i, ev.Records[i].EventID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// fromStreamRecord builds one change record from one stream record.
//
// Long because it copies the record's fields one by one in the order real
// change records hold them, which reads best as one list.
func fromStreamRecord(r *streamRecord, eventARN string, p Precision) (Change, error) {
	arn := r.EventSourceARN
	if arn == "" {
		arn = eventARN
	}
	table := TableOfStream(arn)
	if table == "" {
		return Change{}, fmt.Errorf("eventSourceARN %q is not a DynamoDB stream's", arn)
	}
	d := &r.Dynamodb
	if len(d.Keys) == 0 {
		return Change{}, errors.New("no dynamodb.Keys")
	}
	created, err := epochMicros(string(d.ApproximateCreationDateTime))
	if err != nil {
		return Change{}, fmt.Errorf("ApproximateCreationDateTime: %w", err)
	}
	c := Change{EventID: uuidShaped(r.EventID), Table: table, Created: time.UnixMicro(created).UTC()}
	if c.Keys, err = compact(d.Keys); err != nil {
		return Change{}, fmt.Errorf("dynamodb.Keys: %w", err)
	}

	b := append([]byte(nil), `{"awsRegion":`...)
	b = jsonscan.AppendQuoted(b, r.AWSRegion)
	b = append(b, `,"eventID":`...)
	b = jsonscan.AppendQuoted(b, c.EventID)
	b = append(b, `,"eventName":`...)
	b = jsonscan.AppendQuoted(b, r.EventName)
	b = append(b, `,"userIdentity":`...)
	if id, err := compact(r.UserIdentity); err != nil {
		return Change{}, fmt.Errorf("userIdentity: %w", err)
	} else if len(id) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"recordFormat":"application/json","tableName":`...)
	b = jsonscan.AppendQuoted(b, table)
	b = append(b, `,"dynamodb":{"ApproximateCreationDateTime":`...)
	switch p {
	case Microsecond:
		b = fmt.Appendf(b, "%d", created)
	default:
		b = fmt.Appendf(b, "%d", created/1000) // cut, as a coarser clock reads
	}
	b = append(b, `,"Keys":`...)
	b = append(b, c.Keys...)
	for _, img := range []struct {
		name string
		raw  json.RawMessage
	}{{"NewImage", d.NewImage}, {"OldImage", d.OldImage}} {
		if len(img.raw) == 0 || string(img.raw) == "null" {
			continue
		}
		v, err := compact(img.raw)
		if err != nil {
			return Change{}, fmt.Errorf("dynamodb.%s: %w", img.name, err)
		}
		b = append(b, `,"`+img.name+`":`...)
		b = append(b, v...)
	}
	if d.SizeBytes != "" {
		b = append(b, `,"SizeBytes":`...)
		b = append(b, d.SizeBytes...)
	}
	if p != Legacy {
		b = append(b, `,"ApproximateCreationDateTimePrecision":"`+p.String()+`"`...)
	}
	c.Data = append(b, `},"eventSource":"aws:dynamodb"}`...)
	return c, nil
}

// TableOfStream returns the table of a DynamoDB stream ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL), or "".
func TableOfStream(arn string) string {
	_, rest, ok := strings.Cut(arn, ":table/")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "/stream/")
	if !ok {
		return ""
	}
	return name
}

// epochMicros converts epoch seconds as Lambda writes them (an integer, a
// decimal fraction, or exponent notation) to epoch microseconds, exactly,
// cutting what is finer.
func epochMicros(s string) (int64, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok || s == "" {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	r.Mul(r, big.NewRat(1_000_000, 1))
	q := new(big.Int).Quo(r.Num(), r.Denom()) // toward zero
	if !q.IsInt64() {
		return 0, fmt.Errorf("%q seconds is out of range", s)
	}
	return q.Int64(), nil
}

// uuidShaped writes a 32-hex-digit ID as a UUID (8-4-4-4-12).
func uuidShaped(id string) string {
	if len(id) != 32 || strings.Trim(id, "0123456789abcdefABCDEF") != "" {
		return id
	}
	return id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
}

func compact(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
