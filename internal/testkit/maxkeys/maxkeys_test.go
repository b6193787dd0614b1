package maxkeys

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

func TestKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Keys() {
		var attr map[string]string
		if err := json.Unmarshal([]byte(k.Attr), &attr); err != nil || len(attr) != 1 || attr[k.Type] == "" {
			t.Errorf("%s: attribute %.40s… is not one %s value: %v", k.Name, k.Attr, k.Type, err)
		}
		if k.Type == "S" && (len(k.Printed) != MaxBytes || !utf8.ValidString(k.Printed)) {
			t.Errorf("%s: %d bytes, valid UTF-8 %v", k.Name, len(k.Printed), utf8.ValidString(k.Printed))
		}
		id := k.Type + k.Printed
		if seen[id] {
			t.Errorf("%s is not distinct", k.Name)
		}
		seen[id] = true
	}
	recs, keyOf := Records("T", time.Unix(0, 0))
	var ev struct{ Records []json.RawMessage }
	if err := json.Unmarshal(Event(recs), &ev); err != nil || len(ev.Records) != len(keyOf) {
		t.Fatalf("Event: %d records, %d keys, %v", len(ev.Records), len(keyOf), err)
	}
	n := map[int]int{}
	for _, i := range keyOf {
		n[i]++
	}
	for i := range Keys() {
		if n[i] != Writes(i) {
			t.Errorf("key %d written %d times, want %d", i, n[i], Writes(i))
		}
	}
}
