package sketch_test

import (
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// A window of writes: one key takes most of the capacity.
func Example() {
	s, err := sketch.NewSummary(sketch.DefaultConfig())
	if err != nil {
		panic(err)
	}
	tick := int64(1_800_000_000)
	for i := range 1000 {
		s.Add([]byte("OPS_LOG"), 2, tick+int64(i/500), 0)
		s.Add(fmt.Appendf(nil, "USER#%d", i), 1, tick, 0)
	}
	top := s.Top(1)[0]
	fmt.Printf("%s: %d-%d of %d WCU, peak %d WCU/s, %d distinct keys\n",
		top.Key, top.Lower, top.Upper, s.Total(), top.Peak, s.Distinct())
	// Output:
	// OPS_LOG: 2000-2000 of 3000 WCU, peak 1000 WCU/s, 1001 distinct keys
}

// Two batches of one shard, processed in parallel, merge into the window.
func ExampleSummary_Merge() {
	a, _ := sketch.NewSummary(sketch.DefaultConfig())
	b, _ := sketch.NewSummary(sketch.DefaultConfig())
	a.Add([]byte("STATUS#ACTIVE"), 3, 100, 0)
	b.Add([]byte("STATUS#ACTIVE"), 4, 100, 0)
	b.Add([]byte("STATUS#DONE"), 1, 100, 0)
	if err := a.Merge(b); err != nil {
		panic(err)
	}
	for _, e := range a.Top(10) {
		fmt.Printf("%s: %d WCU, peak %d WCU/s\n", e.Key, e.Upper, e.Peak)
	}
	// Output:
	// STATUS#ACTIVE: 7 WCU, peak 7 WCU/s
	// STATUS#DONE: 1 WCU, peak 1 WCU/s
}

// The summary travels as a Lambda's tumbling-window state.
func ExampleSummary_MarshalBinary() {
	s, _ := sketch.NewSummary(sketch.DefaultConfig())
	s.Add([]byte("DATE#2026-11-22"), 5, 0, 0)
	state, err := s.MarshalBinary()
	if err != nil {
		panic(err)
	}
	var next sketch.Summary
	if err := next.UnmarshalBinary(state); err != nil {
		panic(err)
	}
	lower, upper := next.Estimate([]byte("DATE#2026-11-22"))
	fmt.Println(lower, upper, next.Total())
	// Damaged state is refused, and the receiver keeps what it held.
	err = next.UnmarshalBinary(state[:len(state)-1])
	fmt.Println(errors.Is(err, sketch.ErrCorrupt), next.Total())
	// Output:
	// 5 5 5
	// true 5
}

// Items tell one item rewritten from many items under one key.
func ExampleEntry() {
	s, _ := sketch.NewSummary(sketch.DefaultConfig())
	counter := sketch.Hash([]byte("COUNTER#global")) | 1
	for range 3 {
		s.Add([]byte("COUNTERS"), 1, 0, counter)
	}
	s.Add([]byte("ORDERS"), 1, 0, sketch.Hash([]byte("ORDER#1"))|1)
	s.Add([]byte("ORDERS"), 1, 0, sketch.Hash([]byte("ORDER#2"))|1)
	for _, e := range s.Top(2) {
		fmt.Printf("%s: many items %v\n", e.Key, e.ManyItems)
	}
	// Output:
	// COUNTERS: many items false
	// ORDERS: many items true
}

// Count-Min alone: an upper bound for any key.
func ExampleCountMin() {
	c, _ := sketch.NewCountMin(1024, 4)
	c.Add(sketch.Hash([]byte("a")), 10)
	c.Add(sketch.Hash([]byte("b")), 3)
	fmt.Println(c.Estimate(sketch.Hash([]byte("a"))), c.Estimate(sketch.Hash([]byte("c"))))
	// Output: 10 0
}

// Space-Saving alone, with 2 counters: "c" takes the smaller counter and
// carries its count as possible overcount.
func ExampleHeavyHitters() {
	h, _ := sketch.NewHeavyHitters(2)
	for _, k := range []string{"a", "a", "a", "b", "c", "c"} {
		h.Add([]byte(k), sketch.Hash([]byte(k)), 1, 0, 0)
	}
	for _, e := range h.Top(2) {
		fmt.Printf("%s: %d-%d\n", e.Key, e.Lower, e.Upper)
	}
	// Output:
	// a: 3-3
	// c: 2-3
}
