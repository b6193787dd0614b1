package record

// An independent reference of the GSI rules, with encoding/json and the
// reference item sizer, and no code shared with index.go: every record of
// generated batches, whose images share values spelled in different ways,
// in compact and in indented JSON, must get the same index writes.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

var refIndexes = []ddb.Index{
	{Name: "all", PartitionKey: "g1", SortKey: "g2", Projection: ddb.ProjectAll},
	{Name: "keys", PartitionKey: "g3", Projection: ddb.ProjectKeysOnly},
	{Name: "inc", PartitionKey: "g4", SortKey: "sk", Projection: ddb.ProjectInclude, NonKeyAttributes: []string{"p1", "p2", "g3"}},
}

// refSpellings holds, per attribute, values in several spellings: the
// values of one inner list are equal, different lists differ.
var refSpellings = map[string][][]string{
	"g1": {{`{"S":"A"}`, `{"S":"\u0041"}`, `{ "S" : "A" }`}, {`{"S":"B"}`}, {`{"N":"1.5"}`, `{"N":"15E-1"}`, `{"N":"1.50"}`}, {`{"M":{}}`},
		{`{"S":"Ärger über Öl"}`, `{"S":"\u00c4rger \u00fcber \u00d6l"}`, `{"S":"Ärger \u00fcber Öl"}`}},
	"g2": {{`{"N":"2"}`, `{"N":"2.0"}`, `{"N":"+2"}`}, {`{"N":"-3"}`}, {`{"B":"AQI="}`}},
	"g3": {{`{"S":"ON"}`, `{"S":"O\u004e"}`}, {`{"S":"OFF"}`}, {`{"BOOL":true}`}, {`{"S":"ÜN"}`, `{"S":"\u00dcN"}`}},
	"g4": {{`{"B":"AQ=="}`}, {`{"B":"Ag=="}`}, {`{"S":"x"}`}},
	"p1": {{`{"SS":["a","b"]}`, `{"SS":["b","a"]}`}, {`{"SS":["a"]}`}, {`{"L":[{"N":"1"},{"S":"z"}]}`, `{"L":[{"N":"1.0"},{"S":"z"}]}`}},
	"p2": {{`{"M":{"x":{"N":"1"},"y":{"NULL":true}}}`, `{"M":{"y":{"NULL":true},"x":{"N":"10E-1"}}}`}, {`{"M":{"x":{"N":"2"}}}`}, {`{"NS":["1","2"]}`, `{"NS":["2.0","1"]}`}},
	"c":  {{`{"S":"short"}`}, {`{"S":"` + strings.Repeat("y", 1100) + `"}`}, {`{"N":"7"}`, `{"N":"7.000"}`}},
}

// refItem writes an item under the table key with some of the attributes,
// each in one of its spellings; indent spaces the JSON out.
func refItem(r *rand.Rand, vals map[string]int, indent bool) string {
	var parts []string
	sep := ":"
	if indent {
		sep = " : "
	}
	parts = append(parts, `"pk"`+sep+`{"S":"p"}`, `"sk"`+sep+`{"N":"1"}`)
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		v := refSpellings[name][vals[name]]
		parts = append(parts, fmt.Sprintf("%q%s%s", name, sep, v[r.IntN(len(v))]))
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	if indent {
		return "{\n  " + strings.Join(parts, ",\n  ") + "\n}"
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// refValues picks which value each attribute has, or leaves it out; next
// keeps each of prev's values with probability 1/2.
func refValues(r *rand.Rand, prev map[string]int) map[string]int {
	vals := map[string]int{}
	for name, spellings := range refSpellings {
		if v, ok := prev[name]; ok && r.IntN(2) == 0 {
			vals[name] = v
		} else if r.IntN(3) > 0 {
			vals[name] = r.IntN(len(spellings))
		}
	}
	return vals
}

// refCanon is a value in a canonical text form, with encoding/json.
func refCanon(t *testing.T, raw json.RawMessage) string {
	var av map[string]json.RawMessage
	if err := json.Unmarshal(raw, &av); err != nil || len(av) != 1 {
		t.Fatalf("attribute value %s", raw)
	}
	for tag, v := range av {
		scalar := func(tag string, v json.RawMessage) string {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				t.Fatal(err)
			}
			switch tag {
			case "N":
				c, err := refCanonical(s)
				if err != nil {
					t.Fatal(err)
				}
				return "N" + c
			case "B":
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					t.Fatal(err)
				}
				return "B" + string(b)
			}
			return "S" + s
		}
		switch tag {
		case "S", "N", "B":
			return scalar(tag, v)
		case "BOOL", "NULL":
			return tag + string(v)
		case "SS", "NS", "BS", "L", "M":
			var elems []string
			if tag == "M" {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(v, &m); err != nil {
					t.Fatal(err)
				}
				for name, e := range m {
					elems = append(elems, fmt.Sprintf("%q=%s", name, refCanon(t, e)))
				}
			} else {
				var l []json.RawMessage
				if err := json.Unmarshal(v, &l); err != nil {
					t.Fatal(err)
				}
				for _, e := range l {
					if tag == "L" {
						elems = append(elems, refCanon(t, e))
					} else {
						elems = append(elems, scalar(tag[:1], e))
					}
				}
			}
			if tag != "L" {
				slices.Sort(elems)
			}
			return tag + "[" + strings.Join(elems, ",") + "]"
		}
	}
	t.Fatalf("attribute value %s", raw)
	return ""
}

// refIndexWrite applies the rules to one record's images (nil: absent).
func refIndexWrite(t *testing.T, ix ddb.Index, event string, ttl bool, newImg, oldImg map[string]json.RawMessage) IndexWrite {
	keyAttrs := []string{ix.PartitionKey}
	if ix.SortKey != "" {
		keyAttrs = append(keyAttrs, ix.SortKey)
	}
	in := func(img map[string]json.RawMessage) bool {
		if img == nil {
			return false
		}
		for _, a := range keyAttrs {
			c, ok := img[a]
			if !ok {
				return false
			}
			if tag := refCanon(t, c)[0]; tag != 'S' && tag != 'N' && tag != 'B' {
				return false
			}
			if strings.HasPrefix(refCanon(t, c), "SS") || strings.HasPrefix(refCanon(t, c), "NS") || strings.HasPrefix(refCanon(t, c), "NULL") || strings.HasPrefix(refCanon(t, c), "BOOL") || strings.HasPrefix(refCanon(t, c), "BS") {
				return false
			}
		}
		return true
	}
	projected := func(name string) bool {
		return name == "pk" || name == "sk" || slices.Contains(keyAttrs, name) || ix.Projection == ddb.ProjectAll ||
			(ix.Projection == ddb.ProjectInclude && slices.Contains(ix.NonKeyAttributes, name))
	}
	entry := func(img map[string]json.RawMessage) uint64 {
		size := 0
		for name, raw := range img {
			if projected(name) {
				n, err := refValueSize(raw, 0)
				if err != nil {
					t.Fatal(err)
				}
				size += len(name) + n
			}
		}
		return uint64(max(1, (size+1023)/1024))
	}
	key := func(img map[string]json.RawMessage) ddb.Key {
		c := refCanon(t, img[ix.PartitionKey])
		return ddb.Key{Type: ddb.KeyType(c[0]), Value: []byte(c[1:])}
	}
	same := func(names []string) bool {
		for _, n := range names {
			a, okA := newImg[n]
			b, okB := oldImg[n]
			if okA != okB || (okA && refCanon(t, a) != refCanon(t, b)) {
				return false
			}
		}
		return true
	}
	w := IndexWrite{Index: ix.Name, Exact: true}
	switch {
	case ttl:
		if in(oldImg) {
			w.TTLWCU, w.Delete.Key = entry(oldImg), key(oldImg)
		}
	case event == "INSERT":
		if in(newImg) {
			w.Put = ddb.IndexEntry{Key: key(newImg), WCU: entry(newImg)}
		}
	case event == "REMOVE":
		if in(oldImg) {
			w.Delete = ddb.IndexEntry{Key: key(oldImg), WCU: entry(oldImg)}
		}
	case in(oldImg) && !in(newImg):
		w.Delete = ddb.IndexEntry{Key: key(oldImg), WCU: entry(oldImg)}
	case !in(oldImg) && in(newImg):
		w.Put = ddb.IndexEntry{Key: key(newImg), WCU: entry(newImg)}
	case !in(oldImg):
	case !same(keyAttrs):
		w.Delete = ddb.IndexEntry{Key: key(oldImg), WCU: entry(oldImg)}
		w.Put = ddb.IndexEntry{Key: key(newImg), WCU: entry(newImg)}
	default:
		var names []string
		for n := range newImg {
			names = append(names, n)
		}
		for n := range oldImg {
			names = append(names, n)
		}
		var proj []string
		for _, n := range names {
			if projected(n) {
				proj = append(proj, n)
			}
		}
		if !same(proj) {
			w.Put = ddb.IndexEntry{Key: key(newImg), WCU: max(entry(oldImg), entry(newImg))}
		}
	}
	w.WCU = w.Delete.WCU + w.Put.WCU
	return w
}

// TestIndexWritesAgainstReference decodes each record alone, then all of
// them again as one event, whose records the decoder holds until the event
// closes: both ways must give the reference's writes.
func TestIndexWritesAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	d, err := NewDecoder(Config{PartitionKey: "pk", Indexes: refIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]int{}
	var batch bytes.Buffer // every record, in one event
	var wantAll [][]IndexWrite
	batch.WriteString(`{"Records":[`)
	for n := range 3000 {
		event := []string{"INSERT", "MODIFY", "MODIFY", "MODIFY", "REMOVE"}[r.IntN(5)]
		ttl := event == "REMOVE" && r.IntN(4) == 0
		oldVals := refValues(r, nil)
		newVals := refValues(r, oldVals)
		indent := r.IntN(4) == 0
		var newJSON, oldJSON string
		var b bytes.Buffer
		if ttl {
			b.WriteString(`{"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},`)
		} else {
			b.WriteString(`{`)
		}
		fmt.Fprintf(&b, `"eventName":%q,"dynamodb":{"Keys":{"pk":{"S":"p"},"sk":{"N":"1"}}`, event)
		if event != "REMOVE" {
			newJSON = refItem(r, newVals, indent)
			b.WriteString(`,"NewImage":` + newJSON)
		}
		if event != "INSERT" {
			oldJSON = refItem(r, oldVals, indent)
			b.WriteString(`,"OldImage":` + oldJSON)
		}
		b.WriteString(`}}`)
		var got []IndexWrite
		err := d.Decode(b.Bytes(), Visitor{
			Record: func(rec *Record) error {
				got = append(got, cloneWrites(rec.Indexes)...)
				return nil
			},
			Malformed: func(m *Malformed) error { t.Fatalf("malformed: %v\n%s", m.Err, b.Bytes()); return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		parse := func(s string) map[string]json.RawMessage {
			if s == "" {
				return nil
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		var want []IndexWrite
		for _, ix := range refIndexes {
			w := refIndexWrite(t, ix, event, ttl, parse(newJSON), parse(oldJSON))
			want = append(want, w)
			switch {
			case event != "MODIFY":
			case w.Put.WCU > 0 && w.Delete.WCU > 0:
				cases[ix.Name+" key change"]++
			case w.Put.WCU > 0:
				cases[ix.Name+" put"]++
			case w.Delete.WCU > 0:
				cases[ix.Name+" delete"]++
			default:
				cases[ix.Name+" nothing"]++
			}
		}
		want = touched(want) // Record.Indexes lists only these
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("record %d:\n%s\n(-reference +decoder):\n%s", n, b.Bytes(), diff)
		}
		if n > 0 {
			batch.WriteByte(',')
		}
		batch.Write(b.Bytes())
		wantAll = append(wantAll, want)
	}
	batch.WriteString(`]}`)
	var gotAll [][]IndexWrite
	err = d.Decode(batch.Bytes(), Visitor{
		Record: func(rec *Record) error {
			gotAll = append(gotAll, cloneWrites(rec.Indexes))
			return nil
		},
		Malformed: func(m *Malformed) error { t.Fatalf("malformed in the event: %v", m.Err); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantAll, gotAll); diff != "" {
		t.Fatalf("as one event (-reference +decoder):\n%s", diff)
	}
	for _, ix := range refIndexes {
		for _, c := range []string{" key change", " put", " delete", " nothing"} {
			if cases[ix.Name+c] < 20 {
				t.Errorf("only %d records of the case %q", cases[ix.Name+c], ix.Name+c)
			}
		}
	}
}

// touched keeps the writes that touched their index, as Record.Indexes
// lists them: the reference gives one per index.
func touched(ws []IndexWrite) []IndexWrite {
	var out []IndexWrite
	for _, w := range ws {
		if w.Touched() {
			out = append(out, w)
		}
	}
	return out
}

// cloneWrites copies a record's index writes and their keys, which the
// decoder reuses for the next record; nil when there are none.
func cloneWrites(ws []IndexWrite) []IndexWrite {
	var out []IndexWrite
	for _, w := range ws {
		w.Put.Key.Value = bytes.Clone(w.Put.Key.Value)
		w.Delete.Key.Value = bytes.Clone(w.Delete.Key.Value)
		out = append(out, w)
	}
	return out
}
