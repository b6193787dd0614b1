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

func ExampleItemSize() {
	size, err := record.ItemSize([]byte(`{"id":{"S":"a"},"n":{"N":"1.5"},"tags":{"SS":["x","yz"]},"m":{"M":{"k":{"BOOL":true}}}}`))
	// id 2+1, n 1+3, tags 4+3, m 1 + (3 + 1 + 1+1)
	fmt.Println(size, err)
	// Output:
	// 21 <nil>
}
