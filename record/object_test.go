package record_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/record"
)

// FuzzObjectScanner: Members accepts exactly the JSON objects encoding/json
// accepts, gives every member's decoded name, and spans that hold the
// member's value exactly; Elements does the same for arrays.
func FuzzObjectScanner(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":1,"b":[true,{"c":"\u00e9"}],"\"d":null} `, `{"a":1,}`, `{"a" 1}`, `[1,{"a":[]},"x"]`, `[]`, `[1,]`, `{"a":1}x`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		var sc record.ObjectScanner
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
		var se *record.SyntaxError
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
	})
}
