package alert

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestPublishGolden publishes the sample reports of package report, the
// demo's stream windows and the client-side ones, as EMF: the findings
// log and the EMF lines are byte for byte those of the build before the
// report vocabulary left the detector (testdata/publish-reports.golden).
func TestPublishGolden(t *testing.T) {
	var got bytes.Buffer
	publish := func(name string, top int, do func(p *Publisher) (Result, error)) {
		cfg := DefaultConfig()
		cfg.Mode = ModeEMF
		cfg.Top = top
		var out bytes.Buffer
		p, err := NewPublisher(cfg, nil, &out)
		if err != nil {
			t.Fatal(err)
		}
		p.now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
		res, err := do(p)
		fmt.Fprintf(&got, "=== %s: %+v, %v\n%s", name, res, err, out.Bytes())
	}
	stream := golden.Lines[report.Report](t, "../report/testdata/stream.jsonl")
	client := golden.Lines[report.ClientReport](t, "../report/testdata/client.jsonl")
	publish("stream", 3, func(p *Publisher) (Result, error) { return p.Publish(context.Background(), stream) })
	publish("client", 10, func(p *Publisher) (Result, error) { return p.PublishClient(context.Background(), client) })
	golden.Equal(t, "testdata/publish-reports.golden", got.Bytes())
}
