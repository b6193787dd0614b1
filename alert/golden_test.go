package alert

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
)

// TestPublishGolden publishes the sample reports of package report, the
// demo's stream windows and the client-side ones, as EMF: the findings
// log and the EMF lines are byte for byte those of the build before the
// report vocabulary left the detector (testdata/publish-reports.golden).
func TestPublishGolden(t *testing.T) {
	var got bytes.Buffer
	for _, c := range []struct {
		name string
		path string
		top  int
	}{
		{"stream", "../report/testdata/stream.jsonl", 3},
		{"client", "../report/testdata/client.jsonl", 10},
	} {
		cfg := DefaultConfig()
		cfg.Mode = ModeEMF
		cfg.Top = c.top
		var out bytes.Buffer
		p, err := NewPublisher(cfg, nil, &out)
		if err != nil {
			t.Fatal(err)
		}
		p.now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
		res, err := p.Publish(context.Background(), golden.Lines[detector.Report](t, c.path))
		fmt.Fprintf(&got, "=== %s: %+v, %v\n%s", c.name, res, err, out.Bytes())
	}
	golden.Equal(t, "testdata/publish-reports.golden", got.Bytes())
}
