package jsonscan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// FuzzMembers: Members accepts exactly the JSON objects encoding/json
// accepts, gives every member's decoded name, and spans that hold the
// member's value exactly; Elements does the same for arrays. One scanner
// reads every input: after a rejected one it must read the next as a
// fresh one does.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":1,"b":[true,{"c":"\u00e9"}],"\"d":null} `, `{"a":1,}`, `{"a" 1}`, `[1,{"a":[]},"x"]`, `[]`, `[1,]`, `{"a":1}x`, ``} {
		f.Add(s)
	}
	var sc jsonscan.Scanner
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		var names []string
		var values []json.RawMessage
		err := sc.Members(data, func(name []byte, key, start, end int) error {
			if data[key] != '"' {
				t.Fatalf("member %q: key at %d is %q, not a quote", name, key, data[key])
			}
			names = append(names, string(name))
			values = append(values, json.RawMessage(data[start:end]))
			return nil
		})
		var m map[string]json.RawMessage
		valid := json.Unmarshal(data, &m) == nil && m != nil
		if (err == nil) != valid {
			t.Fatalf("Members(%q) error %v; encoding/json accepts it as an object: %v", doc, err, valid)
		}
		var se *jsonscan.SyntaxError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("Members(%q) error %T, want *SyntaxError", doc, err)
		}
		if valid {
			want := map[string]json.RawMessage{}
			for i, n := range names {
				want[n] = values[i] // the last of a repeated name wins, as in encoding/json
			}
			if diff := cmp.Diff(m, want); diff != "" {
				t.Fatalf("Members(%q) (-encoding/json +scanner):\n%s", doc, diff)
			}
		}

		var elems []json.RawMessage
		err = sc.Elements(data, func(start, end int) error {
			elems = append(elems, json.RawMessage(data[start:end]))
			return nil
		})
		var a []json.RawMessage
		valid = json.Unmarshal(data, &a) == nil && a != nil
		if (err == nil) != valid {
			t.Fatalf("Elements(%q) error %v; encoding/json accepts it as an array: %v", doc, err, valid)
		}
		if valid && !cmp.Equal(a, elems) && !(len(a) == 0 && len(elems) == 0) {
			t.Fatalf("Elements(%q) = %q, encoding/json %q", doc, elems, a)
		}

		const after = `{"x":[1,2],"y":"\u00e9"}`
		got := map[string]string{}
		if err := sc.Members([]byte(after), func(name []byte, _, start, end int) error {
			got[string(name)] = after[start:end]
			return nil
		}); err != nil || !cmp.Equal(got, map[string]string{"x": "[1,2]", "y": `"\u00e9"`}) {
			t.Fatalf("after %q, Members(%s) = %v, %v", doc, after, got, err)
		}
	})
}

// A member func's error stops the scan and comes back unchanged.
func TestMembersStopsAtCallerError(t *testing.T) {
	stop := errors.New("enough")
	var sc jsonscan.Scanner
	calls := 0
	err := sc.Members([]byte(`{"a":1,"b":2,"c":3}`), func([]byte, int, int, int) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("Members = %v after %d calls, want the caller's error after 1", err, calls)
	}
}

func ExampleScanner_Members() {
	body := []byte(`{"Item":{"pk":{"S":"a"}},"ConsumedCapacity":{"TableName":"Orders","CapacityUnits":0.5}}`)
	var sc jsonscan.Scanner
	_ = sc.Members(body, func(name []byte, key, start, end int) error {
		fmt.Printf("%s: %s\n", name, body[start:end])
		return nil
	})
	// Output:
	// Item: {"pk":{"S":"a"}}
	// ConsumedCapacity: {"TableName":"Orders","CapacityUnits":0.5}
}
