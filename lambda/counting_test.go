package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// countingRecord is an INSERT of item pk (sort key SK) at second sec of
// the hour; id and seq are its eventID and SequenceNumber, left out when "".
func countingRecord(id, seq, pk string, sec int) string {
	var fields []string
	if id != "" {
		fields = append(fields, fmt.Sprintf(`"eventID":%q`, id))
	}
	dynamodb := fmt.Sprintf(`"ApproximateCreationDateTime":%d,"Keys":{"PK":{"S":%q},"SK":{"S":"x"}},"NewImage":{"PK":{"S":%q},"SK":{"S":"x"}},"SizeBytes":20,"StreamViewType":"NEW_AND_OLD_IMAGES"`,
		time.Date(2026, 11, 22, 10, 0, sec, 0, time.UTC).Unix(), pk, pk)
	if seq != "" {
		dynamodb += fmt.Sprintf(`,"SequenceNumber":%q`, seq)
	}
	fields = append(fields, `"eventName":"INSERT"`, `"eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/Orders/stream/x"`, `"dynamodb":{`+dynamodb+`}`)
	return "{" + strings.Join(fields, ",") + "}"
}

// malformedRecord names its table but has no Keys.
const malformedRecord = `{"eventID":"bad","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/Orders/stream/x","dynamodb":{"SequenceNumber":"1"}}`

// TestEveryRecordCountedOnce: a record is counted once, whatever the batch
// looks like. A record without a SequenceNumber (tumbling) or an eventID
// (plain) cannot be told apart from another one, so it is counted, never
// taken for a duplicate. A malformed record before the first record of a
// plain batch is counted once, although the batch is decoded again after
// the partition key's lookup (and delivered again after a lookup that
// failed).
func TestEveryRecordCountedOnce(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	type counts struct{ records, malformed uint64 }
	for _, tc := range []struct {
		name     string
		tumbling bool
		records  []string
		lookups  []error // the key-schema lookup's answers, in turn
		want     counts
	}{
		{"tumbling, a record without a SequenceNumber", true,
			[]string{countingRecord("a", "100", "A", 1), countingRecord("b", "", "B", 2), countingRecord("c", "300", "C", 3)}, nil, counts{3, 0}},
		{"tumbling, without any", true,
			[]string{countingRecord("a", "", "A", 1), countingRecord("b", "", "B", 2)}, nil, counts{2, 0}},
		{"plain, records without an eventID", false,
			[]string{countingRecord("", "100", "A", 1), countingRecord("", "200", "B", 2), countingRecord("", "300", "C", 3)}, nil, counts{3, 0}},
		{"plain, a malformed record first, the key looked up", false,
			[]string{malformedRecord, countingRecord("a", "100", "A", 1)}, []error{nil}, counts{1, 1}},
		{"plain, a malformed record first, the lookup throttled twice", false,
			[]string{malformedRecord, countingRecord("a", "100", "A", 1)},
			[]error{&smithy.GenericAPIError{Code: "ThrottlingException"}, &smithy.GenericAPIError{Code: "ThrottlingException"}, nil}, counts{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pk := "PK"
			if tc.lookups != nil {
				pk = "" // looked up when the first record shows two key attributes
			}
			schemas := &scriptedSchemas{answers: tc.lookups}
			pub := &capture{}
			clock := start.Add(time.Minute)
			h, err := newHandler(detector.DefaultConfig(), pk, indexesOff, schemas, pub, slog.New(slog.DiscardHandler), func() time.Time { return clock })
			if err != nil {
				t.Fatal(err)
			}
			if tc.tumbling {
				if _, err := h.Invoke(context.Background(), tumblingEvent(tc.records, map[string]string{}, start, true)); err != nil {
					t.Fatal(err)
				}
			} else {
				payload := fmt.Appendf(nil, `{"Records":[%s]}`, strings.Join(tc.records, ","))
				for attempt := range len(tc.lookups) + 1 {
					_, err := h.Invoke(context.Background(), payload)
					if err == nil {
						break
					}
					if attempt == len(tc.lookups) {
						t.Fatalf("attempt %d: %v", attempt, err)
					}
				}
				clock = start.Add(time.Hour) // the window closes by the clock
				if _, err := h.Invoke(context.Background(), []byte(`{"Records":[]}`)); err != nil {
					t.Fatal(err)
				}
			}
			got := map[string]counts{}
			for _, r := range pub.reps {
				got[r.Table] = counts{r.Records, r.Malformed}
			}
			if want := map[string]counts{"Orders": tc.want}; !maps.Equal(got, want) {
				t.Errorf("reported %v, want %v", got, want)
			}
		})
	}
}

// scriptedSchemas answers key-schema lookups with answers in turn (nil:
// the table's schema, keys PK and SK), then with the schema.
type scriptedSchemas struct{ answers []error }

func (s *scriptedSchemas) Lookup(_ context.Context, table string) (keyschema.Schema, error) {
	if len(s.answers) > 0 {
		err := s.answers[0]
		s.answers = s.answers[1:]
		if err != nil {
			return keyschema.Schema{}, err
		}
	}
	return keyschema.Schema{Table: table, PartitionKey: "PK", SortKey: "SK"}, nil
}

// TestPlainWindowClosesByTheClock: a plain batch's window is published by
// the clock once it is a window plus the lateness past the window's end
// (docs/lambda.md, "Plain batches"), not before, so that a quiet table's last
// window comes out with the next batch, however empty.
func TestPlainWindowClosesByTheClock(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := detector.DefaultConfig() // 60 s windows, 60 s lateness
	closes := start.Add(cfg.Window + cfg.Window + cfg.Lateness)
	pub := &capture{}
	clock := start.Add(10 * time.Second)
	h, err := newHandler(cfg, "PK", indexesOff, &scriptedSchemas{}, pub, slog.New(slog.DiscardHandler), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Invoke(context.Background(), fmt.Appendf(nil, `{"Records":[%s]}`, countingRecord("a", "1", "A", 5))); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{closes.Add(-time.Second), closes} {
		clock = at
		if _, err := h.Invoke(context.Background(), []byte(`{"Records":[]}`)); err != nil {
			t.Fatal(err)
		}
		if published, want := len(pub.reps) > 0, !at.Before(closes); published != want {
			t.Errorf("at %s: window published %v, want %v", at.Format(time.TimeOnly), published, want)
		}
	}
}
