package frame_test

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

var (
	errCorrupt = errors.New("shards: corrupt state")
	errVersion = errors.New("shards: unknown state version")
)

// shardsFormat frames a list of shard names and their record counts.
var shardsFormat = frame.Format{Name: "shards", Magic: "sh", Oldest: 1, Newest: 1, Corrupt: errCorrupt, Version: errVersion}

func Example() {
	b := shardsFormat.AppendHeader(nil, 1)
	b = binary.AppendUvarint(b, 2)
	for _, s := range []string{"shardId-1", "shardId-2"} {
		b = frame.AppendString(b, s)
		b = binary.AppendUvarint(b, 1000)
	}
	b = frame.AppendChecksum(b, 0)

	_, r, err := shardsFormat.Open(b)
	if err != nil {
		panic(err)
	}
	for range r.Count(2) {
		fmt.Println(r.Text(), r.Uvarint())
	}
	fmt.Println(r.Err(), r.Len())

	newer := append([]byte("sh\x02"), b[3:]...)
	_, _, err = shardsFormat.Open(newer)
	fmt.Println(errors.Is(err, errVersion), err)
	r = shardsFormat.NewReader([]byte{0x85})
	r.Uvarint()
	fmt.Println(errors.Is(r.Err(), frame.ErrTruncated), r.Err())
	// Output:
	// shardId-1 1000
	// shardId-2 1000
	// <nil> 0
	// true shards: version 2, want 1: shards: unknown state version
	// true shards: input ends in a varint: truncated encoding: shards: corrupt state
}
