package history

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestMergedReportsGolden stores each of package report's sample stream
// windows as two shards' summaries, reads them back, and merges them into
// 2-minute steps: the merged reports, as JSON, are byte for byte those of
// the build before the report vocabulary left the detector
// (testdata/merged.jsonl).
func TestMergedReportsGolden(t *testing.T) {
	type mapID struct{ table, index string }
	mergers := map[mapID]*Merger{}
	var order []mapID
	for _, r := range golden.Lines[report.Report](t, "../report/testdata/stream.jsonl") {
		id := mapID{r.Table, r.Index}
		if mergers[id] == nil {
			m, err := NewMerger(r.Table, r.Index, 2*time.Minute, 5)
			if err != nil {
				t.Fatal(err)
			}
			mergers[id] = m
			order = append(order, id)
		}
		for _, shard := range []string{"shard-a", "shard-b"} {
			b, err := FromReport(r, shard, nil).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var back Summary
			if err := back.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if err := mergers[id].Add(&back); err != nil {
				t.Fatal(err)
			}
		}
	}
	var reps []report.Report
	for _, id := range order {
		reps = append(reps, mergers[id].Reports()...)
	}
	slices.SortStableFunc(reps, func(a, b report.Report) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Index, b.Index))
	})
	var got bytes.Buffer
	for _, r := range reps {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(append(b, '\n'))
	}
	golden.Equal(t, "testdata/merged.jsonl", got.Bytes())
}
