package detector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/record"
)

// testIndexWindow is an index's window: its name, a put and a TTL delete
// of an entry.
func testIndexWindow(t testing.TB) *Window {
	w, err := NewIndexWindow(DefaultConfig().Sketch, "Logs", "GSI1", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	r := withIndex(rec("Logs", "a", "", 1, t0), "GSI1", "OPS_LOG", 3, "", 0)
	r.Indexes = append(r.Indexes, record.IndexWrite{Index: "GSI1", Exact: true, TTLWCU: 2,
		Delete: ddb.IndexEntry{Key: ddb.Key{Type: ddb.String, Value: []byte("OPS_LOG")}}})
	w.AddIndex(r, &r.Indexes[0])
	w.AddIndex(r, &r.Indexes[1])
	return w
}

// goldenWindow is a window and its encoding.
type goldenWindow struct {
	w   *Window
	enc []byte
}

// goldenWindows returns a table's window (testWindow), an index's, and
// both put through marshalWithin a budget 40 bytes short of their size,
// which trims the lightest keys of each.
func goldenWindows(t testing.TB) map[string]goldenWindow {
	out := map[string]goldenWindow{}
	for name, w := range map[string]*Window{"window-table.bin": testWindow(t), "window-index.bin": testIndexWindow(t)} {
		b, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out[name] = goldenWindow{w, b}
	}
	ws := []*Window{testWindow(t), testIndexWindow(t)}
	encs, err := marshalWithin(ws, len(out["window-table.bin"].enc)+len(out["window-index.bin"].enc)-40)
	if err != nil {
		t.Fatal(err)
	}
	if !ws[0].trimmed {
		t.Fatal("marshalWithin did not trim the table's window")
	}
	for i, b := range encs {
		out[fmt.Sprintf("window-within-%d.bin", i)] = goldenWindow{ws[i], b}
	}
	return out
}

// TestEncodingGolden: window state encodes byte for byte as the files in
// testdata named -v6, so that a Lambda deploy reads the state the one
// before it wrote; and those bytes decode to the window encoded. The files
// without a version were written by the build before the encoding moved
// onto package internal/frame, as version 5, whose counters came in
// another order: they decode to the same window, so that the deploy that
// brought version 6 read the state version 5 left.
func TestEncodingGolden(t *testing.T) {
	cfg := DefaultConfig()
	for name, g := range goldenWindows(t) {
		v6 := strings.TrimSuffix(name, ".bin") + "-v6.bin"
		v5, err := os.ReadFile(filepath.Join("testdata", name)) // never rewritten: no build writes version 5 now
		if err != nil {
			t.Fatal(err)
		}
		// Version 5 holds the first seven counters.
		w5 := *g.w
		w5.totals = firstCounters(g.w.totals, 7)
		for file, c := range map[string]struct {
			enc  []byte
			want *Window
		}{v6: {golden.Check(t, filepath.Join("testdata", v6), g.enc), g.w}, name: {v5, &w5}} {
			dec, err := UnmarshalWindow(c.enc, cfg.Sketch)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if diff := cmp.Diff(c.want, dec, windowState, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: decoded (-encoded +decoded):\n%s", file, diff)
			}
			if diff := cmp.Diff(summaryView(g.w.summary), summaryView(dec.summary)); diff != "" {
				t.Errorf("%s: decoded summary (-encoded +decoded):\n%s", file, diff)
			}
		}
	}
}
