package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

var sentinels = []error{ErrNotRecord, ErrMissingField, ErrFieldType, ErrEventName, ErrAttributeValue, ErrNumber,
	ErrBase64, ErrKey, ErrTooDeep, ErrEnvelope, ErrKinesisData}

// jsonStream reports whether payload is a stream of JSON values, as
// encoding/json's Decoder reads it; known is false where encoding/json
// stops for reasons of its own (its nesting limit).
func jsonStream(payload []byte) (valid, known bool) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			return true, true
		}
		if err != nil {
			return false, !strings.Contains(err.Error(), "exceeded max depth")
		}
	}
}

// expectedItems counts, with encoding/json, the records and malformed
// records (envelope errors aside) and the events Decode must report.
func expectedItems(payload []byte) (items, events int) {
	var envelope = []string{"Records", "window", "state", "shardId", "isFinalInvokeForWindow", "isWindowTerminatedEarly"}
	object := func(raw json.RawMessage) {
		var o map[string]json.RawMessage
		if json.Unmarshal(raw, &o) != nil {
			items++ // not an object
			return
		}
		for _, k := range envelope {
			if _, ok := o[k]; ok {
				events++
				var recs []json.RawMessage
				if json.Unmarshal(o["Records"], &recs) == nil {
					items += len(recs)
				}
				return
			}
		}
		items++ // a record, good or bad
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	for {
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) == nil && bytes.TrimSpace(v)[0] == '[' {
			for _, e := range arr {
				object(e)
			}
			continue
		}
		object(v)
	}
}

func fuzzSeeds() [][]byte {
	seeds := [][]byte{
		[]byte(minimal("A", "")),
		[]byte(minimal("A", "") + "\n" + minimal("B", "")),
		[]byte(`[` + minimal("A", "") + `,{"Records":[` + minimal("B", "") + `]}]`),
		[]byte(`{"Records":[{"eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},` +
			`"dynamodb":{"Keys":{"pk":{"N":"-1.50E+3"},"sk":{"B":"AQ=="}},"OldImage":{"pk":{"N":"1"},"l":{"L":[{"M":{}}]}}}}],` +
			`"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},"state":{"a":"b"},"shardId":"s"}`),
		[]byte(`{"Records":[{"eventName":"INSERT","dynamodb":{"Keys":{"a":{"S":"x"},"b":{"S":"y"}}}}]}`),
		[]byte(`1 "x" null [[]] {}`),
		newGen(1).batch(3, "NEW_AND_OLD_IMAGES"),
		newGen(2).realistic(3, "KEYS_ONLY"),
	}
	for _, name := range []string{"dynamodb-event.json", "dynamodb-time-window-event.json"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// sameErrorText compares errors by what they say: two decodes of the same
// payload make equal errors, not the same ones.
var sameErrorText = cmp.Comparer(func(a, b error) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error())
})

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, pk := range []string{"", "pk"} {
			d, _ := NewDecoder(Config{PartitionKey: pk})
			var g got
			err := d.Decode(payload, g.visitor())
			checkDecoded(t, payload, &g, err)
			// The same decoder, again: the same answer.
			var g2 got
			err2 := d.Decode(payload, g2.visitor())
			if diff := cmp.Diff(g, g2, cmp.AllowUnexported(got{}), cmpopts.EquateEmpty(), sameErrorText); diff != "" {
				t.Fatalf("second decode differs (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff(err, err2, sameErrorText); diff != "" {
				t.Fatalf("second decode returns another error (-first +second):\n%s", diff)
			}
			checkIndexed(t, pk, payload, &g, err)
		}
	})
}

// fuzzIndexes are indexes on attributes the seeds and generators use.
var fuzzIndexes = []ddb.Index{
	{Name: "all", PartitionKey: "status", SortKey: "price", Projection: ddb.ProjectAll},
	{Name: "keys", PartitionKey: "name", Projection: ddb.ProjectKeysOnly},
	{Name: "inc", PartitionKey: "sk", SortKey: "level", Projection: ddb.ProjectInclude, NonKeyAttributes: []string{"msg", "tags", "pk"}},
}

// checkIndexed decodes payload again with indexes: the records and errors
// must be the same as without, and every index write must keep the rules'
// invariants.
func checkIndexed(t *testing.T, pk string, payload []byte, plain *got, plainErr error) {
	d, err := NewDecoder(Config{PartitionKey: pk, Indexes: fuzzIndexes})
	if err != nil {
		t.Fatal(err)
	}
	var g got
	var writes [][]IndexWrite
	v := g.visitor()
	rec := v.Record
	v.Record = func(r *Record) error {
		writes = append(writes, slices.Clone(r.Indexes))
		return rec(r)
	}
	err = d.Decode(payload, v)
	if (err == nil) != (plainErr == nil) || strings.Join(g.calls, "") != strings.Join(plain.calls, "") {
		t.Fatalf("with indexes: %v %v; without: %v %v", g.calls, err, plain.calls, plainErr)
	}
	for k, r := range g.records {
		r.Indexes = nil // kept apart in writes: the decoder reuses the slice
		if diff := diffRecord(r, plain.records[k]); diff != "" {
			t.Fatalf("record %d with indexes: %s", k, diff)
		}
		largest := ddb.WriteUnits(max(r.NewImageSize, r.OldImageSize, 0))
		next := 0 // the writes come in the indexes' order, one per index at most
		for _, w := range writes[k] {
			x := slices.IndexFunc(fuzzIndexes, func(ix ddb.Index) bool { return ix.Name == w.Index })
			switch {
			case x < next:
				t.Fatalf("record %d: index %q out of order or unknown: %+v", k, w.Index, writes[k])
			case !w.Touched():
				t.Fatalf("record %d, %s: a write that did not touch the index is listed: %+v", k, w.Index, w)
			case w.WCU != w.Delete.WCU+w.Put.WCU:
				t.Fatalf("record %d, %s: WCU %d is not delete + put: %+v", k, w.Index, w.WCU, w)
			case w.WCU > 2*largest:
				t.Fatalf("record %d, %s: WCU %d beyond two writes of the largest image: %+v", k, w.Index, w.WCU, w)
			case r.TTLDelete && w.WCU != 0:
				t.Fatalf("record %d, %s: a TTL delete charged %+v", k, w.Index, w)
			case w.Put.WCU > 0 && !w.Put.Key.Present(), w.Delete.WCU > 0 && !w.Delete.Key.Present():
				t.Fatalf("record %d, %s: a write without a key: %+v", k, w.Index, w)
			case r.EventName == Insert && w.Delete.WCU > 0, r.EventName == Remove && w.Put.WCU > 0:
				t.Fatalf("record %d, %s: %s charged %+v", k, w.Index, r.EventName, w)
			case w.Exact && r.EventName == Modify && (r.NewImageSize < 0 || r.OldImageSize < 0):
				t.Fatalf("record %d, %s: exact without both images: %+v", k, w.Index, w)
			}
			next = x + 1
		}
	}
}

func checkDecoded(t *testing.T, payload []byte, g *got, err error) {
	t.Helper()
	for _, r := range g.records {
		switch {
		case r.EventName < Insert || r.EventName > Remove:
			t.Fatalf("event name %d", r.EventName)
		case r.TTLDelete && (r.EventName != Remove || r.WCU != 0 || !r.WCUExact):
			t.Fatalf("TTL delete %s", fmtRecord(r))
		case !r.TTLDelete && r.WCU < 1:
			t.Fatalf("WCU 0 for %s", fmtRecord(r))
		case !r.PartitionKey.Present() || r.KeysSize < 0 || r.NewImageSize < -1 || r.OldImageSize < -1:
			t.Fatalf("record %s", fmtRecord(r))
		}
		if wcu, exact := ddb.ItemWriteUnits(r.EventName.kind(r.TTLDelete), r.NewImageSize, r.OldImageSize, r.KeysSize); wcu != r.WCU || exact != r.WCUExact {
			t.Fatalf("WCU %d %v, rule says %d %v: %s", r.WCU, r.WCUExact, wcu, exact, fmtRecord(r))
		}
	}
	envelopeErrs := 0
	for _, m := range g.bad {
		known := false
		for _, s := range sentinels {
			known = known || errors.Is(m.Err, s)
		}
		if !known || m.Offset < 0 || m.Offset >= int64(len(payload)) {
			t.Fatalf("malformed %+v", m)
		}
		if errors.Is(m.Err, ErrEnvelope) {
			envelopeErrs++
		}
	}
	valid, known := jsonStream(payload)
	var se *SyntaxError
	var ae *AmbiguousKeyError
	switch {
	case errors.As(err, &se):
		if valid && known {
			t.Fatalf("syntax error %v on valid JSON", err)
		}
		if se.Offset < 0 || se.Offset > int64(len(payload)) {
			t.Fatalf("offset %d of %d bytes", se.Offset, len(payload))
		}
		return
	case errors.As(err, &ae):
		return
	case err != nil:
		t.Fatalf("unexpected error %v", err)
	}
	if !valid && known {
		t.Fatalf("accepted JSON that encoding/json rejects")
	}
	if hasDuplicateKeys(payload) || !known {
		return
	}
	items, events := expectedItems(payload)
	if got := len(g.records) + len(g.bad) - envelopeErrs; got != items || len(g.events) != events {
		t.Fatalf("%d records + %d malformed (%d envelope), %d events; encoding/json counts %d items, %d events",
			len(g.records), len(g.bad), envelopeErrs, len(g.events), items, events)
	}
}

// Decoding allocates nothing per record once warm: not for a plain batch,
// not for newline-delimited records; a time-window event allocates for its
// envelope (state, shard id, ARN) only, whatever its number of records.
func TestDecodeAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	d, _ := NewDecoder(Config{PartitionKey: "pk"})
	var n int
	v := Visitor{Record: func(*Record) error { n++; return nil }}
	// run measures decoding payload, which must deliver records records
	// each time: a decoder that delivered nothing would allocate nothing.
	run := func(payload []byte, records int) float64 {
		n = 0
		if err := d.Decode(payload, v); err != nil { // warm up
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			if err := d.Decode(payload, v); err != nil {
				t.Fatal(err)
			}
		})
		if n != records*(1+5+1) { // AllocsPerRun runs once more to warm up
			t.Fatalf("%d records in 7 decodes, want %d each", n, records)
		}
		return allocs
	}
	batch := newGen(1).realistic(2000, "NEW_AND_OLD_IMAGES")
	if a := run(batch, 2000); a != 0 {
		t.Errorf("a plain batch of 2000 records: %.1f allocations per decode, want 0", a)
	}
	recs := batch[len(`{"Records":[`) : len(batch)-2]
	ndjson := bytes.ReplaceAll(recs, []byte(`"},{"eventID"`), []byte("\"}\n{\"eventID\""))
	if n := bytes.Count(ndjson, []byte("\n")); n != 1999 {
		t.Fatalf("%d lines of NDJSON, want 2000", n+1)
	}
	if a := run(ndjson, 2000); a != 0 {
		t.Errorf("newline-delimited records: %.1f allocations per decode, want 0", a)
	}
	envelope := func(records []byte) []byte {
		return []byte(`{"Records":[` + string(records) + `],"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},` +
			`"state":{"s":"AAEC"},"shardId":"shardId-1","eventSourceARN":"arn:aws:dynamodb:us-east-1:1:table/Orders/stream/x",` +
			`"isFinalInvokeForWindow":false,"isWindowTerminatedEarly":false}`)
	}
	few := newGen(2).realistic(10, "NEW_AND_OLD_IMAGES")
	small, large := run(envelope(few[len(`{"Records":[`):len(few)-2]), 10), run(envelope(recs), 2000)
	if small != large || large > 20 {
		t.Errorf("time-window event: %.1f allocations with 10 records, %.1f with 2000", small, large)
	}
}
