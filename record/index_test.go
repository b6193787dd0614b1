package record_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
)

// testIndexes are three GSIs of a table keyed pk (S) + sk (N): one of each
// projection, one of them on the table's sort key.
var testIndexes = []ddb.Index{
	{Name: "all", PartitionKey: "g1pk", SortKey: "g1sk", Projection: ddb.ProjectAll},
	{Name: "keys", PartitionKey: "status", Projection: ddb.ProjectKeysOnly},
	{Name: "inc", PartitionKey: "g3pk", SortKey: "sk", Projection: ddb.ProjectInclude, NonKeyAttributes: []string{"a", "b"}},
}

// indexRecord writes a NEW_AND_OLD_IMAGES stream record; newImg and oldImg
// are the images' attributes after the table key, "" for no image.
func indexRecord(event, newImg, oldImg string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"eventName":%q,"dynamodb":{"Keys":{"pk":{"S":"p"},"sk":{"N":"1"}}`, event)
	if newImg != "" {
		fmt.Fprintf(&b, `,"NewImage":{"pk":{"S":"p"},"sk":{"N":"1"}%s}`, newImg)
	}
	if oldImg != "" {
		fmt.Fprintf(&b, `,"OldImage":{"pk":{"S":"p"},"sk":{"N":"1"}%s}`, oldImg)
	}
	b.WriteString(`,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`)
	return b.String()
}

func size(t *testing.T, item string) int {
	t.Helper()
	n, err := record.ItemSize([]byte(item))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func units(n int) uint64 { return uint64(max(1, (n+1023)/1024)) }

func skey(s string) ddb.Key { return ddb.Key{Type: ddb.String, Value: []byte(s)} }

func TestIndexWrites(t *testing.T) {
	big := strings.Repeat("x", 1100)
	keys := `"pk":{"S":"p"},"sk":{"N":"1"}`
	none := record.IndexWrite{Exact: true}
	type want struct{ all, keys, inc record.IndexWrite }
	for _, tc := range []struct {
		name           string
		event          string
		newImg, oldImg string
		want           func(t *testing.T) want
	}{{
		name: "in no index", event: "INSERT", newImg: `,"x":{"S":"1"}`,
		want: func(*testing.T) want { return want{none, none, none} },
	}, {
		name: "entering every index", event: "INSERT",
		newImg: `,"g1pk":{"S":"A"},"g1sk":{"N":"2"},"status":{"S":"ON"},"g3pk":{"B":"AQI="},"a":{"S":"` + big + `"},"c":{"N":"5"}`,
		want: func(t *testing.T) want {
			all := units(size(t, `{`+keys+`,"g1pk":{"S":"A"},"g1sk":{"N":"2"},"status":{"S":"ON"},"g3pk":{"B":"AQI="},"a":{"S":"`+big+`"},"c":{"N":"5"}}`))
			return want{
				record.IndexWrite{WCU: all, Exact: true, Put: ddb.IndexEntry{Key: skey("A"), WCU: all}},
				record.IndexWrite{WCU: 1, Exact: true, Put: ddb.IndexEntry{Key: skey("ON"), WCU: 1}},
				record.IndexWrite{WCU: 2, Exact: true, Put: ddb.IndexEntry{Key: ddb.Key{Type: ddb.Binary, Value: []byte{1, 2}}, WCU: 2}},
			}
		},
	}, {
		name: "leaving by a delete", event: "REMOVE", oldImg: `,"status":{"S":"ON"},"g1pk":{"S":"A"}`,
		want: func(*testing.T) want {
			return want{none, record.IndexWrite{WCU: 1, Exact: true, Delete: ddb.IndexEntry{Key: skey("ON"), WCU: 1}}, none}
		},
	}, {
		name: "leaving by losing the key", event: "MODIFY", newImg: `,"a":{"S":"1"}`, oldImg: `,"status":{"S":"ON"},"a":{"S":"1"}`,
		want: func(*testing.T) want {
			return want{none, record.IndexWrite{WCU: 1, Exact: true, Delete: ddb.IndexEntry{Key: skey("ON"), WCU: 1}}, none}
		},
	}, {
		name: "key change", event: "MODIFY",
		newImg: `,"status":{"S":"OFF"},"g3pk":{"S":"Q"},"a":{"S":"` + big + `"}`,
		oldImg: `,"status":{"S":"ON"},"g3pk":{"S":"P"},"a":{"S":"s"}`,
		want: func(*testing.T) want {
			return want{none,
				record.IndexWrite{WCU: 2, Exact: true, Delete: ddb.IndexEntry{Key: skey("ON"), WCU: 1}, Put: ddb.IndexEntry{Key: skey("OFF"), WCU: 1}},
				record.IndexWrite{WCU: 3, Exact: true, Delete: ddb.IndexEntry{Key: skey("P"), WCU: 1}, Put: ddb.IndexEntry{Key: skey("Q"), WCU: 2}}}
		},
	}, {
		name: "a number key spelled differently is the same key", event: "MODIFY",
		newImg: `,"g3pk":{"N":"1.50E+1"},"z":{"S":"1"}`, oldImg: `,"g3pk":{"N":"15"},"z":{"S":"2"}`,
		want: func(*testing.T) want { return want{none, none, none} },
	}, {
		name: "projected-only change, shrinking across 1 KB", event: "MODIFY",
		newImg: `,"g1pk":{"S":"A"},"g1sk":{"S":"s"},"g3pk":{"S":"P"},"b":{"S":"small"}`,
		oldImg: `,"g1pk":{"S":"A"},"g1sk":{"S":"s"},"g3pk":{"S":"P"},"b":{"S":"` + big + `"}`,
		want: func(*testing.T) want {
			return want{
				record.IndexWrite{WCU: 2, Exact: true, Put: ddb.IndexEntry{Key: skey("A"), WCU: 2}},
				none,
				record.IndexWrite{WCU: 2, Exact: true, Put: ddb.IndexEntry{Key: skey("P"), WCU: 2}}}
		},
	}, {
		name: "non-projected change", event: "MODIFY",
		newImg: `,"g1pk":{"S":"A"},"g1sk":{"S":"s"},"status":{"S":"ON"},"g3pk":{"S":"P"},"c":{"N":"2"}`,
		oldImg: `,"g1pk":{"S":"A"},"g1sk":{"S":"s"},"status":{"S":"ON"},"g3pk":{"S":"P"},"c":{"N":"1"}`,
		want: func(*testing.T) want {
			return want{record.IndexWrite{WCU: 1, Exact: true, Put: ddb.IndexEntry{Key: skey("A"), WCU: 1}}, none, none}
		},
	}, {
		name: "values spelled differently, attributes reordered: nothing changed", event: "MODIFY",
		newImg: `,"g1pk":{"S":"A"},"g1sk":{"S":"s"},"m":{"M":{"x":{"N":"1.0"},"y":{"SS":["b","a"]}}},"a":{"S":"\u0041"}, "g3pk":{"S":"P"}`,
		oldImg: `,"g3pk":{"S":"P"},"a":{"S":"A"},"g1pk":{"S":"A"},"g1sk":{"S":"s"},"m":{"M":{"y":{"SS":["a","b"]},"x":{"N":"1"}}}`,
		want:   func(*testing.T) want { return want{none, none, none} },
	}, {
		name: "two-attribute key, one attribute before and the other after", event: "MODIFY",
		newImg: `,"g1sk":{"S":"s"}`, oldImg: `,"g1pk":{"S":"A"}`,
		want: func(*testing.T) want { return want{none, none, none} },
	}, {
		name: "ttl delete is free, counted apart", event: "TTL",
		oldImg: `,"status":{"S":"ON"}`,
		want: func(*testing.T) want {
			return want{none, record.IndexWrite{Exact: true, TTLWCU: 1, Delete: ddb.IndexEntry{Key: skey("ON")}}, none}
		},
	}, {
		name: "modify without the old image is a lower bound", event: "MODIFY", newImg: `,"status":{"S":"ON"}`,
		want: func(*testing.T) want {
			return want{record.IndexWrite{}, record.IndexWrite{}, record.IndexWrite{}}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := indexRecord(tc.event, tc.newImg, tc.oldImg)
			if tc.event == "TTL" {
				rec = indexRecord("REMOVE", tc.newImg, tc.oldImg)
				rec = strings.Replace(rec, `{"eventName"`, `{"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},"eventName"`, 1)
			}
			w := tc.want(t)
			w.all.Index, w.keys.Index, w.inc.Index = "all", "keys", "inc"
			got := decodeIndexes(t, rec)
			if diff := cmp.Diff(record.Touched([]record.IndexWrite{w.all, w.keys, w.inc}), got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", rec, diff)
			}
		})
	}
}

// decodeIndexes decodes one record with testIndexes, both in a plain
// record and queued in an event, and returns its index writes.
func decodeIndexes(t *testing.T, rec string) []record.IndexWrite {
	t.Helper()
	d, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: testIndexes})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]record.IndexWrite
	v := record.Visitor{
		Record: func(r *record.Record) error {
			out = append(out, record.CloneWrites(r.Indexes))
			return nil
		},
		Malformed: func(m *record.Malformed) error { t.Fatalf("malformed: %v", m.Err); return nil },
	}
	if err := d.Decode([]byte(rec), v); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode([]byte(`{"Records":[`+rec+`,`+rec+`]}`), v); err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 {
		t.Fatalf("%d records", len(out))
	}
	if diff := cmp.Diff(out[0], out[1]); diff != "" {
		t.Errorf("queued in an event, the record gives another answer: %s", diff)
	}
	if diff := cmp.Diff(out[0], out[2]); diff != "" {
		t.Errorf("the second record of an event gives another answer: %s", diff)
	}
	return out[0]
}

// TestSetIndexesForgetsTheOldPlan: a decoder given new indexes charges
// exactly as a new decoder with them, although it cached, under the old
// ones, what the table's key names are.
func TestSetIndexesForgetsTheOldPlan(t *testing.T) {
	before := []ddb.Index{{Name: "bySk", PartitionKey: "sk", Projection: ddb.ProjectKeysOnly}}
	after := []ddb.Index{{Name: "byG", PartitionKey: "g", SortKey: "sk", Projection: ddb.ProjectKeysOnly}}
	// The entry of byG is the table key plus g: over 1 KB, 2 WCU.
	rec := indexRecord("INSERT", `,"g":{"S":"`+strings.Repeat("x", 1100)+`"}`, "")
	decode := func(d *record.Decoder) []record.IndexWrite {
		var out []record.IndexWrite
		err := d.Decode([]byte(rec), record.Visitor{Record: func(r *record.Record) error {
			out = append(out, record.CloneWrites(r.Indexes)...)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	reused, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: before})
	if err != nil {
		t.Fatal(err)
	}
	decode(reused)
	if err := reused.SetIndexes(after); err != nil {
		t.Fatal(err)
	}
	fresh, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: after})
	if err != nil {
		t.Fatal(err)
	}
	want := decode(fresh)
	if want[0].Put.WCU != 2 {
		t.Fatalf("a fresh decoder charges %+v, want a put of 2 WCU", want)
	}
	if diff := cmp.Diff(want, decode(reused)); diff != "" {
		t.Errorf("after SetIndexes (-fresh +reused):\n%s", diff)
	}
}

// TestTableKeysChangeBetweenRecords: an index entry counts the table's key
// attributes once (KeysSize), so the decoder must know, record by record,
// which attributes are the table's keys, although it keeps the last key
// names to save looking them up. Records of two key schemas in turns must
// be charged as a new decoder charges each: in the second, sk is no table
// key and counts in index inc's entry (1,025 bytes, 2 WCU; 1,022 and 1 WCU
// if it were taken for one).
func TestTableKeysChangeBetweenRecords(t *testing.T) {
	withSK := indexRecord("INSERT", `,"g3pk":{"S":"P"},"a":{"S":"`+strings.Repeat("x", 1010)+`"}`, "")
	withZZ := `{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"p"},"zz":{"N":"1"}},` +
		`"NewImage":{"pk":{"S":"p"},"zz":{"N":"1"},"g3pk":{"S":"P"},"sk":{"N":"1"},"a":{"S":"` + strings.Repeat("x", 1010) + `"}},` +
		`"StreamViewType":"NEW_AND_OLD_IMAGES"}}`
	alone := map[string][]record.IndexWrite{withSK: decodeIndexes(t, withSK), withZZ: decodeIndexes(t, withZZ)}
	if got := alone[withZZ]; len(got) != 1 || got[0].Index != "inc" || got[0].WCU != 2 {
		t.Fatalf("alone, the second schema's record charges %+v, want 2 WCU to inc", got)
	}
	d, err := record.NewDecoder(record.Config{PartitionKey: "pk", Indexes: testIndexes})
	if err != nil {
		t.Fatal(err)
	}
	recs := []string{withSK, withZZ, withSK, withZZ, withZZ, withSK}
	var got [][]record.IndexWrite
	err = d.Decode([]byte(`{"Records":[`+strings.Join(recs, ",")+`]}`+strings.Join(recs, "")), record.Visitor{Record: func(r *record.Record) error {
		got = append(got, record.CloneWrites(r.Indexes))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for k, rec := range append(recs, recs...) {
		if diff := cmp.Diff(alone[rec], got[k]); diff != "" {
			t.Errorf("record %d (-alone +in turns):\n%s", k, diff)
		}
	}
}
