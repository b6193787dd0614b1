package heatmap

import (
	"bytes"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestPageGolden draws the demo's windows (package report's sample stream
// reports), with the defaults and with every cap biting: the pages are
// byte for byte those the build before the report vocabulary left the
// detector drew (testdata/*.html).
func TestPageGolden(t *testing.T) {
	reps := golden.Lines[report.Report](t, "../report/testdata/stream.jsonl")
	for _, c := range []struct {
		page string
		opts Options
	}{
		{"testdata/stream.html", Options{PartitionLimit: 1000}},
		{"testdata/stream-capped.html", Options{MaxKeys: 3, MaxColumns: 4, MaxShards: 2, MinShare: 0.01}},
	} {
		b := New(c.opts)
		b.Add(reps...)
		var got bytes.Buffer
		if err := WriteHTML(&got, b.Maps()); err != nil {
			t.Fatal(err)
		}
		golden.Equal(t, c.page, got.Bytes())
	}
}
