package record

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// got is everything a Decode call delivered, copied out of the decoder.
type got struct {
	calls   []string // "E", "R" or "M", in order
	events  []Event
	records []Record
	bad     []Malformed
}

func keep(r *Record) Record {
	c := *r
	c.EventID = bytes.Clone(r.EventID)
	c.SequenceNumber = bytes.Clone(r.SequenceNumber)
	c.PartitionKey.Value = bytes.Clone(r.PartitionKey.Value)
	c.SortKey.Value = bytes.Clone(r.SortKey.Value)
	return c
}

func (g *got) visitor() Visitor {
	return Visitor{
		Event: func(ev *Event) error { g.calls = append(g.calls, "E"); g.events = append(g.events, *ev); return nil },
		Record: func(r *Record) error {
			g.calls = append(g.calls, "R")
			g.records = append(g.records, keep(r))
			return nil
		},
		Malformed: func(m *Malformed) error { g.calls = append(g.calls, "M"); g.bad = append(g.bad, *m); return nil },
	}
}

func decode(t *testing.T, cfg Config, payload string) (*got, error) {
	t.Helper()
	d, err := NewDecoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var g got
	err = d.Decode([]byte(payload), g.visitor())
	return &g, err
}

func mustDecode(t *testing.T, cfg Config, payload string) *got {
	t.Helper()
	g, err := decode(t, cfg, payload)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return g
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeDynamoDBEvent(t *testing.T) {
	g := mustDecode(t, DefaultConfig(), readFile(t, "dynamodb-event.json"))
	if diff := cmp.Diff([]Event{{}}, g.events); diff != "" {
		t.Errorf("events (-want +got), want one plain envelope:\n%s", diff)
	}
	if len(g.bad) != 0 || len(g.records) != 3 {
		t.Fatalf("%d records, %d malformed (%v)", len(g.records), len(g.bad), g.bad)
	}
	// Sizes: "Message" 7 + "Id" 2 + N 101 3, plus the message.
	want := []Record{{
		Table: "ExampleTableWithStream", EventName: Insert,
		EventID: []byte("c4ca4238a0b923820dcc509a6f75849b"), SequenceNumber: []byte("4421584500000000017450439091"),
		Time: time.Unix(1428537600, 0).UTC(), StreamViewType: "NEW_AND_OLD_IMAGES",
		PartitionKey: ddb.Key{Type: ddb.Number, Value: []byte("101")}, KeysSize: 5, NewImageSize: 21, OldImageSize: -1,
		SizeBytes: 26, WCU: 1, WCUExact: true,
	}, {
		Table: "ExampleTableWithStream", EventName: Modify,
		EventID: []byte("c81e728d9d4c2f636f067f89cc14862c"), SequenceNumber: []byte("4421584500000000017450439092"),
		Time: time.Unix(1428537600, 250_000_000).UTC(), StreamViewType: "NEW_AND_OLD_IMAGES",
		PartitionKey: ddb.Key{Type: ddb.Number, Value: []byte("101")}, KeysSize: 5, NewImageSize: 33, OldImageSize: 21,
		SizeBytes: 59, WCU: 1, WCUExact: true,
	}, {
		Table: "ExampleTableWithStream", EventName: Remove,
		EventID: []byte("eccbc87e4b5ce2fe28308fd9f2a7baf3"), SequenceNumber: []byte("4421584500000000017450439093"),
		Time: time.Unix(1428537601, 0).UTC(), StreamViewType: "NEW_AND_OLD_IMAGES",
		PartitionKey: ddb.Key{Type: ddb.Number, Value: []byte("101")}, KeysSize: 5, NewImageSize: -1, OldImageSize: 33,
		SizeBytes: 38, WCU: 1, WCUExact: true,
	}}
	for k := range want {
		if diff := diffRecord(g.records[k], want[k]); diff != "" { // len(g.records) is 3: checked above
			t.Errorf("record %d: %s", k, diff)
		}
	}
}

// diffRecord names the fields where a and b differ.
// diffRecord compares two records whole: "" when they are equal, else
// the difference. A nil and an empty byte slice count as equal.
func diffRecord(got, want Record) string {
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		return "(-want +got):\n" + d
	}
	return ""
}

func fmtRecord(r Record) string {
	return strings.Join([]string{
		r.Table, r.Shard, r.EventName.String(), string(r.EventID), string(r.SequenceNumber), r.Time.String(),
		r.StreamViewType, string(r.PartitionKey.Type) + ":" + string(r.PartitionKey.Value),
		string(r.SortKey.Type) + ":" + string(r.SortKey.Value),
		"keys=" + itoa(r.KeysSize), "new=" + itoa(r.NewImageSize), "old=" + itoa(r.OldImageSize),
		"sizeBytes=" + itoa(int(r.SizeBytes)), "ttl=" + boolStr(r.TTLDelete), "wcu=" + itoa(int(r.WCU)), "exact=" + boolStr(r.WCUExact),
	}, " | ")
}

func itoa(n int) string { return strconv.Itoa(n) }

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestDecodeTimeWindowEvent(t *testing.T) {
	g := mustDecode(t, DefaultConfig(), readFile(t, "dynamodb-time-window-event.json"))
	if strings.Join(g.calls, "") != "ERR" {
		t.Fatalf("calls %v, want the event before its two records", g.calls)
	}
	wantEv := Event{
		WindowStart: time.Date(2020, 7, 30, 17, 0, 0, 0, time.UTC), WindowEnd: time.Date(2020, 7, 30, 17, 5, 0, 0, time.UTC),
		State: map[string]string{"1": "state1"}, ShardID: "shard123456789",
		EventSourceARN: "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2020-07-30T16:00:00.000",
		TimeWindow:     true,
	}
	if diff := cmp.Diff(wantEv, g.events[0]); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	for _, r := range g.records {
		// The records' own ARN is absent or names no table: the event's counts.
		if r.Shard != "shard123456789" || r.Table != "Orders" || !r.Time.IsZero() {
			t.Errorf("record %s: shard %q, table %q, time %v", r.EventID, r.Shard, r.Table, r.Time)
		}
	}
	// The same event with the window fields first, and flags set.
	g = mustDecode(t, DefaultConfig(), `{"isFinalInvokeForWindow":true,"isWindowTerminatedEarly":true,
		"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},"state":{},"shardId":"s-1",
		"Records":[`+minimal("A", "")+`]}`)
	if strings.Join(g.calls, "") != "ER" || g.records[0].Shard != "s-1" {
		t.Fatalf("calls %v, records %+v", g.calls, g.records)
	}
	wantEv = Event{
		WindowStart: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), WindowEnd: time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC),
		State: map[string]string{}, ShardID: "s-1", IsFinalInvokeForWindow: true, IsWindowTerminatedEarly: true, TimeWindow: true,
	}
	if diff := cmp.Diff(wantEv, g.events[0]); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}

// TestDecodeEventsDoNotLeak: nothing of one event's envelope carries over
// to the next event, in the same payload or the next one.
func TestDecodeEventsDoNotLeak(t *testing.T) {
	full := `{"isFinalInvokeForWindow":true,"isWindowTerminatedEarly":true,"eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/T/stream/x",` +
		`"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},"state":{"k":"v"},"shardId":"s-1","Records":[` + minimal("A", "") + `]}`
	plain := `{"Records":[` + minimal("B", "") + `]}`
	fullEv := Event{
		WindowStart: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), WindowEnd: time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC),
		State: map[string]string{"k": "v"}, ShardID: "s-1", EventSourceARN: "arn:aws:dynamodb:eu-west-1:1:table/T/stream/x",
		IsFinalInvokeForWindow: true, IsWindowTerminatedEarly: true, TimeWindow: true,
	}
	d, err := NewDecoder(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		payload string
		events  []Event
		shards  []string
	}{
		{full + "\n" + plain, []Event{fullEv, {}}, []string{"s-1", ""}},
		{plain, []Event{{}}, []string{""}}, // the same decoder, a new payload
	} {
		var g got
		if err := d.Decode([]byte(tc.payload), g.visitor()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.events, g.events); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		var shards []string
		for _, r := range g.records {
			shards = append(shards, r.Shard)
		}
		if diff := cmp.Diff(tc.shards, shards); diff != "" {
			t.Errorf("records' shards (-want +got):\n%s", diff)
		}
	}
}

// minimal is a small well-formed INSERT record of partition key pk.
func minimal(pk, extra string) string {
	return `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"` + pk + `"}},"NewImage":{"pk":{"S":"` + pk +
		`"}},"StreamViewType":"NEW_AND_OLD_IMAGES","SequenceNumber":"1"` + extra +
		`},"eventSourceARN":"arn:aws:dynamodb:eu-west-1:1:table/T/stream/x"}`
}

func pks(g *got) string {
	var s []string
	for _, r := range g.records {
		s = append(s, string(r.PartitionKey.Value))
	}
	return strings.Join(s, ",")
}

func TestDecodeShapes(t *testing.T) {
	cases := []struct {
		name, payload, calls, keys string
	}{
		{"single record", minimal("A", ""), "R", "A"},
		{"NDJSON of records", minimal("A", "") + "\n" + minimal("B", "") + "\r\n\n" + minimal("C", "") + "\n", "RRR", "A,B,C"},
		{"records back to back", minimal("A", "") + minimal("B", ""), "RR", "A,B"},
		{"array of records", "[" + minimal("A", "") + " , " + minimal("B", "") + "]", "RR", "A,B"},
		{"array of events", `[{"Records":[` + minimal("A", "") + `]},{"Records":[]},{"Records":[` + minimal("B", "") + "," + minimal("C", "") + `]}]`, "EREERR", "A,B,C"},
		{"NDJSON of events", `{"Records":[` + minimal("A", "") + "]}\n" + `{"Records":[` + minimal("B", "") + "]}", "ERER", "A,B"},
		{"empty payload", "  \n", "", ""},
		{"empty array", "[]", "", ""},
		{"null Records", `{"Records":null}`, "E", ""},
		{"scalars are not records", `1 "x" null true [2,[]] ` + minimal("A", ""), "MMMMMMR", "A"},
		{"mixed array", "[" + minimal("A", "") + `,{"Records":[` + minimal("B", "") + `]}]`, "RER", "A,B"},
		{"two Records keys", `{"Records":[` + minimal("A\\u0041", "") + `],"Records":[` + minimal("B\\u0042", "") + `]}`, "ERR", "AA,BB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustDecode(t, DefaultConfig(), c.payload)
			if strings.Join(g.calls, "") != c.calls || pks(g) != c.keys {
				t.Errorf("calls %v keys %q, want %q %q; malformed %v", g.calls, pks(g), c.calls, c.keys, g.bad)
			}
		})
	}
}

func TestDecodeViewTypes(t *testing.T) {
	keys := `"Keys":{"pk":{"S":"K"}}`
	big := `{"pk":{"S":"K"},"d":{"S":"` + strings.Repeat("x", 3000) + `"}}` // 2+1 + 1+3000 = 3004 bytes: 3 WCU
	small := `{"pk":{"S":"K"}}`                                             // 3 bytes
	rec := func(ev, view, images string) string {
		return `{"eventName":"` + ev + `","dynamodb":{` + keys + images + `,"StreamViewType":"` + view + `"}}`
	}
	cases := []struct {
		name, rec  string
		newS, oldS int
		wcu        uint64
		exact      bool
	}{
		{"keys only insert", rec("INSERT", "KEYS_ONLY", ""), -1, -1, 1, false},
		{"keys only remove", rec("REMOVE", "KEYS_ONLY", ""), -1, -1, 1, false},
		{"new image insert", rec("INSERT", "NEW_IMAGE", `,"NewImage":`+big), 3004, -1, 3, true},
		{"new image modify", rec("MODIFY", "NEW_IMAGE", `,"NewImage":`+big), 3004, -1, 3, false},
		{"new image remove", rec("REMOVE", "NEW_IMAGE", ""), -1, -1, 1, false},
		{"old image modify", rec("MODIFY", "OLD_IMAGE", `,"OldImage":`+big), -1, 3004, 3, false},
		{"old image remove", rec("REMOVE", "OLD_IMAGE", `,"OldImage":`+big), -1, 3004, 3, true},
		{"old image insert", rec("INSERT", "OLD_IMAGE", ""), -1, -1, 1, false},
		{"both, shrinking", rec("MODIFY", "NEW_AND_OLD_IMAGES", `,"NewImage":`+small+`,"OldImage":`+big), 3, 3004, 3, true},
		{"both, growing", rec("MODIFY", "NEW_AND_OLD_IMAGES", `,"NewImage":`+big+`,"OldImage":`+small), 3004, 3, 3, true},
		{"null images", rec("MODIFY", "NEW_AND_OLD_IMAGES", `,"NewImage":null,"OldImage":null`), -1, -1, 1, false},
	}
	for _, c := range cases {
		g := mustDecode(t, DefaultConfig(), c.rec)
		if len(g.records) != 1 {
			t.Errorf("%s: %v", c.name, g.bad)
			continue
		}
		r := g.records[0]
		if r.NewImageSize != c.newS || r.OldImageSize != c.oldS || r.WCU != c.wcu || r.WCUExact != c.exact || r.KeysSize != 3 {
			t.Errorf("%s: new %d old %d keys %d wcu %d exact %v; want %d %d 3 %d %v",
				c.name, r.NewImageSize, r.OldImageSize, r.KeysSize, r.WCU, r.WCUExact, c.newS, c.oldS, c.wcu, c.exact)
		}
	}
}

func TestDecodeTTLDelete(t *testing.T) {
	service := `"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}`
	rec := func(ev, identity string) string {
		return `{"eventName":"` + ev + `",` + identity + `,"dynamodb":{"Keys":{"pk":{"S":"K"}},"OldImage":{"pk":{"S":"K"},"d":{"S":"` +
			strings.Repeat("y", 2000) + `"}},"NewImage":{"pk":{"S":"K"}}}}`
	}
	cases := []struct {
		name, rec string
		ttl       bool
		wcu       uint64
	}{
		{"TTL delete", rec("REMOVE", service), true, 0},
		{"user delete", rec("REMOVE", `"userIdentity":null`), false, 2},
		{"other principal", rec("REMOVE", `"userIdentity":{"type":"Service","principalId":"lambda.amazonaws.com"}`), false, 2},
		{"other type", rec("REMOVE", `"userIdentity":{"type":"User","principalId":"dynamodb.amazonaws.com"}`), false, 2},
		{"identity on a modify", rec("MODIFY", service), false, 2},
		{"escaped identity", rec("REMOVE", `"userIdentity":{"principalId":"dynamodb.amazonaws\u002ecom","type":"Ser\u0076ice"}`), true, 0},
	}
	for _, c := range cases {
		g := mustDecode(t, DefaultConfig(), c.rec)
		if len(g.records) != 1 || g.records[0].TTLDelete != c.ttl || g.records[0].WCU != c.wcu || !g.records[0].WCUExact {
			t.Errorf("%s: %+v %v", c.name, g.records, g.bad)
		}
	}
}

func TestDecodeKeys(t *testing.T) {
	rec := func(keys string) string {
		return `{"eventName":"INSERT","dynamodb":{"Keys":` + keys + `}}`
	}
	cases := []struct {
		name, pkName, keys string
		pk, sk             ddb.Key
		keysSize           int
	}{
		{"S", "", `{"id":{"S":"USER#1"}}`, ddb.Key{Type: ddb.String, Value: []byte("USER#1")}, ddb.Key{}, 2 + 6},
		{"S escaped", "", `{"id":{"S":"caf\u00e9 \ud83d\ude00\n"}}`, ddb.Key{Type: ddb.String, Value: []byte("café 😀\n")}, ddb.Key{}, 2 + 11},
		{"N canonical", "", `{"id":{"N":"+10.0"}}`, ddb.Key{Type: ddb.Number, Value: []byte("10")}, ddb.Key{}, 2 + 2},
		{"N E-notation", "", `{"id":{"N":"1.50E+3"}}`, ddb.Key{Type: ddb.Number, Value: []byte("1500")}, ddb.Key{}, 2 + 2},
		{"N negative zero", "", `{"id":{"N":"-0.0"}}`, ddb.Key{Type: ddb.Number, Value: []byte("0")}, ddb.Key{}, 2 + 1},
		{"B decoded", "", `{"id":{"B":"AAEC/w=="}}`, ddb.Key{Type: ddb.Binary, Value: []byte{0, 1, 2, 255}}, ddb.Key{}, 2 + 4},
		{"B escaped", "", `{"id":{"B":"AAEC\/w=="}}`, ddb.Key{Type: ddb.Binary, Value: []byte{0, 1, 2, 255}}, ddb.Key{}, 2 + 4},
		{"named, sort key second", "pk", `{"pk":{"S":"A"},"sk":{"N":"5"}}`, ddb.Key{Type: ddb.String, Value: []byte("A")}, ddb.Key{Type: ddb.Number, Value: []byte("5")}, 3 + 4},
		{"named, sort key first", "pk", `{"sk":{"N":"5"},"pk":{"S":"A"}}`, ddb.Key{Type: ddb.String, Value: []byte("A")}, ddb.Key{Type: ddb.Number, Value: []byte("5")}, 3 + 4},
		{"named, escaped name", "pk", `{"s\u006b":{"B":"AQ=="},"\u0070k":{"S":"A"}}`, ddb.Key{Type: ddb.String, Value: []byte("A")}, ddb.Key{Type: ddb.Binary, Value: []byte{1}}, 3 + 3},
		{"named, no sort key", "pk", `{"pk":{"S":"A"}}`, ddb.Key{Type: ddb.String, Value: []byte("A")}, ddb.Key{}, 3},
	}
	for _, c := range cases {
		g := mustDecode(t, Config{PartitionKey: c.pkName}, rec(c.keys))
		if len(g.records) != 1 {
			t.Errorf("%s: %v", c.name, g.bad)
			continue
		}
		r := g.records[0]
		if r.PartitionKey.Type != c.pk.Type || !bytes.Equal(r.PartitionKey.Value, c.pk.Value) ||
			r.SortKey.Type != c.sk.Type || !bytes.Equal(r.SortKey.Value, c.sk.Value) || r.KeysSize != c.keysSize {
			t.Errorf("%s: pk %c %q sk %c %q size %d; want %c %q %c %q %d", c.name,
				r.PartitionKey.Type, r.PartitionKey.Value, r.SortKey.Type, r.SortKey.Value, r.KeysSize,
				c.pk.Type, c.pk.Value, c.sk.Type, c.sk.Value, c.keysSize)
		}
		if r.SortKey.Present() != (c.sk.Type != 0) || !r.PartitionKey.Present() {
			t.Errorf("%s: Present() wrong", c.name)
		}
	}
}

func TestDecodeAmbiguousKey(t *testing.T) {
	two := `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"},"sk":{"S":"B"}}},` +
		`"eventSourceARN":"arn:aws:dynamodb:us-east-1:1:table/Orders/stream/x"}`
	g, err := decode(t, DefaultConfig(), minimal("first", "")+"\n"+two+"\n"+minimal("after", ""))
	var ae *AmbiguousKeyError
	if !errors.As(err, &ae) || ae.Table != "Orders" || ae.Attributes != [2]string{"pk", "sk"} {
		t.Fatalf("err = %v, want *AmbiguousKeyError for Orders", err)
	}
	for _, want := range []string{"Orders", `"pk"`, `"sk"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if pks(g) != "first" {
		t.Errorf("records before the error: %q", pks(g))
	}
	// An error in the middle of an event's Records leaves nothing behind
	// for the next payload.
	d0, _ := NewDecoder(DefaultConfig())
	var g0 got
	if err := d0.Decode([]byte(`{"Records":[`+minimal("A", "")+","+two+`]}`), g0.visitor()); !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	if strings.Join(g0.calls, "") != "ER" {
		t.Errorf("calls before the error: %v", g0.calls)
	}
	g0 = got{}
	if err := d0.Decode([]byte(`7 `+minimal("B", "")), g0.visitor()); err != nil || strings.Join(g0.calls, "") != "MR" {
		t.Errorf("next decode: %v, calls %v", err, g0.calls)
	}
	// Once the Lambda has looked the key schema up, the same payload decodes.
	d, _ := NewDecoder(DefaultConfig())
	d.SetPartitionKey("sk")
	var g2 got
	if err := d.Decode([]byte(two), g2.visitor()); err != nil || pks(&g2) != "B" || string(g2.records[0].SortKey.Value) != "A" {
		t.Fatalf("after SetPartitionKey: %v, %q", err, pks(&g2))
	}
}

// Every malformed record is reported with its cause, and the records
// around it are still decoded.
func TestDecodeMalformed(t *testing.T) {
	good := minimal("good", "")
	cases := []struct {
		name, rec string
		err       error
	}{
		{"missing eventName", `{"dynamodb":{"Keys":{"pk":{"S":"A"}}}}`, ErrMissingField},
		{"missing dynamodb", `{"eventName":"INSERT"}`, ErrMissingField},
		{"null dynamodb", `{"eventName":"INSERT","dynamodb":null}`, ErrMissingField},
		{"missing Keys", `{"eventName":"INSERT","dynamodb":{"NewImage":{}}}`, ErrMissingField},
		{"empty object", `{}`, ErrMissingField},
		{"eventName number", `{"eventName":1,"dynamodb":{"Keys":{"pk":{"S":"A"}}}}`, ErrFieldType},
		{"unknown eventName", `{"eventName":"UPSERT","dynamodb":{"Keys":{"pk":{"S":"A"}}}}`, ErrEventName},
		{"dynamodb array", `{"eventName":"INSERT","dynamodb":[]}`, ErrFieldType},
		{"Keys string", `{"eventName":"INSERT","dynamodb":{"Keys":"pk"}}`, ErrFieldType},
		{"image array", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"NewImage":[]}}`, ErrFieldType},
		{"SizeBytes string", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"SizeBytes":"1"}}`, ErrFieldType},
		{"SizeBytes fraction", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"SizeBytes":1.5}}`, ErrFieldType},
		{"time string", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"ApproximateCreationDateTime":"now"}}`, ErrFieldType},
		{"time out of range", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"ApproximateCreationDateTime":1e300}}`, ErrFieldType},
		{"eventID number", `{"eventName":"INSERT","eventID":7,"dynamodb":{"Keys":{"pk":{"S":"A"}}}}`, ErrFieldType},
		{"userIdentity string", `{"eventName":"INSERT","userIdentity":"x","dynamodb":{"Keys":{"pk":{"S":"A"}}}}`, ErrFieldType},
		{"unknown type tag", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"NewImage":{"a":{"X":"1"}}}}`, ErrAttributeValue},
		{"two type tags", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"NewImage":{"a":{"S":"1","N":"1"}}}}`, ErrAttributeValue},
		{"bad number", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"OldImage":{"a":{"N":"1.2.3"}}}}`, ErrNumber},
		{"bad base64", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"NewImage":{"a":{"B":"abc"}}}}`, ErrBase64},
		{"too deep", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"A"}},"NewImage":` + nested(65) + `}}`, ErrTooDeep},
		{"key BOOL", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"BOOL":true}}}}`, ErrKey},
		{"key M", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"M":{}}}}}`, ErrKey},
		{"key bad number", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"N":"x"}}}}`, ErrNumber},
		{"key bad base64", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"B":"A"}}}}`, ErrBase64},
		{"key not string", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":5}}}}`, ErrAttributeValue},
		{"key two tags", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"a","N":"1"}}}}`, ErrAttributeValue},
		{"key not object", `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":"A"}}}`, ErrAttributeValue},
		{"empty Keys", `{"eventName":"INSERT","dynamodb":{"Keys":{}}}`, ErrKey},
		{"three keys", `{"eventName":"INSERT","dynamodb":{"Keys":{"a":{"S":"A"},"b":{"S":"B"},"c":{"S":"C"}}}}`, ErrKey},
		{"not an object", `"record"`, ErrNotRecord},
		{"nested array", `[1]`, ErrNotRecord},
	}
	for _, c := range cases {
		for _, shape := range []string{"ndjson", "event"} {
			payload := good + "\n" + c.rec + "\n" + good
			if shape == "event" {
				payload = `{"Records":[` + good + "," + c.rec + "," + good + `]}`
			}
			g := mustDecode(t, DefaultConfig(), payload)
			wantCalls := "RMR"
			if shape == "event" {
				wantCalls = "ERMR"
			}
			if got := strings.Join(g.calls, ""); got != wantCalls {
				t.Errorf("%s (%s): calls %s, want %s", c.name, shape, got, wantCalls)
			}
			if pks(g) != "good,good" || len(g.bad) != 1 || !errors.Is(g.bad[0].Err, c.err) {
				t.Errorf("%s (%s): records %q, malformed %v; want %v", c.name, shape, pks(g), g.bad, c.err)
				continue
			}
			want := int64(strings.Index(payload, c.rec))
			if c.name == "nested array" && shape == "ndjson" {
				want++ // a top-level array is a batch: its element 1 is the bad record
			}
			if g.bad[0].Offset != want {
				t.Errorf("%s (%s): offset %d, want %d", c.name, shape, g.bad[0].Offset, want)
			}
		}
	}
	// A named partition key that a record does not have.
	g := mustDecode(t, Config{PartitionKey: "id"}, good)
	if len(g.bad) != 1 || !errors.Is(g.bad[0].Err, ErrKey) || !strings.HasSuffix(g.bad[0].Err.Error(), `partition key "id" is not in dynamodb.Keys, which holds "pk"`) {
		t.Errorf("missing named key (its error names the Keys there are): %v", g.bad)
	}
	// What could be read is kept for the logs.
	g = mustDecode(t, DefaultConfig(), `{"eventID":"e-1","eventName":"NOPE","dynamodb":{"SequenceNumber":"42"},`+
		`"eventSourceARN":"arn:aws:dynamodb:us-east-1:1:table/Orders/stream/x"}`)
	if len(g.bad) != 1 || g.bad[0].EventID != "e-1" || g.bad[0].SequenceNumber != "42" || g.bad[0].Table != "Orders" {
		t.Errorf("malformed = %+v", g.bad)
	}
}

func TestDecodeEnvelopeErrors(t *testing.T) {
	for _, env := range []string{`"window":5`, `"window":{"start":"yesterday"}`, `"state":[1]`, `"state":{"a":1}`,
		`"shardId":5`, `"isFinalInvokeForWindow":"yes"`, `"isWindowTerminatedEarly":1`, `"Records":{}`} {
		g := mustDecode(t, DefaultConfig(), `{`+env+`,"Records":[`+minimal("A", "")+`]}`)
		if strings.Join(g.calls, "") != "EMR" || !errors.Is(g.bad[0].Err, ErrEnvelope) {
			t.Errorf("%s: calls %v, malformed %v", env, g.calls, g.bad)
		}
	}
}

func TestDecodeSyntaxError(t *testing.T) {
	cases := []struct {
		payload string
		offset  int64
		records int
	}{
		{`not json`, 0, 0},
		{minimal("A", "") + "\n{\"eventName\":", int64(len(minimal("A", ""))) + 14, 1},
		{`{"Records":[` + minimal("A", "") + `,` + minimal("B", "") + `,{"eventName":"INSERT",,}]}`, -1, 2},
		{`{"Records":[` + minimal("A", "") + `]`, -1, 1}, // a cut-off event still delivers what it had
		{`{"Records":[` + minimal("A", "") + `]} trailing`, -1, 1},
		{`[` + minimal("A", "") + ` ` + minimal("B", "") + `]`, -1, 1},
		{"{\"eventName\":\"INS\x00ERT\"}", 17, 0},
		{`{"a":01}`, 6, 0},
		{`{"a":-}`, 5, 0},
		{`{"a":1.}`, 5, 0},
		{`{"a":[1 2]}`, 8, 0},
		{`{"a":"\x"}`, 6, 0},
		{`{"a" 1}`, 5, 0},
		{`{"a":nul}`, 5, 0},
		{`{1:2}`, 1, 0},
		{`]`, 0, 0},
	}
	for _, c := range cases {
		g, err := decode(t, DefaultConfig(), c.payload)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want *SyntaxError", c.payload, err)
			continue
		}
		if c.offset >= 0 && se.Offset != c.offset {
			t.Errorf("%q: offset %d, want %d (%v)", c.payload, se.Offset, c.offset, err)
		}
		if !strings.Contains(err.Error(), "byte ") {
			t.Errorf("%q: %q does not name the byte offset", c.payload, err)
		}
		if len(g.records) != c.records {
			t.Errorf("%q: %d records before the error, want %d", c.payload, len(g.records), c.records)
		}
	}
}

func TestDecoderReuseAndConfig(t *testing.T) {
	if err := (Config{PartitionKey: strings.Repeat("k", 256)}).Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("256-byte name: %v", err)
	}
	if _, err := NewDecoder(Config{PartitionKey: "\xff"}); !errors.Is(err, ErrConfig) {
		t.Errorf("non-UTF-8 name: %v", err)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
	var zero Decoder // the zero Decoder works too
	n := 0
	for range 3 {
		if err := zero.Decode([]byte(readFile(t, "dynamodb-event.json")), Visitor{Record: func(r *Record) error { n++; return nil }}); err != nil {
			t.Fatal(err)
		}
	}
	if n != 9 {
		t.Errorf("%d records in three decodes, want 9", n)
	}
	// A nil visitor is fine.
	if err := zero.Decode([]byte(readFile(t, "dynamodb-time-window-event.json")), Visitor{}); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeRepeatedFields: the decoder settles a record's ARN, view type
// and event name by comparing with the previous record's; a value that
// differs, is a prefix of the last one, or is the same text escaped must
// still decode as itself.
func TestDecodeRepeatedFields(t *testing.T) {
	arn := func(table string) string { return `arn:aws:dynamodb:us-east-1:1:table/` + table + `/stream/x` }
	rec := func(ev, arn, view string) string {
		return `{"eventName":"` + ev + `","dynamodb":{"Keys":{"pk":{"S":"K"}},"StreamViewType":"` + view +
			`"},"eventSourceARN":"` + arn + `"}`
	}
	want := []struct{ ev, arn, table, view string }{
		{"INSERT", arn("Orders"), "Orders", "NEW_IMAGE"},
		{"MODIFY", arn("Orders"), "Orders", "NEW_IMAGE"},
		{"REMOVE", arn("Orders2"), "Orders2", "KEYS_ONLY"},
		{"INSERT", arn("Orders2")[:len(arn("Orders2"))-2], "Orders2", "KEYS_ONL"},
		{"INSERT", `arn:aws:dynamodb:us-east-1:1:table\/Orders\/stream\/x`, "Orders", "NEW_AND_OLD_IMAGES"},
		{"MODIFY", arn("Orders"), "Orders", "NEW_AND_OLD_IMAGES"},
		{"MODIFY", arn("Ordersx"), "Ordersx", `NEW_\u0041ND_OLD_IMAGES`},
	}
	var recs []string
	for _, w := range want {
		recs = append(recs, rec(w.ev, w.arn, w.view))
	}
	g := mustDecode(t, DefaultConfig(), `{"Records":[`+strings.Join(recs, ",")+`]}`)
	if len(g.records) != len(want) {
		t.Fatalf("%d records, want %d (malformed: %v)", len(g.records), len(want), g.bad)
	}
	for k, w := range want {
		r := g.records[k]
		view := strings.ReplaceAll(w.view, `\u0041`, "A")
		if r.EventName.String() != w.ev || r.Table != w.table || r.StreamViewType != view {
			t.Errorf("record %d: %s %s %s, want %s %s %s", k, r.EventName, r.Table, r.StreamViewType, w.ev, w.table, view)
		}
	}
}

// TestDecodeScratchBounded: an event reserves scratch for the records it
// may hold, but a replay file of many events must not reserve for all of
// them at once.
func TestDecodeScratchBounded(t *testing.T) {
	event := `{"Records":[{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"K"}}}}]}` + "\n"
	payload := []byte(strings.Repeat(event, 1_000_000)) // 75 MB
	d, err := NewDecoder(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := d.Decode(payload, Visitor{Record: func(*Record) error { n++; return nil }}); err != nil {
		t.Fatal(err)
	}
	if n != 1_000_000 {
		t.Fatalf("%d records, want 1,000,000", n)
	}
	if c := cap(d.scratch); c > 2*maxLambdaPayload/8 {
		t.Errorf("scratch capacity %d B after a %d-byte replay, want at most %d", c, len(payload), 2*maxLambdaPayload/8)
	}
}

// TestDecodeStopsAtVisitorError checks the Visitor contract: the first
// error a func returns stops the decoding, nothing more is delivered, and
// Decode returns that very error, whatever shape the payload has.
func TestDecodeStopsAtVisitorError(t *testing.T) {
	bad := `{"eventName":"NOPE","dynamodb":{"Keys":{"pk":{"S":"M"}}}}`
	cases := []struct {
		name, payload string
		stopAt        string // the call whose func fails: "E", "R" or "M"
		nth           int    // at its nth occurrence (1-based)
		calls         string // what was delivered, the failing call included
	}{
		{"second of three records", minimal("A", "") + minimal("B", "") + minimal("C", ""), "R", 2, "RR"},
		{"record in an array", "[" + minimal("A", "") + "," + minimal("B", "") + "]", "R", 1, "R"},
		{"queued record of an event", `{"Records":[` + minimal("A", "") + "," + minimal("B", "") + `]}` + minimal("C", ""), "R", 1, "ER"},
		{"event", `{"Records":[` + minimal("A", "") + `]}{"Records":[]}`, "E", 1, "E"},
		{"malformed record in an event", `{"Records":[` + bad + "," + minimal("B", "") + `]}`, "M", 1, "EM"},
		{"malformed top-level value", `1 ` + minimal("A", ""), "M", 1, "M"},
		{"malformed in an array", `[2,` + minimal("A", "") + `]`, "M", 1, "M"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stop := errors.New("visitor says stop")
			var calls []string
			count := func(kind string) error {
				calls = append(calls, kind)
				if kind == c.stopAt && strings.Count(strings.Join(calls, ""), kind) == c.nth {
					return stop
				}
				return nil
			}
			d, err := NewDecoder(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			err = d.Decode([]byte(c.payload), Visitor{
				Event:     func(*Event) error { return count("E") },
				Record:    func(*Record) error { return count("R") },
				Malformed: func(*Malformed) error { return count("M") },
			})
			if err != stop {
				t.Errorf("Decode returned %v, want the visitor's own error, unwrapped", err)
			}
			if got := strings.Join(calls, ""); got != c.calls {
				t.Errorf("calls %q, want %q", got, c.calls)
			}
			// The decoder is usable again afterwards.
			g := &got{}
			if err := d.Decode([]byte(minimal("Z", "")), g.visitor()); err != nil || pks(g) != "Z" {
				t.Errorf("after a stop, Decode = %v with keys %q, want Z", err, pks(g))
			}
		})
	}
}
