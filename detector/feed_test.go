package detector

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/record"
)

// feedRecord is the JSON of one stream record of table T; at < 0 leaves
// ApproximateCreationDateTime out.
func feedRecord(table, pk string, at int64) string {
	when := ""
	if at >= 0 {
		when = fmt.Sprintf(`,"ApproximateCreationDateTime":%d`, at)
	}
	return `{"eventID":"id-` + pk + `","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/` + table +
		`/stream/x","dynamodb":{"Keys":{"pk":{"S":"` + pk + `"}},"NewImage":{"pk":{"S":"` + pk +
		`"}},"StreamViewType":"NEW_AND_OLD_IMAGES","SequenceNumber":"1"` + when + `}}`
}

// malformedRecord has no table and no eventName.
const malformedRecord = `{"eventID":"bad","dynamodb":{"Keys":{"pk":{"S":"x"}}}}`

// seenBy is what a sink was given, in order.
type seenBy struct {
	added     []string // "table/pk@unix shard"
	malformed []string // tables
	panicOn   string   // pk whose Add panics
	failOn    string   // pk whose Add returns an error
}

func (s *seenBy) Add(r *record.Record) error {
	switch string(r.PartitionKey.Value) {
	case s.panicOn:
		panic("sink bug")
	case s.failOn:
		return errors.New("sink refused")
	}
	s.added = append(s.added, fmt.Sprintf("%s/%s@%d %s", r.Table, r.PartitionKey.Value, r.Time.Unix(), r.Shard))
	return nil
}

func (s *seenBy) AddMalformed(table string) { s.malformed = append(s.malformed, table) }

// dedupingSink is a seenBy that has seen the records of partition key seen.
type dedupingSink struct {
	seenBy
	seen       string
	duplicates []string // the tables AddDuplicate was given
}

func (s *dedupingSink) Seen(r *record.Record) bool { return string(r.PartitionKey.Value) == s.seen }

func (s *dedupingSink) AddDuplicate(table string) { s.duplicates = append(s.duplicates, table) }

func newTestFeed(t *testing.T, now time.Time) *Feed {
	t.Helper()
	dec, err := record.NewDecoder(record.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return NewFeed(dec, func() time.Time { return now })
}

func TestFeed(t *testing.T) {
	now := time.Unix(2000, 0)
	tests := []struct {
		name    string
		payload string
		sink    seenBy
		hooks   Hooks
		want    seenBy
		counts  Counts
	}{
		{
			name: "a record without a time takes the one before it; the first, the clock's",
			payload: feedRecord("T", "a", -1) + feedRecord("T", "b", 1000) + feedRecord("T", "c", -1) +
				feedRecord("T", "d", 1060),
			want:   seenBy{added: []string{"T/a@2000 ", "T/b@1000 ", "T/c@1000 ", "T/d@1060 "}},
			counts: Counts{Records: 4},
		},
		{
			name:    "a malformed record counts against the table before it",
			payload: malformedRecord + feedRecord("T", "a", 1000) + malformedRecord + feedRecord("U", "b", 1000) + malformedRecord,
			want:    seenBy{added: []string{"T/a@1000 ", "U/b@1000 "}, malformed: []string{"", "T", "U"}},
			counts:  Counts{Records: 2, Malformed: 3},
		},
		{
			name:    "the shard given wins",
			payload: `{"Records":[` + feedRecord("T", "a", 1000) + `],"shardId":"from-event"}`,
			hooks:   Hooks{Shard: "shard-1"},
			want:    seenBy{added: []string{"T/a@1000 shard-1"}},
			counts:  Counts{Records: 1},
		},
		{
			name:    "a sink that panics or refuses is an internal error, and the feed goes on",
			payload: feedRecord("T", "a", 1000) + feedRecord("T", "boom", 1000) + feedRecord("T", "no", 1000) + feedRecord("T", "c", 1000),
			sink:    seenBy{panicOn: "boom", failOn: "no"},
			hooks:   Hooks{Internal: func(*InternalError) {}},
			want:    seenBy{added: []string{"T/a@1000 ", "T/c@1000 "}, panicOn: "boom", failOn: "no"},
			counts:  Counts{Records: 2, Internal: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := tt.sink
			got, err := newTestFeed(t, now).Decode([]byte(tt.payload), &sink, tt.hooks)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.counts, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, sink, cmp.AllowUnexported(seenBy{})); diff != "" {
				t.Errorf("sink (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFeedInternalErrors checks that a bug is told apart from bad input:
// never counted as malformed, passed to the hook with its stack, or, with
// no hook, returned and the feed stopped.
func TestFeedInternalErrors(t *testing.T) {
	payload := []byte(feedRecord("T", "a", 1000) + feedRecord("T", "boom", 1000) + feedRecord("T", "c", 1000))

	var got []*InternalError
	sink := &seenBy{panicOn: "boom"}
	c, err := newTestFeed(t, time.Unix(0, 0)).Decode(payload, sink, Hooks{Internal: func(ie *InternalError) { got = append(got, ie) }})
	if err != nil || len(got) != 1 || c != (Counts{Records: 2, Internal: 1}) || len(sink.malformed) != 0 {
		t.Fatalf("with a hook: err %v, %d internal errors, counts %+v, malformed %v", err, len(got), c, sink.malformed)
	}
	ie := got[0]
	if ie.EventID != "id-boom" || ie.Cause != "sink bug" || !strings.Contains(string(ie.Stack), "detector.(*seenBy).Add") || !errors.Is(ie, ErrInternal) {
		t.Errorf("internal error %q (cause %q) with stack:\n%s", ie.EventID, ie.Cause, ie.Stack)
	}

	sink = &seenBy{panicOn: "boom"}
	c, err = newTestFeed(t, time.Unix(0, 0)).Decode(payload, sink, Hooks{})
	var stopped *InternalError
	if !errors.As(err, &stopped) || stopped.EventID != "id-boom" || c != (Counts{Records: 1}) || len(sink.added) != 1 {
		t.Errorf("without a hook: err %v, counts %+v, added %v; want the feed stopped at the bug", err, c, sink.added)
	}

	// A panicking clock is a bug in record handling too.
	dec, _ := record.NewDecoder(record.DefaultConfig())
	f := NewFeed(dec, func() time.Time { panic("clock bug") })
	sink = &seenBy{}
	c, err = f.Decode([]byte(feedRecord("T", "a", -1)+feedRecord("T", "b", 1000)), sink, Hooks{Internal: func(*InternalError) {}})
	if err != nil || c != (Counts{Records: 1, Internal: 1}) {
		t.Errorf("panicking clock: err %v, counts %+v", err, c)
	}
}

// TestFeedEventChoosesTheSink: each event's records go where the Event hook
// says, or to Decode's sink when it says nil; a sink that dedupes is asked
// of each record, and a sink that does not is not.
func TestFeedEventChoosesTheSink(t *testing.T) {
	plain := &seenBy{}
	tumbling := &dedupingSink{seen: "b"}
	var events []string
	payload := `{"Records":[` + feedRecord("T", "a", 1000) + `,` + feedRecord("T", "b", 1000) + `]}` +
		`{"Records":[` + feedRecord("T", "b", 1001) + `,` + malformedRecord + `,` + feedRecord("T", "c", 1002) + `],` +
		`"window":{"start":"1970-01-01T00:16:00Z","end":"1970-01-01T00:17:00Z"}}` +
		`{"Records":[` + feedRecord("T", "d", 1003) + `]}`
	c, err := newTestFeed(t, time.Unix(0, 0)).Decode([]byte(payload), plain, Hooks{Event: func(ev *record.Event) (Sink, error) {
		events = append(events, fmt.Sprint(ev.TimeWindow))
		if ev.TimeWindow {
			return tumbling, nil
		}
		return nil, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Records: 4, Duplicates: 1, Malformed: 1}); c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	if diff := cmp.Diff([]string{"false", "true", "false"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := seenBy{added: []string{"T/a@1000 ", "T/b@1000 ", "T/d@1003 "}}
	if diff := cmp.Diff(want, *plain, cmp.AllowUnexported(seenBy{})); diff != "" {
		t.Errorf("Decode's sink (-want +got):\n%s", diff)
	}
	want = seenBy{added: []string{"T/c@1002 "}, malformed: []string{"T"}}
	if diff := cmp.Diff(want, tumbling.seenBy, cmp.AllowUnexported(seenBy{})); diff != "" {
		t.Errorf("the event's sink (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"T"}, tumbling.duplicates); diff != "" {
		t.Errorf("duplicates counted (-want +got):\n%s", diff)
	}
}

func TestFeedStopsAtEventHookError(t *testing.T) {
	stop := errors.New("stop")
	sink := &seenBy{}
	payload := `{"Records":[` + feedRecord("T", "a", 1000) + `]}`
	_, err := newTestFeed(t, time.Unix(0, 0)).Decode([]byte(payload), sink, Hooks{Event: func(*record.Event) (Sink, error) { return nil, stop }})
	if err != stop || len(sink.added) != 0 {
		t.Errorf("err %v, added %v; want the hook's error and nothing added", err, sink.added)
	}
}
