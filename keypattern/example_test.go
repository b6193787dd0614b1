package keypattern_test

import (
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/keypattern"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// A quiet minute of the OPS_LOG article's table: a few writes each,
// nothing near any rate threshold, and yet three patterns will break.
func Example() {
	t, err := keypattern.New(keypattern.DefaultConfig())
	if err != nil {
		panic(err)
	}
	add := func(value string, wcu uint64, n int) {
		key := append([]byte{byte(ddb.String)}, value...) // as the detector feeds keys to sketch
		for range n {
			t.Add(key, sketch.Hash(key), wcu, 1782122400)
		}
	}
	add("OPS_LOG", 1, 3)
	add("BRAND_INDEX", 1, 2)
	add("THREAT#acme", 2, 9)
	add("THREAT#globex", 1, 1)
	for i := range 6 {
		add(fmt.Sprintf("USER#%08x-9d3a-4c1b-8e5f-6a7b8c9d0e1f", i), 1, 1)
	}
	for _, f := range t.Patterns(nil) {
		ceiling, _ := f.Ceiling(ddb.PartitionWriteUnits)
		fmt.Printf("%-12s %-13s %2d records, %d keys, ceiling %5.0f WCU/s\n",
			f.Pattern, keypattern.Judge(&f, keypattern.DefaultThresholds()), f.Records, f.Distinct, ceiling)
	}
	// Output:
	// THREAT#<*>   dominant_key  10 records, 2 keys, ceiling  1056 WCU/s
	// USER#<uuid>  healthy        6 records, 6 keys, ceiling  6000 WCU/s
	// OPS_LOG      single_key     3 records, 1 keys, ceiling  1000 WCU/s
	// BRAND_INDEX  single_key     2 records, 1 keys, ceiling  1000 WCU/s
}

// Two shards' tables merge into the table of all their records: neither
// shard alone saw STATUS take two values.
func ExampleTable_Merge() {
	a, _ := keypattern.New(keypattern.DefaultConfig())
	b, _ := keypattern.New(keypattern.DefaultConfig())
	for _, k := range []string{"STATUS#ACTIVE", "STATUS#ACTIVE"} {
		key := append([]byte{byte(ddb.String)}, k...)
		a.Add(key, sketch.Hash(key), 1, 0)
	}
	key := append([]byte{byte(ddb.String)}, "STATUS#CLOSED"...)
	b.Add(key, sketch.Hash(key), 1, 0)
	if err := a.Merge(b); err != nil {
		panic(err)
	}
	for _, f := range a.Patterns(nil) {
		fmt.Println(f.Pattern, f.Records, f.Distinct, keypattern.Judge(&f, keypattern.DefaultThresholds()))
	}
	// Output:
	// STATUS#<*> 3 2 healthy
}

// A table travels as a Lambda's tumbling-window state, trimmed to its
// share of the state's budget.
func ExampleTable_Trim() {
	t, _ := keypattern.New(keypattern.DefaultConfig())
	for i := range 500 {
		key := fmt.Appendf([]byte{byte(ddb.String)}, "ORDER#%08x-9d3a-4c1b-8e5f-6a7b8c9d0e1f", i)
		t.Add(key, sketch.Hash(key), 1, 0)
	}
	key := []byte("SOPS_LOG")
	t.Add(key, sketch.Hash(key), 1, 0)
	dropped, err := t.Trim(420)
	if err != nil {
		panic(err)
	}
	state, _ := t.MarshalBinary()
	var next keypattern.Table
	if err := next.UnmarshalBinary(state); err != nil {
		panic(err)
	}
	records, wcu := next.Other()
	fmt.Println(len(state) <= 420, dropped, next.Len(), records, wcu, next.Records())
	// Output:
	// true 1 1 1 1 501
}

func ExampleRedactLiterals() {
	stand := func(s string) string { return fmt.Sprintf("[%d bytes]", len(s)) }
	fmt.Println(keypattern.RedactLiterals(`ORDERS#SHARD_<n>`, stand))
	fmt.Println(keypattern.RedactLiterals(`TENANT#<*>#USER#<uuid>`, stand))
	fmt.Println(keypattern.RedactLiterals(`a\<b#<n>`, stand))
	// Output:
	// [13 bytes]<n>
	// [7 bytes]<*>[6 bytes]<uuid>
	// [4 bytes]<n>
}
