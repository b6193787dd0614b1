package detector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// testWindow holds something in every field a Window encodes: two shards
// with their peaks, TTL deletes, an inexact record (so the WCU is a lower
// bound), sort-keyed items, a flagged key, malformed, internal and late
// counts, the terminated-early flag, and (it watches) an announced,
// saturated key and a saturated shard.
func testWindow(t testing.TB) *Window {
	cfg := DefaultConfig()
	w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w.Watch(cfg)
	// A counter rewritten 1,000 times a second for three seconds: flagged,
	// announced, saturated, and its shard too. It comes first: a
	// window checks its seconds as record time moves on, in order.
	for i := range 3000 {
		r := rec("Orders", "COUNTER#hits", "TOTAL", 1, t0.Add(time.Duration(30+i/1000)*time.Second))
		r.Shard = "shardId-3"
		if i == 0 {
			r.WCUExact = false
		}
		w.Add(r)
	}
	for i := range 2000 {
		r := rec("Orders", "k"+string(rune('a'+i%7)), "", uint64(1+i%3), t0.Add(time.Duration(i%60)*time.Second))
		r.Shard = []string{"shardId-1", "shardId-2"}[i%2]
		if i%97 == 0 {
			r.EventName, r.TTLDelete, r.WCU = record.Remove, true, 0
		}
		w.Add(r)
	}
	w.AddMalformed(3)
	w.AddInternal(2)
	w.AddLate(5)
	w.MarkTerminatedEarly()
	if got := w.Onsets(nil); len(got) != 1 {
		t.Fatalf("onsets %+v, want COUNTER#hits's", got)
	}
	return w
}

// allFieldsSet fails the test when a field of v (a struct, and the structs
// it embeds) is its zero value, so that a round trip that dropped the field
// cannot go unseen; except for the fields named in zero, which must be zero.
func allFieldsSet(t *testing.T, what string, v any, zero ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		if rv.Type().Field(i).Anonymous && rv.Field(i).Kind() == reflect.Struct {
			allFieldsSet(t, what, rv.Field(i).Interface(), zero...)
			continue
		}
		switch isZero, wantZero := rv.Field(i).IsZero(), slices.Contains(zero, name); {
		case isZero && !wantZero:
			t.Errorf("%s: %s is zero: the fixture does not exercise it", what, name)
		case !isZero && wantZero:
			t.Errorf("%s: %s = %v, want it zero", what, name, rv.Field(i).Interface())
		}
	}
}

// windowState compares Windows by every field but the summary (compared
// by what it answers: its encoding is not canonical) and the scratch
// buffers.
var windowState = cmp.Options{
	cmp.AllowUnexported(Window{}, shardLoad{}, watchedKey{}),
	// watch is configuration, set again after a decode; pending onsets
	// are handed out before a window is encoded. The key patterns are
	// compared through the report, and their encoding in keypattern's
	// own tests.
	cmpopts.IgnoreFields(Window{}, "summary", "patterns", "keyBuf", "itemBuf", "ticks", "watch", "pending"),
}

// summaryView is what a sketch.Summary answers: every tracked key with
// its bounds, peak and items, the total and the distinct-key estimate.
type summaryViewT struct {
	Total, Distinct uint64
	Top             []sketch.Entry
}

func summaryView(s *sketch.Summary) summaryViewT {
	return summaryViewT{Total: s.Total(), Distinct: s.Distinct(), Top: s.Top(s.Config().Counters)}
}

func TestWindowRoundTrip(t *testing.T) {
	w := testWindow(t)
	// Trimmed of its lightest key, as marshalWithin trims, so that Trimmed
	// and a raised floor travel too.
	w.summary.Trim(len(w.summary.Top(w.summary.Config().Counters)) - 1)
	w.trimmed = true
	w.AddDuplicate(4) // not in the golden windows, which hold the counters as before
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Top = 1 // fewer than the window's keys, so that OtherKeysWCUUpper is exercised too
	got, err := UnmarshalWindow(b, cfg.Sketch)
	if err != nil {
		t.Fatal(err)
	}
	got.Watch(cfg) // as the Lambda does: the state carries no thresholds
	want := w.Report(cfg)
	// Index and TTLWCU belong to an index's windows: TestIndexWindowEncodes.
	// PatternsOther: TestPatternsWithinBudget.
	allFieldsSet(t, "report", want, "Index", "TTLWCU", "PatternsOther")
	allFieldsSet(t, "hot key", want.HotKeys[0], "Shards") // Shards: for sharded keys only
	if diff := cmp.Diff(want, got.Report(cfg)); diff != "" {
		t.Errorf("round trip changed the report (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(w, got, windowState); diff != "" {
		t.Errorf("round trip changed the window (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(summaryView(w.summary), summaryView(got.summary)); diff != "" {
		t.Errorf("round trip changed the summary (-before +after):\n%s", diff)
	}
}

// TestWindowCountersOfOtherBuilds: state that holds fewer counters than
// report.Totals has (a build's from before one was added) reads with the
// rest 0; state that holds more (a later build's, met on a rollback) reads
// with the ones this build does not know dropped.
func TestWindowCountersOfOtherBuilds(t *testing.T) {
	w := testWindow(t)
	w.totals.TTLWCU = 6 // the seventh counter, InternalErrors, is 2
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The counters follow the version, the names and the span.
	at := 1 + 1 + len(w.table) + 1 + len(w.index) + len(binary.AppendVarint(nil, w.start)) + len(binary.AppendVarint(nil, w.end))
	n := w.totals.Used()
	if int(b[at]) != n {
		t.Fatalf("byte %d is %d, not the number of counters used, %d", at, b[at], n)
	}
	counters := w.totals.AppendCounters(nil, 0, n)
	five := len(w.totals.AppendCounters(nil, 0, 5))
	rest := b[at+1+len(counters) : len(b)-4]
	state := func(n byte, counters []byte) []byte {
		out := append(append(append(slices.Clone(b[:at]), n), counters...), rest...)
		return frame.AppendChecksum(out, 0)
	}
	older := *w
	older.totals = firstCounters(w.totals, 5)
	later := *w
	for name, c := range map[string]struct {
		enc  []byte
		want *Window
	}{
		"five counters":       {state(5, counters[:five]), &older},
		"two counters more":   {state(report.NumCounters+2, append(w.totals.AppendCounters(nil, 0, report.NumCounters), 0x81, 0x01, 0x09)), &later},
		"as this build wrote": {state(byte(n), counters), w},
	} {
		got, err := UnmarshalWindow(c.enc, DefaultConfig().Sketch)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(c.want, got, windowState); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", name, diff)
		}
	}
	if !bytes.Equal(state(byte(n), counters), b) {
		t.Error("the test's state is not the window's encoding")
	}
}

// firstCounters returns tot with only its first n counters (in
// report.Totals' encoding order) and its flags: what a build that knew n
// counters reads of it.
func firstCounters(tot report.Totals, n int) report.Totals {
	out := report.Totals{WCUIsLowerBound: tot.WCUIsLowerBound}
	r := windowFormat.NewReader(tot.AppendCounters(nil, 0, n))
	out.ReadCounters(&r, 0, n)
	return out
}

func TestUnmarshalWindowRejectsDamage(t *testing.T) {
	b, err := testWindow(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig().Sketch
	cases := map[string][]byte{
		"empty":     nil,
		"truncated": b[:len(b)/2],
		"flipped":   append(append([]byte{}, b[:10]...), append([]byte{b[10] ^ 0x40}, b[11:]...)...),
		"version":   func() []byte { c := append([]byte{}, b...); c[0] = 99; return c }(),
	}
	for name, in := range cases {
		if _, err := UnmarshalWindow(in, cfg); !errors.Is(err, ErrCorruptWindow) {
			t.Errorf("%s: err = %v, want ErrCorruptWindow", name, err)
		}
	}
	other := cfg
	other.Counters *= 2
	if _, err := UnmarshalWindow(b, other); !errors.Is(err, ErrCorruptWindow) || !strings.Contains(err.Error(), "sketch config") {
		t.Errorf("state of another sketch configuration: err = %v, want ErrCorruptWindow naming the config", err)
	}
}

func FuzzUnmarshalWindow(f *testing.F) {
	b, err := testWindow(f).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:20])
	f.Add([]byte{windowVersion})
	v5, err := os.ReadFile(filepath.Join("testdata", "window-table.bin")) // version 5
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v5)
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := UnmarshalWindow(data, cfg.Sketch)
		if err != nil {
			if !errors.Is(err, ErrCorruptWindow) {
				t.Fatalf("rejected with %v, which does not wrap ErrCorruptWindow", err)
			}
			return
		}
		// Anything accepted encodes again to the same window, and is usable.
		again, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		w2, err := UnmarshalWindow(again, cfg.Sketch)
		if err != nil {
			t.Fatalf("an accepted window re-encodes to state that is refused: %v", err)
		}
		if diff := cmp.Diff(w, w2, windowState); diff != "" {
			t.Fatalf("re-encoding changed the window (-first +second):\n%s", diff)
		}
		if diff := cmp.Diff(summaryView(w.summary), summaryView(w2.summary)); diff != "" {
			t.Fatalf("re-encoding changed the summary (-first +second):\n%s", diff)
		}
		w.Add(rec("T", "k", "", 1, t0))
		_ = w.Report(cfg)
		if _, err := w.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	})
}
