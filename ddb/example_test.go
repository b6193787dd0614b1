package ddb_test

import (
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

func ExampleNumberSize() {
	for _, n := range []string{"0", "1.5", "12000", "230", "0.00091", "-1", "-1.5", "3.14159", "6.13E-120"} {
		size, _ := ddb.NumberSize(n)
		fmt.Printf("%s:%d\n", n, size)
	}
	_, err := ddb.NumberSize("1e126")
	fmt.Println(err)
	// Output:
	// 0:1
	// 1.5:3
	// 12000:3
	// 230:3
	// 0.00091:3
	// -1:3
	// -1.5:4
	// 3.14159:5
	// 6.13E-120:3
	// ddb: invalid number: magnitude outside DynamoDB's range [1e-130, 1e126) "1e126"
}

func ExampleCanonicalNumber() {
	for _, n := range []string{"10", "10.0", "1e1", "+10", "-0", "1.50E-3"} {
		c, _ := ddb.CanonicalNumber(nil, []byte(n))
		fmt.Printf("%s -> %s\n", n, c)
	}
	// Output:
	// 10 -> 10
	// 10.0 -> 10
	// 1e1 -> 10
	// +10 -> 10
	// -0 -> 0
	// 1.50E-3 -> 0.0015
}

func ExampleContainerSize() {
	// {"m":{"M":{"k":{"BOOL":true}}}}: the name "m", then an M of one
	// member whose name and value are 1 byte each.
	fmt.Println(len("m") + ddb.ContainerSize(1, len("k")+ddb.BoolSize))
	// Output:
	// 7
}

func ExampleWriteUnits() {
	fmt.Println(ddb.WriteUnits(1024), ddb.WriteUnits(1025), ddb.ReadUnits(4097))
	// Output:
	// 1 2 2
}

func ExampleItemWriteUnits() {
	fmt.Println(ddb.ItemWriteUnits(ddb.Updated, 900, 2500, 20)) // the larger image: 2500 B
	fmt.Println(ddb.ItemWriteUnits(ddb.Created, -1, -1, 20))    // no image (KEYS_ONLY): a lower bound
	fmt.Println(ddb.ItemWriteUnits(ddb.Expired, -1, 5000, 20))  // TTL deletes are free
	// Output:
	// 3 true
	// 1 false
	// 0 true
}

func ExampleChargeIndex() {
	// An update moves an order from one status to another, and the index
	// is keyed on the status: the old entry is deleted, the new one put.
	c := ddb.ChargeIndex(&ddb.IndexFacts{
		Kind:       ddb.Updated,
		Old:        ddb.IndexSide{Known: true, In: true, Entry: 1500},
		New:        ddb.IndexSide{Known: true, In: true, Entry: 700},
		KeyChanged: true,
	})
	fmt.Println(c.Delete, c.Put, c.WCU(), c.Exact)
	// Output:
	// 2 1 3 true
}

// A partition admits 1,000 WCU a second: of a demand of 2,500 WCU in one
// second, in 10-WCU writes, 100 are admitted and 150 throttled.
func ExampleAdmission() {
	a := ddb.NewAdmission(0)
	admitted, throttled := 0, 0
	for range 250 {
		if a.Admit(1795341600, 10) {
			admitted++
		} else {
			throttled++
		}
	}
	fmt.Println(admitted, throttled, a.Admit(1795341601, 10))
	// Output: 100 150 true
}
