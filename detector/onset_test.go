package detector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// onsetStream is one minute of writes, in time order: a tail of keys at 2
// WCU/s each, COUNTER at 700 WCU/s (under the critical rate, always), and
// HOT at 100 WCU/s until second 25 and 1,000 WCU/s from there on.
func onsetStream() []*recordAt {
	var out []*recordAt
	for s := range 60 {
		at := t0.Add(time.Duration(s) * time.Second)
		for i := range 50 {
			out = append(out, &recordAt{rec("Orders", fmt.Sprintf("USER#%d", i), "", 2, at), s})
		}
		for range 70 {
			out = append(out, &recordAt{rec("Orders", "COUNTER", "", 10, at), s})
		}
		hot := 10
		if s >= 25 {
			hot = 100
		}
		for range hot {
			out = append(out, &recordAt{rec("Orders", "HOT", "", 10, at), s})
		}
	}
	return out
}

type recordAt struct {
	r   *record.Record
	sec int
}

// TestWindowOnsets: a key is announced once, in the second it crossed,
// with bounds that hold its true WCU in that second, whatever the batches
// the stream comes in; keys under the critical rate never are.
func TestWindowOnsets(t *testing.T) {
	cfg := DefaultConfig()
	stream := onsetStream()
	for _, batch := range []int{1, 37, 120, 1000, len(stream)} {
		t.Run(fmt.Sprint("batches of ", batch), func(t *testing.T) {
			w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			w.Watch(cfg)
			var got []report.Onset
			for i, ra := range stream {
				w.Add(ra.r)
				if (i+1)%batch == 0 || i == len(stream)-1 {
					n := len(got)
					got = w.Onsets(got)
					for _, o := range got[n:] {
						// Announced with the batch that counted the second.
						if o.Second.Unix() > ra.r.Time.Unix() {
							t.Errorf("onset at %v announced after a batch ending at %v", o.Second, ra.r.Time)
						}
					}
				}
			}
			if len(got) != 1 {
				t.Fatalf("%d onsets, want 1: %+v", len(got), got)
			}
			if got[0].Key.Key != "HOT" || got[0].Key.Severity != report.Critical || got[0].Key.Pattern != report.PatternSingleItem || got[0].Key.Diagnosis == "" {
				t.Errorf("onset's key: %+v", got[0].Key)
			}
			// The second is over when announced unless the batch ended
			// in it; HOT is tracked exactly, so its bounds meet, at what
			// the announcing batch had counted of the second.
			o := got[0]
			counted := o.SecondWCULower
			if !o.SecondSoFar {
				counted = 1000
			}
			got[0].Key = report.KeyFigures{}
			want := []report.Onset{{
				Window:         report.Window{Table: "Orders", Start: t0, End: t0.Add(time.Minute)},
				Second:         t0.Add(25 * time.Second),
				SecondWCULower: counted, SecondWCUUpper: counted, SecondSoFar: o.SecondSoFar,
			}}
			if diff := cmp.Diff(want, got); diff != "" || counted < 800 {
				t.Errorf("onsets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowOnsetSecondAcrossBatches: a second split over two batches is
// announced once its total crosses, with that second.
func TestWindowOnsetSecondAcrossBatches(t *testing.T) {
	cfg := DefaultConfig()
	w, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	w.Watch(cfg)
	at := t0.Add(7 * time.Second)
	for range 50 {
		w.Add(rec("Orders", "HOT", "", 10, at))
	}
	if got := w.Onsets(nil); len(got) != 0 {
		t.Fatalf("500 WCU in a second announced: %+v", got)
	}
	// The state goes to Lambda and back between the two batches.
	enc, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if w, err = UnmarshalWindow(enc, cfg.Sketch); err != nil {
		t.Fatal(err)
	}
	w.Watch(cfg)
	for range 40 {
		w.Add(rec("Orders", "HOT", "", 10, at))
	}
	got := w.Onsets(nil)
	if len(got) != 1 || !got[0].Second.Equal(at) || got[0].SecondWCULower != 900 {
		t.Fatalf("onsets %+v, want HOT at %v with 900 WCU", got, at)
	}
	// Announced once per window, across the state too.
	if enc, err = w.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	w, _ = UnmarshalWindow(enc, cfg.Sketch)
	w.Watch(cfg)
	for s := 8; s < 20; s++ {
		for range 100 {
			w.Add(rec("Orders", "HOT", "", 10, t0.Add(time.Duration(s)*time.Second)))
		}
	}
	if got := w.Onsets(nil); len(got) != 0 {
		t.Fatalf("announced again: %+v", got)
	}
}

// TestWindowOnsetLateEntry: a key that enters the heavy hitters during the
// second it crosses has only what it wrote since counted, so its onset
// waits for a second in which that alone reaches the rate, and its bounds
// still hold the truth.
func TestWindowOnsetLateEntry(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Sketch = sketch.Config{Counters: 4, Width: 64, Depth: 2}
	w, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	w.Watch(cfg)
	exact := map[int64]uint64{}
	add := func(k string, wcu uint64, s int) {
		at := t0.Add(time.Duration(s) * time.Second)
		w.Add(rec("Orders", k, "", wcu, at))
		if k == "LATE" {
			exact[at.Unix()] += wcu
		}
	}
	for s := range 10 {
		for i := range 8 { // more keys than counters, each heavier than LATE's first records
			add(fmt.Sprintf("K%d", i), 300, s)
			add("LATE", 100, s)
		}
	}
	got := w.Onsets(nil)
	if len(got) != 1 {
		t.Fatalf("onsets %+v, want LATE's", got)
	}
	o := got[0]
	truth := exact[o.Second.Unix()]
	if o.Key.Key != "LATE" || float64(truth) < cfg.CriticalWCUPerSecond || o.SecondWCULower > truth || truth > o.SecondWCUUpper {
		t.Errorf("onset %+v: true WCU in its second %d", o, truth)
	}
}

func TestWindowOnsetRedacted(t *testing.T) {
	cfg := DefaultConfig()
	h, err := redact.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Redactor = h
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 90 {
		if err := d.Add(rec("Orders", "alice@example.com", "", 10, t0)); err != nil {
			t.Fatal(err)
		}
	}
	got := d.Onsets(nil)
	if len(got) != 1 || got[0].Key.Key != h.Key('S', []byte("alice@example.com")) {
		t.Fatalf("onsets %+v, want the redacted key", got)
	}
}

// TestWindowOnsetsBounded: a window remembers at most MaxWatchedKeys keys;
// the onsets past them are counted, never announced twice.
func TestWindowOnsetsBounded(t *testing.T) {
	cfg := DefaultConfig()
	w, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(15*time.Minute))
	w.Watch(cfg)
	n := 0
	for s := range MaxWatchedKeys + 10 {
		w.Add(rec("Orders", fmt.Sprintf("SECOND#%d", s), "", 900, t0.Add(time.Duration(s)*time.Second)))
		n += len(w.Onsets(nil))
	}
	// The last second is still running: its key is dropped once it ends.
	if n != MaxWatchedKeys || w.OnsetsDropped() != 9 {
		t.Errorf("%d onsets, %d dropped; want %d and 9", n, w.OnsetsDropped(), MaxWatchedKeys)
	}
	enc, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(15*time.Minute))
	for s := range MaxWatchedKeys + 10 {
		u.Add(rec("Orders", fmt.Sprintf("SECOND#%d", s), "", 900, t0.Add(time.Duration(s)*time.Second)))
	}
	plain, _ := u.MarshalBinary()
	if extra := len(enc) - len(plain); extra > MaxWatchedKeys*10+8 {
		t.Errorf("the watched keys take %d bytes of the encoding", extra)
	}
}

// TestWatchingAddAllocatesNothing: once a key is announced, counting
// records across second boundaries, which checks each ending second's
// keys and counts saturated seconds, makes no allocation: Add stays the
// hot path it was.
func TestWatchingAddAllocatesNothing(t *testing.T) {
	cfg := DefaultConfig()
	w, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(15*time.Minute))
	w.Watch(cfg)
	// Seconds of records, built beforehand: HOT at 1,000 WCU/s (announced,
	// then saturated second after second) and a tail.
	var seconds [][]*record.Record
	for s := range 20 {
		at := t0.Add(time.Duration(s) * time.Second)
		var recs []*record.Record
		for i := range 100 {
			r := rec("Orders", "HOT", "", 10, at)
			r.Shard = "shardId-1"
			recs = append(recs, r, rec("Orders", fmt.Sprintf("U%d", i), "", 1, at))
		}
		seconds = append(seconds, recs)
	}
	add := func(s int) {
		for _, r := range seconds[s] {
			w.Add(r)
		}
	}
	for s := range 3 { // the announcement, and the scratch buffers' growth
		add(s)
		w.Onsets(nil)
	}
	s := 3
	if n := testing.AllocsPerRun(10, func() { add(s); s++ }); n != 0 {
		t.Errorf("Add of a second's records allocated %v times", n)
	}
	if k := w.watchedKeys[0]; !k.announced || k.saturated < 10 {
		t.Errorf("HOT: %+v, want announced and saturated second after second", k)
	}
}

// TestDetectorIndexOnset: an index key that crosses is announced with its
// index, once, beside the table's own keys, which stay quiet.
func TestDetectorIndexOnset(t *testing.T) {
	d, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for s := range 5 {
		for i := range 90 {
			r := withIndex(rec("Orders", fmt.Sprintf("LOG#%d#%d", s, i), "", 10, t0.Add(time.Duration(s)*time.Second)), "GSI1", "OPS_LOG", 10, "", 0)
			if err := d.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := d.Onsets(nil)
	if len(got) != 1 || got[0].Index != "GSI1" || got[0].Key.Key != "OPS_LOG" || !got[0].Second.Equal(t0) ||
		got[0].SecondWCULower != 900 || got[0].Key.Pattern != report.PatternConstantKey {
		t.Errorf("onsets %+v, want GSI1's OPS_LOG at %v with 900 WCU", got, t0)
	}
}

// TestShardOnsetTakesItsKeysPattern: a write shard that crosses the
// critical rate is announced with the pattern and fix its logical key
// will have in the window's report (two shards near the cap: too few),
// not the single-key shape it has alone.
func TestShardOnsetTakesItsKeysPattern(t *testing.T) {
	cfg := DefaultConfig()
	w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w.Watch(cfg)
	var got []report.Onset
	for s := range 3 {
		at := t0.Add(time.Duration(s) * time.Second)
		for i := range 20 {
			w.Add(rec("Orders", fmt.Sprintf("USER#%d", i), "", 2, at))
		}
		for range 90 {
			w.Add(rec("Orders", "EVENTS#SHARD_0", fmt.Sprint("E", s), 10, at))
			w.Add(rec("Orders", "EVENTS#SHARD_1", fmt.Sprint("E", s), 10, at))
		}
		got = w.Onsets(got)
	}
	rep := w.Report(cfg)
	final := map[string]report.KeyReport{}
	for _, k := range rep.HotKeys {
		final[k.Key] = k
	}
	if len(got) != 2 {
		t.Fatalf("%d onsets, want the two shards': %+v", len(got), got)
	}
	for _, o := range got {
		want := final[o.Key.Key]
		if o.Key.Pattern != report.PatternShardedTooFew || o.Key.Pattern != want.Pattern || o.Key.RecommendedShards != want.RecommendedShards ||
			!strings.Contains(o.Key.Diagnosis, "See EVENTS#<shard> for the fix") {
			t.Errorf("onset of %s: %s, %d shards, %q; the window reports %s, %d shards", o.Key.Key, o.Key.Pattern, o.Key.RecommendedShards, o.Key.Diagnosis, want.Pattern, want.RecommendedShards)
		}
	}
}
