package clientwatch

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"
)

// TestWireRead: read finds the top-level ConsumedCapacity wherever it
// lies, reads every object of it, and cuts exactly the member and one
// comma, leaving the body DynamoDB sends a caller who did not ask. What
// it cannot read it leaves alone. It reads no further than the member: a
// duplicate after it (DynamoDB sends none) is left to the SDK, and taken
// out of the decoded output instead.
func TestWireRead(t *testing.T) {
	type capOut struct {
		Table string
		Units float64
	}
	for _, tc := range []struct {
		name, body, want string
		caps             []capOut
	}{
		{"last", `{"Item":{"pk":{"S":"a"}},"ConsumedCapacity":{"TableName":"T","CapacityUnits":1.5,"Table":{"CapacityUnits":0.5}}}`,
			`{"Item":{"pk":{"S":"a"}}}`, []capOut{{"T", 0.5}}},
		{"first", `{"ConsumedCapacity":{"CapacityUnits":2,"TableName":"T"},"Count":0,"Items":[]}`,
			`{"Count":0,"Items":[]}`, []capOut{{"T", 2}}},
		{"alone", `{"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`, `{}`, []capOut{{"T", 1}}},
		{"middle, whitespace", "{ \"A\" : 1 ,\n \"ConsumedCapacity\" : { \"TableName\" : \"T\" , \"CapacityUnits\" : 3E-1 } , \"B\" : [ ] }\n",
			"{ \"A\" : 1 , \"B\" : [ ] }\n", []capOut{{"T", 0.3}}},
		{"array", `{"ConsumedCapacity":[{"TableName":"A","CapacityUnits":1,"Table":{"ReadCapacityUnits":1}},{"TableName":"B","CapacityUnits":2,"Table":{"CapacityUnits":1.5}}],"UnprocessedKeys":{}}`,
			`{"UnprocessedKeys":{}}`, []capOut{{"A", 1}, {"B", 1.5}}},
		{"twice", `{"ConsumedCapacity":{"TableName":"T","CapacityUnits":1},"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`, ``, nil},
		{"twice, apart: the second is the SDK's", `{"A":1,"ConsumedCapacity":{"TableName":"T","CapacityUnits":1},"B":2,"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`,
			`{"A":1,"B":2,"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`, []capOut{{"T", 1}}},
		{"first, then what is not read", `{"ConsumedCapacity":{"TableName":"T","CapacityUnits":1},"Items":[{"a":}]}`, `{"Items":[{"a":}]}`, []capOut{{"T", 1}}},
		{"last, whitespace", "{\"A\":[1] ,\n\"ConsumedCapacity\" : {\"TableName\":\"T\",\"CapacityUnits\":1} }\n", "{\"A\":[1] }\n", []capOut{{"T", 1}}},
		{"last, a nested one before it", `{"X":{"ConsumedCapacity":1},"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`,
			`{"X":{"ConsumedCapacity":1}}`, []capOut{{"T", 1}}},
		{"last, the name as a value before it", `{"X":"ConsumedCapacity","ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`,
			`{"X":"ConsumedCapacity"}`, []capOut{{"T", 1}}},
		{"last, an escaped one first", `{"Consumed\u0043apacity":{"TableName":"T","CapacityUnits":1},"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`, ``, nil},
		{"last, an escaped one before it", `{"A":1,"Consumed\u0043apacity":{"TableName":"T","CapacityUnits":1},"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`,
			`{"A":1,"ConsumedCapacity":{"TableName":"T","CapacityUnits":2}}`, []capOut{{"T", 1}}},
		{"last, in a nested object", `{"X":{"A":1,"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}}`, ``, nil},
		{"last, after no member", `{,"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`, ``, nil},
		{"last, then more: found from the start", `{"A":1,"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}x`, `{"A":1}x`, []capOut{{"T", 1}}},
		{"empty array", `{"ConsumedCapacity":[]}`, `{}`, nil},
		{"nested one is not the member", `{"X":{"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}}`, ``, nil},
		{"escaped table name", `{"ConsumedCapacity":{"TableName":"\u0054","CapacityUnits":1}}`, ``, nil},
		{"string units", `{"ConsumedCapacity":{"TableName":"T","CapacityUnits":"1"}}`, ``, nil},
		{"null", `{"ConsumedCapacity":null}`, ``, nil},
		{"not JSON", `{"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}`, ``, nil},
		{"gzip bytes", "\x1f\x8b\x08\x00", ``, nil},
		{"empty", ``, ``, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st callState
			body := []byte(tc.body)
			start, end, ok := st.read(body)
			if ok != (tc.want != "") {
				t.Fatalf("ok = %v, want %v", ok, tc.want != "")
			}
			if !ok {
				return
			}
			got := string(append(body[:start:start], body[end:]...))
			var caps []capOut
			for _, c := range st.caps {
				units := c.total
				if c.hasTable {
					units = c.table
				}
				caps = append(caps, capOut{string(st.names[c.nameStart:c.nameEnd]), units})
			}
			if got != tc.want || !cmp.Equal(caps, tc.caps) {
				t.Errorf("body %q, capacity %+v; want %q, %+v", got, caps, tc.want, tc.caps)
			}
		})
	}
}

// FuzzWireRead: on any body read never panics, and when it cuts, the cut
// is exactly the top-level ConsumedCapacity member: what is left is valid
// JSON with every other member, in order, byte for byte.
func FuzzWireRead(f *testing.F) {
	f.Add(`{"Item":{"pk":{"S":"a"}},"ConsumedCapacity":{"TableName":"T","CapacityUnits":1.5,"Table":{"CapacityUnits":0.5}}}`)
	f.Add(`{"ConsumedCapacity":[{"TableName":"A","CapacityUnits":1}],"X":[1,2,{"ConsumedCapacity":1}]}`)
	f.Add(`{ "a" : "\u00e9" , "ConsumedCapacity" : { "TableName" : "T" , "CapacityUnits" : 1 } }`)
	f.Add(`{"X":{"A":1,"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}},"ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`)
	f.Add(`{"A":"x\\","ConsumedCapacity":{"TableName":"T","CapacityUnits":1}}`)
	f.Fuzz(func(t *testing.T, body string) {
		var st callState
		b := []byte(body)
		start, end, ok := st.read(b)
		if !ok {
			return
		}
		if fs, fe, vs, ve, found := st.findLast(b); found && json.Valid(b) && json.Valid(b[vs:ve]) {
			// Found from the end, its value one value, on valid JSON:
			// where the scan from the start finds it.
			if ss, se, _, _, sfound := st.find(b); !sfound || ss != fs || se != fe {
				t.Fatalf("from the end [%d:%d], from the start [%d:%d] (%v) in %q", fs, fe, ss, se, sfound, body)
			}
		}
		// The member cut is a top-level ConsumedCapacity: the body without
		// it is the body with its first such member removed.
		var in []member
		if !members(b, &in) {
			return // not a JSON object: what read cuts from it the SDK refuses alike
		}
		cut := append(b[:start:start], b[end:]...)
		var out []member
		if !members(cut, &out) {
			t.Fatalf("left %q, not a JSON object", cut)
		}
		i := slices.IndexFunc(in, func(m member) bool { return m.name == "ConsumedCapacity" })
		if i < 0 || !slices.Equal(slices.Delete(in, i, i+1), out) {
			t.Fatalf("left %q from %q", cut, body)
		}
	})
}

// TestNumber: capacity units read as ParseFloat reads them, the short
// decimals by number's own loop and the rest by ParseFloat.
func TestNumber(t *testing.T) {
	for _, tc := range []string{"0", "0.5", "1.0", "12.5", "3", "100000000000000", "0.000000000000001", "123456789012345",
		"1234567890123456", "0.1", "0.3", "2.675", "-1.5", "1e2", "3E-1", "0.30000000000000004", "9007199254740993"} {
		want, _ := strconv.ParseFloat(tc, 64)
		if got, ok := number([]byte(tc)); !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("number(%q) = %v, %v; want %v", tc, got, ok, want)
		}
	}
	for _, tc := range []string{"", "x", "+1", ".5"} {
		if got, ok := number([]byte(tc)); ok {
			t.Errorf("number(%q) = %v, want not a number", tc, got)
		}
	}
}

// FuzzNumber: on any JSON number, number reads what ParseFloat reads,
// bit for bit.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0.5", "12.0", "1e5", "123456789.012345", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || dec.More() {
			return
		}
		n, isNumber := v.(json.Number)
		if !isNumber || string(n) != s {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		got, ok := number([]byte(s))
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("number(%q) = %v, %v; ParseFloat: %v, %v", s, got, ok, want, err)
		}
	})
}

// errorResponse is an HTTP 400 answer with body and, when errType is not
// empty, the x-amzn-ErrorType header.
func errorResponse(errType, body string) *smithyhttp.Response {
	h := http.Header{}
	if errType != "" {
		h.Set("X-Amzn-Errortype", errType)
	}
	return &smithyhttp.Response{Response: &http.Response{StatusCode: 400, Header: h, Body: io.NopCloser(strings.NewReader(body))}}
}

// member is one member of a JSON object, its value compacted.
type member struct{ name, value string }

// members reads the members of a JSON object, in order, duplicates kept.
func members(b []byte, out *[]member) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		var c bytes.Buffer
		if json.Compact(&c, v) != nil {
			return false
		}
		*out = append(*out, member{k.(string), c.String()})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// TestReadError: an error answer is noted as a throttled attempt when
// DynamoDB throttled the request (with the reasons it gave, however the
// member is spelt) or items of a transaction; the SDK then reads the body
// as it came.
func TestReadError(t *testing.T) {
	const pfx = `com.amazonaws.dynamodb.v20120810#`
	for _, tc := range []struct {
		name, header, body string
		want               []throttledAttempt
	}{
		{"provisioned throughput", "", `{"__type":"` + pfx + `ProvisionedThroughputExceededException","message":"m","ThrottlingReasons":[{"reason":"TableReadKeyRangeThroughputExceeded","resource":"arn"}]}`,
			[]throttledAttempt{{reasons: []string{"TableReadKeyRangeThroughputExceeded"}}}},
		{"throttling exception, lower-case member, two reasons", "", `{"__type":"` + pfx + `ThrottlingException","throttlingReasons":[{"reason":"A","resource":"x"},{"resource":"y","reason":"B"}]}`,
			[]throttledAttempt{{reasons: []string{"A", "B"}}}},
		{"request limit, no reasons", "", `{"__type":"` + pfx + `RequestLimitExceeded","message":"m"}`, []throttledAttempt{{}}},
		{"the header alone", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/", `not JSON`, []throttledAttempt{{}}},
		{"transaction items", "", `{"__type":"` + pfx + `TransactionCanceledException","CancellationReasons":[{"Code":"None"},{"Code":"ThrottlingError","Message":"m"},{"Code":"ConditionalCheckFailed"},{"Code":"ThrottlingError"}]}`,
			[]throttledAttempt{{items: []int{1, 3}, tx: true}}},
		{"a transaction cancelled by its condition", "", `{"__type":"` + pfx + `TransactionCanceledException","CancellationReasons":[{"Code":"ConditionalCheckFailed"}]}`, nil},
		{"a condition failure", "", `{"__type":"` + pfx + `ConditionalCheckFailedException","message":"m"}`, nil},
		{"validation", "", `{"__type":"com.amazon.coral.validate#ValidationException","message":"m"}`, nil},
		{"an escaped type is left to the header", "ValidationException", `{"__type":"` + pfx + `Throttling\u0045xception"}`, nil},
	} {
		var st callState
		resp := errorResponse(tc.header, tc.body)
		st.readError(resp)
		body, err := io.ReadAll(resp.Body)
		if err != nil || string(body) != tc.body {
			t.Errorf("%s: the SDK reads %q, %v; want the body as it came", tc.name, body, err)
		}
		if diff := cmp.Diff(tc.want, st.throttles, cmp.AllowUnexported(throttledAttempt{})); diff != "" || st.panics != 0 {
			t.Errorf("%s: throttled attempts (-want +got):\n%s\npanics %d", tc.name, diff, st.panics)
		}
	}
}

// FuzzReadError: any error body is read without a panic, and handed to
// the SDK byte for byte.
func FuzzReadError(f *testing.F) {
	f.Add(`{"__type":"x#ThrottlingException","ThrottlingReasons":[{"reason":"r"}]}`)
	f.Add(`{"__type":"x#TransactionCanceledException","CancellationReasons":[{"Code":"ThrottlingError"},null,1]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var st callState
		resp := errorResponse("", body)
		st.readError(resp)
		got, err := io.ReadAll(resp.Body)
		if err != nil || string(got) != body || st.panics != 0 {
			t.Fatalf("the SDK reads %q, %v (panics %d); want %q", got, err, st.panics, body)
		}
	})
}

// TestWireReadIndexes: a capacity object's index breakdown is read, and a
// window is charged its own: a global index's units, or the table's and a
// local index's together.
func TestWireReadIndexes(t *testing.T) {
	body := []byte(`{"Items":[],"ConsumedCapacity":{"TableName":"T","CapacityUnits":3.5,"Table":{"CapacityUnits":1.0},` +
		`"LocalSecondaryIndexes":{"byL":{"CapacityUnits":0.5}},"GlobalSecondaryIndexes":{"byG":{"CapacityUnits":2.0}}}}`)
	st := &callState{}
	if _, _, ok := st.read(body); !ok || len(st.caps) != 1 {
		t.Fatalf("read: %v, %d caps", ok, len(st.caps))
	}
	st.ok = true
	r := &recorder{st: st, wins: []callWindow{{key: windowKey{"T", ""}}, {key: windowKey{"T", "byG"}}, {key: windowKey{"T", ""}, lsi: "byL"}}}
	var got []float64
	for win := range r.wins {
		got = append(got, r.wireUnits(&st.caps[0], win))
	}
	if diff := cmp.Diff([]float64{1, 2, 1.5}, got); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	// The same object decoded by the SDK (a caller who asked for it).
	f := func(v float64) *float64 { return &v }
	cc := &types.ConsumedCapacity{TableName: aws.String("T"), CapacityUnits: f(3.5), Table: &types.Capacity{CapacityUnits: f(1)},
		LocalSecondaryIndexes:  map[string]types.Capacity{"byL": {CapacityUnits: f(0.5)}},
		GlobalSecondaryIndexes: map[string]types.Capacity{"byG": {CapacityUnits: f(2)}}}
	got = got[:0]
	for win := range r.wins {
		got = append(got, r.decodedUnits(cc, win))
	}
	if diff := cmp.Diff([]float64{1, 2, 1.5}, got); diff != "" {
		t.Errorf("decoded units (-want +got):\n%s", diff)
	}
}

// BenchmarkWireRead is the wire step's own work on a GetItem answer: the
// body read into the pooled buffer, its ConsumedCapacity read and cut out.
// BenchmarkMiddleware leaves it out; the asking mode pays it, the
// estimating mode does not.
func BenchmarkWireRead(b *testing.B) {
	body := `{"Item":{"pk":{"S":"user#1"},"name":{"S":"Ada"}},"ConsumedCapacity":{"TableName":"Users","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}}`
	st := &callState{asked: true}
	r := &readCloser{strings.NewReader(body)}
	resp := &smithyhttp.Response{Response: &http.Response{StatusCode: 200, Body: r, ContentLength: int64(len(body))}}
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(body)
		resp.Body, resp.ContentLength = r, int64(len(body))
		st.wrapped = st.wrapped[:0]
		st.takeCapacity(resp)
		if !st.ok {
			b.Fatal("capacity not read")
		}
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }
