package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
)

// BenchmarkInvoke is one tumbling-window batch through the handler, as
// Lambda delivers it (events/hot-key-ops-log.json: 340 records, not the
// window's last batch, so the state is encoded and no metric published),
// without index analysis and with one index (HOTKEYS_INDEXES=auto, the
// description already looked up):
//
//	go test -run '^$' -bench Invoke -count 6 ./lambda
func BenchmarkInvoke(b *testing.B) {
	payload := withFlags(b, readSample(b, "hot-key-ops-log.json"), false, false)
	byLevel := []ddb.Index{{Name: "byLevel", PartitionKey: "level", Projection: ddb.ProjectKeysOnly}}
	for _, bc := range []struct {
		name string
		mode indexMode
	}{{"indexes=off", indexesOff}, {"indexes=auto", indexesAuto}} {
		b.Run(bc.name, func(b *testing.B) {
			schemas := &fakeSchemas{schema: keyschema.Schema{PartitionKey: "PK", SortKey: "SK", Indexes: byLevel}}
			h, err := newHandler(detector.DefaultConfig(), "PK", bc.mode, schemas, &capture{}, slog.New(slog.DiscardHandler),
				func() time.Time { return time.Unix(1795341600, 0) })
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Invoke(context.Background(), payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
