package record_test

import (
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/record"
)

func ExampleDecoder_Decode() {
	payload := []byte(`{"Records":[
	  {"eventID":"1","eventName":"INSERT","eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000",
	   "dynamodb":{"ApproximateCreationDateTime":1763805600,"Keys":{"pk":{"S":"STATUS#ACTIVE"},"sk":{"N":"1.0E+2"}},
	     "NewImage":{"pk":{"S":"STATUS#ACTIVE"},"sk":{"N":"100"},"note":{"S":"hello"}},"SequenceNumber":"100","StreamViewType":"NEW_AND_OLD_IMAGES"}},
	  {"eventID":"2","eventName":"REMOVE","userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},
	   "dynamodb":{"Keys":{"pk":{"S":"OPS_LOG"},"sk":{"N":"7"}},"OldImage":{"pk":{"S":"OPS_LOG"},"sk":{"N":"7"}},"SequenceNumber":"101"}},
	  {"eventID":"3","eventName":"UPSERT","dynamodb":{"Keys":{"pk":{"S":"x"}}}}
	],
	"window":{"start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z"},"state":{},"shardId":"shardId-0001",
	"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000"}`)

	d, err := record.NewDecoder(record.Config{PartitionKey: "pk"})
	if err != nil {
		panic(err)
	}
	err = d.Decode(payload, record.Visitor{
		Event: func(ev *record.Event) error {
			fmt.Println("window", ev.WindowStart.Format("15:04"), "to", ev.WindowEnd.Format("15:04"), "of", ev.ShardID)
			return nil
		},
		Record: func(r *record.Record) error {
			fmt.Printf("%s %s pk=%s sk=%s new=%d old=%d wcu=%d exact=%v ttl=%v\n", r.Table, r.EventName,
				r.PartitionKey.Value, r.SortKey.Value, r.NewImageSize, r.OldImageSize, r.WCU, r.WCUExact, r.TTLDelete)
			return nil
		},
		Malformed: func(m *record.Malformed) error {
			fmt.Println("malformed:", errors.Is(m.Err, record.ErrEventName), m.EventID)
			return nil
		},
	})
	fmt.Println("error:", err)
	// Output:
	// window 10:00 to 10:01 of shardId-0001
	// Orders INSERT pk=STATUS#ACTIVE sk=100 new=28 old=-1 wcu=1 exact=true ttl=false
	// Orders REMOVE pk=OPS_LOG sk=7 new=-1 old=13 wcu=0 exact=true ttl=true
	// malformed: true 3
	// error: <nil>
}

func ExampleNumberSize() {
	for _, n := range []string{"0", "1.5", "12000", "230", "0.00091", "-1", "-1.5", "3.14159", "6.13E-120"} {
		size, _ := record.NumberSize(n)
		fmt.Printf("%s:%d\n", n, size)
	}
	_, err := record.NumberSize("1e126")
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
	// record: invalid number: magnitude outside DynamoDB's range [1e-130, 1e126) "1e126"
}

func ExampleCanonicalNumber() {
	for _, n := range []string{"10", "10.0", "1e1", "+10", "-0", "1.50E-3"} {
		c, _ := record.CanonicalNumber(nil, []byte(n))
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

func ExampleItemSize() {
	size, err := record.ItemSize([]byte(`{"id":{"S":"a"},"n":{"N":"1.5"},"tags":{"SS":["x","yz"]},"m":{"M":{"k":{"BOOL":true}}}}`))
	// id 2+1, n 1+3, tags 4+3, m 1 + (3 + 1 + 1+1)
	fmt.Println(size, err)
	// Output:
	// 21 <nil>
}

func ExampleWriteUnits() {
	fmt.Println(record.WriteUnits(record.Modify, 900, 2500, 20, false)) // the larger image: 2500 B
	fmt.Println(record.WriteUnits(record.Insert, -1, -1, 20, false))    // KEYS_ONLY: a lower bound
	fmt.Println(record.WriteUnits(record.Remove, -1, 5000, 20, true))   // TTL deletes are free
	// Output:
	// 3 true
	// 1 false
	// 0 true
}
