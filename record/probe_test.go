package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestFirstTable(t *testing.T) {
	const (
		arnA = `"arn:aws:dynamodb:eu-west-1:123456789012:table/Shop/stream/2026-11-22T10:00:00.000"`
		arnB = `"arn:aws:dynamodb:eu-west-1:123456789012:table/Other/stream/2026-11-22T10:00:00.000"`
		rec  = `{"eventID":"1","eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"a"}},"NewImage":{"eventSourceARN":{"S":"x:table/Image"}}},"eventSourceARN":`
	)
	for _, c := range []struct {
		name, payload, want string
	}{
		{"a Lambda event: the first record's ARN, after its images", `{"Records":[` + rec + arnA + `},` + rec + arnB + `}]}`, "Shop"},
		{"a time-window event", `{"Records":[` + rec + arnA + `}],"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},"state":{},"shardId":"s"}`, "Shop"},
		{"the first record has no ARN", `{"Records":[{"eventID":"1"},` + rec + arnB + `}]}`, "Other"},
		{"an ARN that names no table is passed over", `{"Records":[{"eventSourceARN":"arn:aws:kinesis:x"},` + rec + arnB + `}]}`, "Other"},
		{"an ARN that is not a string is passed over", `{"Records":[{"eventSourceARN":7},` + rec + arnB + `}]}`, "Other"},
		{"the event's own ARN comes first", `{"eventSourceARN":` + arnB + `,"Records":[` + rec + arnA + `}]}`, "Other"},
		{"a record alone", rec + arnA + `}`, "Shop"},
		{"an array of records", `[` + rec + arnA + `}]`, "Shop"},
		{"an array of events, the first without a table", `[{"Records":[]},{"Records":[` + rec + arnB + `}]}]`, "Other"},
		{"an escaped ARN", `{"Records":[{"eventSourceARN":"arn:aws:dynamodb:r:1:table\/Esc\u0061ped/stream/x"}]}`, "Escaped"},
		{"whitespace everywhere", " {\n \"Records\" : [ { \"eventSourceARN\" : " + arnA + " } ] } ", "Shop"},
		{"no ARN at all", `{"Records":[{"eventID":"1"}]}`, ""},
		{"empty events", `{"Records":[]} {}`, ""},
		{"not JSON before the ARN", `{"Records":[{"eventID":1 2}]}`, ""},
		{"not JSON after the ARN: it stops at the ARN", `{"Records":[` + rec + arnA + `}, nonsense`, "Shop"},
		{"not an object", `"Records"`, ""},
		{"empty", ``, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := NewDecoder(Config{})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.FirstTable([]byte(c.payload)); got != c.want {
				t.Errorf("FirstTable = %q, want %q", got, c.want)
			}
			if ref, ok := firstTableReference([]byte(c.payload)); ok && ref != c.want {
				t.Errorf("the reference says %q, the case %q", ref, c.want)
			}
		})
	}
}

// FuzzFirstTable checks FirstTable against firstTableReference, built on
// encoding/json, wherever the payload's first value is JSON.
func FuzzFirstTable(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		d, _ := NewDecoder(Config{})
		got := d.FirstTable(payload)
		if want, ok := firstTableReference(payload); ok && got != want {
			t.Fatalf("FirstTable = %q, encoding/json finds %q", got, want)
		}
		if again := d.FirstTable(payload); again != got {
			t.Fatalf("FirstTable = %q, then %q", got, again)
		}
	})
}

// firstTableReference is FirstTable by encoding/json's tokens, which keep
// members in order (a map would keep the last of two equal names). ok is
// false when the first value is not JSON, or not UTF-8 where FirstTable
// and encoding/json may differ.
func firstTableReference(payload []byte) (table string, ok bool) {
	var first json.RawMessage
	if json.NewDecoder(bytes.NewReader(payload)).Decode(&first) != nil {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(first))
	tok, _ := dec.Token()
	switch tok {
	case json.Delim('{'):
		return refObject(dec, true), true
	case json.Delim('['):
		return refArray(dec, true), true
	}
	return "", true
}

func refObject(dec *json.Decoder, event bool) string {
	for dec.More() {
		tok, _ := dec.Token()
		name, _ := tok.(string)
		switch {
		case name == "eventSourceARN":
			var v any
			dec.Decode(&v)
			if arn, isString := v.(string); isString {
				if t := refTableName(arn); t != "" {
					return t
				}
			}
			continue
		case event && name == "Records":
			var raw json.RawMessage
			dec.Decode(&raw)
			if len(raw) > 0 && raw[0] == '[' {
				inner := json.NewDecoder(bytes.NewReader(raw))
				inner.Token()
				if t := refArray(inner, false); t != "" {
					return t
				}
			}
			continue
		}
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	dec.Token() // '}'
	return ""
}

func refArray(dec *json.Decoder, event bool) string {
	for dec.More() {
		var raw json.RawMessage
		dec.Decode(&raw)
		if len(raw) > 0 && raw[0] == '{' {
			inner := json.NewDecoder(bytes.NewReader(raw))
			inner.Token()
			if t := refObject(inner, event); t != "" {
				return t
			}
		}
	}
	return ""
}

func refTableName(arn string) string {
	_, name, ok := strings.Cut(arn, ":table/")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "/")
	return name
}
