package clientwatch

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWireRead: read finds the top-level ConsumedCapacity wherever it
// lies, reads every object of it, and cuts exactly the member and one
// comma, leaving the body DynamoDB sends a caller who did not ask. What
// it cannot read it leaves alone.
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
			var st wireState
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
				caps = append(caps, capOut{string(st.names[c.nameStart:c.nameEnd]), c.units})
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
	f.Fuzz(func(t *testing.T, body string) {
		var st wireState
		b := []byte(body)
		start, end, ok := st.read(b)
		if !ok {
			return
		}
		var in map[string]json.RawMessage
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("cut a body that is not a JSON object: %v", err)
		}
		cut := append(b[:start:start], b[end:]...)
		var out map[string]json.RawMessage
		if err := json.Unmarshal(cut, &out); err != nil {
			t.Fatalf("left %q, not a JSON object: %v", cut, err)
		}
		delete(in, "ConsumedCapacity")
		if _, still := out["ConsumedCapacity"]; still || len(in) != len(out) {
			t.Fatalf("left %q from %q", cut, body)
		}
		for k, v := range in {
			if string(out[k]) != string(v) {
				t.Fatalf("member %q changed: %s -> %s", k, v, out[k])
			}
		}
	})
}
