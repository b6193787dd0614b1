package history

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// TestFromReportInternalErrors: a window that lost records to a bug in
// hotkeys says so in its summary; nothing else about it changes.
func TestFromReportInternalErrors(t *testing.T) {
	cfg := detector.DefaultConfig()
	w, err := detector.NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for sec := range 60 {
		w.Add(&record.Record{Table: "Orders", Shard: "s", Time: t0.Add(time.Duration(sec) * time.Second),
			PartitionKey: ddb.Key{Type: ddb.String, Value: []byte("K")}, WCU: 2, WCUExact: true})
	}
	w.AddMalformed(3)
	w.AddInternal(5)
	rep := w.Report(cfg)
	if rep.InternalErrors != 5 {
		t.Fatalf("the detector's report has %d internal errors, want 5", rep.InternalErrors)
	}
	got := FromReport(rep, "s", nil)
	clean := rep
	clean.InternalErrors = 0
	want := FromReport(clean, "s", nil)
	want.InternalErrors = 5
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Malformed != 3 || got.InternalErrors != 5 {
		t.Errorf("malformed %d, internal errors %d: want 3 and 5, each in its own field", got.Malformed, got.InternalErrors)
	}
}

// TestInternalErrorsVersion3: a window with internal errors, a table's or
// an index's, is stored as version 3 and round-trips whole; without them
// it is still version 1 or 2.
func TestInternalErrorsVersion3(t *testing.T) {
	table := *newStream(t, 1, 1, 1).summaries[0]
	index := *withoutNewPatterns(indexSummaries(t, 1)[0])
	for _, c := range []struct {
		name       string
		s          Summary
		cleanVer   int
		wantIndex  string
		wantTTLWCU uint64
	}{
		{"table", table, 1, "", 0},
		{"index", index, 2, "GSI1", 3},
	} {
		if b, _ := c.s.MarshalBinary(); b[2] != byte(c.cleanVer) || c.s.Version() != c.cleanVer {
			t.Errorf("%s without internal errors: version %d (Version %d), want %d", c.name, b[2], c.s.Version(), c.cleanVer)
		}
		for _, n := range []uint64{1, 127, 128, 1 << 40} { // varints of one, two and six bytes
			s := c.s
			s.InternalErrors = n
			got, b := roundTrip(t, &s)
			if b[2] != 3 || s.Version() != 3 {
				t.Errorf("%s, %d internal errors: version %d (Version %d), want 3", c.name, n, b[2], s.Version())
			}
			if diff := cmp.Diff(&s, got); diff != "" {
				t.Errorf("%s, %d internal errors: round trip (-want +got):\n%s", c.name, n, diff)
			}
			if got.Index != c.wantIndex || got.TTLWCU != c.wantTTLWCU || got.InternalErrors != n {
				t.Errorf("%s: index %q, TTL WCU %d, internal errors %d; want %q, %d, %d",
					c.name, got.Index, got.TTLWCU, got.InternalErrors, c.wantIndex, c.wantTTLWCU, n)
			}
		}
	}
}

// TestMergeSumsInternalErrors: merged steps carry the sum of their windows'
// internal errors, whatever the step, and apart from that are exactly the
// reports of the same windows without them.
func TestMergeSumsInternalErrors(t *testing.T) {
	st := newStream(t, 6, 3, 4)
	for _, step := range []time.Duration{time.Minute, 2 * time.Minute} {
		m, _ := NewMerger("Orders", "", step, 5)
		clean, _ := NewMerger("Orders", "", step, 5)
		want := map[time.Time]uint64{}
		for i, s := range st.summaries {
			c := *s
			if err := clean.Add(&c); err != nil {
				t.Fatal(err)
			}
			// Through the stored form (version 3 where there are some).
			c.InternalErrors = uint64(i % 3 * (i + 1))
			withErrors, _ := roundTrip(t, &c)
			if err := m.Add(withErrors); err != nil {
				t.Fatal(err)
			}
			want[s.Start.Truncate(step)] += c.InternalErrors
		}
		reps, cleanReps := m.Reports(), clean.Reports()
		if len(reps) != len(cleanReps) || len(reps) != int(4*time.Minute/step) {
			t.Fatalf("step %s: %d reports, %d without internal errors; want %d", step, len(reps), len(cleanReps), 4*time.Minute/step)
		}
		var total uint64
		for i, rep := range reps {
			if rep.InternalErrors != want[rep.Start] {
				t.Errorf("step %s at %s: internal errors %d, want %d", step, rep.Start.Format("15:04"), rep.InternalErrors, want[rep.Start])
			}
			total += rep.InternalErrors
			w := cleanReps[i]
			w.InternalErrors = want[rep.Start]
			if diff := cmp.Diff(w, rep); diff != "" {
				t.Errorf("step %s at %s: (-want +got):\n%s", step, rep.Start.Format("15:04"), diff)
			}
		}
		if total == 0 {
			t.Fatalf("step %s: the workload has no internal errors to merge", step)
		}
	}
}
