package detector_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/maxkeys"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// keyFigures is what must survive of a key: its identity and its WCU.
type keyFigures struct {
	Key, Type         string
	WCU, Lower, Upper uint64
}

// expectedFigures decodes the records one by one and sums each key's WCU
// by the index maxkeys gives, so that the keys' identity is never taken
// from the code under test.
func expectedFigures(t *testing.T, records []string, keyOf []int) []keyFigures {
	t.Helper()
	dec, err := record.NewDecoder(record.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	keys := maxkeys.Keys()
	wcu := make([]uint64, len(keys))
	for j, r := range records {
		err := dec.Decode([]byte(r), record.Visitor{Record: func(r *record.Record) error {
			wcu[keyOf[j]] += r.WCU
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []keyFigures
	for i, k := range keys {
		out = append(out, keyFigures{k.Printed, k.Type, wcu[i], wcu[i], wcu[i]})
	}
	return sortFigures(out)
}

func sortFigures(f []keyFigures) []keyFigures {
	slices.SortFunc(f, func(a, b keyFigures) int { return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Key, b.Key)) })
	return f
}

func figuresOf(keys []report.KeyReport) []keyFigures {
	var out []keyFigures
	for _, k := range keys {
		out = append(out, keyFigures{k.Key, k.Type, k.WCU, k.WCULower, k.WCUUpper})
	}
	return sortFigures(out)
}

// windowSink counts a Feed's records into one Window.
type windowSink struct{ w *detector.Window }

func (s windowSink) Add(r *record.Record) error { s.w.Add(r); return nil }
func (s windowSink) AddMalformed(string)        { s.w.AddMalformed(1) }

// TestMaximumLengthKeys: every key DynamoDB accepts is counted and reported
// byte for byte (2,048-byte S and B keys, multi-byte endings, keys that
// differ only in their last byte, 38-digit numbers), through a window, its
// tumbling-window state and a merge of two windows.
func TestMaximumLengthKeys(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	records, keyOf := maxkeys.Records("Orders", start)
	want := expectedFigures(t, records, keyOf)
	cfg := detector.DefaultConfig()
	cfg.Top = 2 * len(want)

	feed := func(w *detector.Window, recs []string) {
		t.Helper()
		dec, err := record.NewDecoder(record.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		c, err := detector.NewFeed(dec, func() time.Time { return start }).Decode(maxkeys.Event(recs), windowSink{w}, detector.Hooks{})
		if err != nil || c.Records != len(recs) {
			t.Fatalf("fed %d of %d records: %v", c.Records, len(recs), err)
		}
	}
	newWindow := func() *detector.Window {
		w, err := detector.NewWindow(cfg.Sketch, "Orders", start, start.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	whole := newWindow()
	feed(whole, records)
	rep := whole.Report(cfg)
	if diff := gocmp.Diff(want, figuresOf(rep.TopKeys)); diff != "" {
		t.Errorf("one window (-want +got):\n%s", diff)
	}

	t.Run("tumbling-window state", func(t *testing.T) {
		b, err := whole.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := detector.UnmarshalWindow(b, cfg.Sketch)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(rep, back.Report(cfg)); diff != "" {
			t.Errorf("report after a round trip through %d bytes of state (-before +after):\n%s", len(b), diff)
		}
	})
	t.Run("merged windows", func(t *testing.T) {
		a, b := newWindow(), newWindow()
		feed(a, records[:len(records)/2])
		feed(b, records[len(records)/2:])
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(want, figuresOf(a.Report(cfg).TopKeys)); diff != "" {
			t.Errorf("merged (-want +got):\n%s", diff)
		}
	})
}
