package alert

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// goldenStart is a fixed window: EMF lines are written whatever the clock
// says, so the golden output does not age.
var goldenStart = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func emfPublisher(t *testing.T, cfg Config) (*Publisher, *syncBuffer) {
	t.Helper()
	cfg.Mode = ModeEMF
	out := &syncBuffer{}
	p, err := newTestPublisher(cfg, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

func TestEMFMatchesSpecAndReport(t *testing.T) {
	for _, res := range []int{60, 1} {
		cfg := DefaultConfig()
		cfg.StorageResolution = res
		p, out := emfPublisher(t, cfg)
		r := sampleReport("Orders", goldenStart)
		r.HotKeys[0].Key = "user@example.com\x00é" // needs encoding
		result, err := p.Publish(context.Background(), []report.Report{r})
		if err != nil {
			t.Fatal(err)
		}
		emf, _ := splitOutput(t, out.Bytes())
		if len(emf) != 4 {
			t.Fatalf("%d EMF lines: want one for the table and one per key", len(emf))
		}
		sameObs(t, "EMF", emfObs(emf), expectedObs(r, r.HotKeys))
		sameResult(t, Result{MetricsEMF: len(expectedObs(r, r.HotKeys)), FindingsLogged: len(r.HotKeys)}, result)
		for i, l := range emf {
			wantDims := []string{"TableName"}
			if i > 0 {
				wantDims = append(wantDims, "PartitionKey")
			}
			if l.Namespace != DefaultNamespace || strings.Join(l.Dims, ",") != strings.Join(wantDims, ",") {
				t.Errorf("line %d: namespace %q, dimensions %v", i, l.Namespace, l.Dims)
			}
		}
		hasRes := bytes.Contains(out.Bytes(), []byte(`"StorageResolution":1`))
		if hasRes != (res == 1) {
			t.Errorf("resolution %d: StorageResolution written = %v", res, hasRes)
		}
	}
}

func TestEMFSplitsDirectivesAtHundredMetrics(t *testing.T) {
	g := group{timestamp: goldenStart, dims: []dimension{{"TableName", `Or"de\rs`}}}
	for i := range 250 {
		g.values = append(g.values, value{name: "M" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)), unit: UnitCount, v: float64(i)})
	}
	line := appendEMF(nil, "N", 60, &g)
	doc := parseEMF(t, line[:len(line)-1])
	if len(doc.Obs) != 250 || bytes.Count(line, []byte(`"Namespace"`)) != 3 {
		t.Errorf("%d values in %d directives, want 250 in 3", len(doc.Obs), bytes.Count(line, []byte(`"Namespace"`)))
	}
	for i, o := range doc.Obs {
		if o.Value != float64(i) || o.Dims != `TableName=Or"de\rs` {
			t.Fatalf("value %d parsed as %v", i, o)
		}
	}
}

func TestJSONNumbersMatchEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 23456, 0.1, 1.0 / 3, 1e-7, 1.5e-9, 123456789e15, 1e21, 1e300, -2.5e-300, 18446744073709551615} {
		want, _ := jsonMarshal(f)
		if got := string(appendJSONNumber(nil, f)); got != want {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

// The same input gives the same bytes, and those bytes are the golden file.
func TestEMFGolden(t *testing.T) {
	run := func() []byte {
		p, out := emfPublisher(t, DefaultConfig())
		r := sampleReport("Orders", goldenStart)
		r.TerminatedEarly = true
		if _, err := p.Publish(context.Background(), []report.Report{r}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	got := run()
	if again := run(); !bytes.Equal(got, again) {
		t.Fatalf("two runs differ:\n%s\n%s", got, again)
	}
	golden.Equal(t, filepath.Join("testdata", "publish_emf.golden"), got)
}
