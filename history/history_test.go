package history

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// stream is a random workload over several stream shards, with its exact
// per-key, per-minute truth.
type stream struct {
	cfg       detector.Config
	summaries []*Summary
	truth     map[string]map[int64]uint64 // key -> minute start -> WCU
	keys      map[int64]map[string]bool   // minute -> distinct keys
	records   map[int64]uint64
}

// newStream runs minutes of traffic on shards through one detector.Window
// per shard and minute, as the Lambda's tumbling windows do, and keeps each
// window's summary. A key "HOT#<shard>" is hot on its shard in the minute
// equal to its shard number, so a key hot on two shards in different
// minutes shows in both.
func newStream(t testing.TB, seed uint64, shards, minutes int) *stream {
	rng := rand.New(rand.NewPCG(seed, 77))
	cfg := detector.DefaultConfig()
	cfg.Top = 4
	cfg.Sketch.Counters = 32
	st := &stream{cfg: cfg, truth: map[string]map[int64]uint64{}, keys: map[int64]map[string]bool{}, records: map[int64]uint64{}}
	for m := range minutes {
		start := t0.Add(time.Duration(m) * time.Minute)
		for sh := range shards {
			shard := fmt.Sprintf("shardId-%02d", sh)
			w, err := detector.NewWindow(cfg.Sketch, "Orders", start, start.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			add := func(k string, wcu uint64, sec int) {
				r := record.Record{Table: "Orders", Shard: shard, Time: start.Add(time.Duration(sec) * time.Second),
					PartitionKey: ddb.Key{Type: ddb.String, Value: []byte(k)}, WCU: wcu, WCUExact: true}
				w.Add(&r)
				if st.truth[k] == nil {
					st.truth[k] = map[int64]uint64{}
				}
				st.truth[k][start.Unix()] += wcu
				if st.keys[start.Unix()] == nil {
					st.keys[start.Unix()] = map[string]bool{}
				}
				st.keys[start.Unix()][k] = true
				st.records[start.Unix()]++
			}
			for sec := range 60 {
				for range 5 + rng.IntN(20) {
					add(fmt.Sprintf("USER#%d", rng.IntN(3000)), uint64(1+rng.IntN(3)), sec)
				}
				for range rng.IntN(4) {
					add(fmt.Sprintf("K%d", int(rng.ExpFloat64()*5)), uint64(1+rng.IntN(5)), sec)
				}
				if m%shards == sh {
					add("HOT", 150, sec) // hot (150 WCU/s) on shard m%shards in minute m
				}
			}
			rep := w.Report(cfg)
			hll, err := w.AppendDistinct(nil)
			if err != nil {
				t.Fatal(err)
			}
			// Through the stored form, as history reads it.
			s, _ := roundTrip(t, FromReport(rep, shard, hll))
			st.summaries = append(st.summaries, s)
		}
	}
	return st
}

// TestMergeBracketsTheTruth merges every shard's windows table-wide into
// steps of one and of five minutes and checks every key's bounds, the
// bound on the keys left out, the totals and the distinct count against the
// exact figures.
func TestMergeBracketsTheTruth(t *testing.T) {
	for seed := range uint64(3) {
		st := newStream(t, seed, 3, 10)
		for _, step := range []time.Duration{time.Minute, 5 * time.Minute} {
			m, err := NewMerger("Orders", "", step, 5)
			if err != nil {
				t.Fatal(err)
			}
			// Any order.
			shuffled := slices.Clone(st.summaries)
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			for _, s := range shuffled {
				if err := m.Add(s); err != nil {
					t.Fatal(err)
				}
			}
			reps := m.Reports()
			if want := int(10 * time.Minute / step); len(reps) != want {
				t.Fatalf("step %s: %d reports, want %d", step, len(reps), want)
			}
			for _, rep := range reps {
				checkStep(t, st, rep, step)
			}
		}
	}
}

func checkStep(t *testing.T, st *stream, rep report.Report, step time.Duration) {
	t.Helper()
	name := fmt.Sprintf("step %s at %s", step, rep.Start.Format("15:04"))
	in := func(k string) uint64 {
		var sum uint64
		for at, w := range st.truth[k] {
			if at >= rep.Start.Unix() && at < rep.End.Unix() {
				sum += w
			}
		}
		return sum
	}
	var wcu, records uint64
	distinct := map[string]bool{}
	for k := range st.truth {
		wcu += in(k)
	}
	for at, n := range st.records {
		if at >= rep.Start.Unix() && at < rep.End.Unix() {
			records += n
			for k := range st.keys[at] {
				distinct[k] = true
			}
		}
	}
	if rep.WCU != wcu || rep.Records != records {
		t.Errorf("%s: WCU %d, records %d; truth %d, %d", name, rep.WCU, rep.Records, wcu, records)
	}
	if d, truth := float64(rep.DistinctKeys), float64(len(distinct)); d < truth*0.97 || d > truth*1.03 {
		t.Errorf("%s: distinct keys %d, truth %d: more than 3 %% off", name, rep.DistinctKeys, len(distinct))
	}
	listed := map[string]bool{}
	for _, k := range slices.Concat(rep.TopKeys, rep.HotKeys) {
		listed[k.Key] = true
		if truth := in(k.Key); k.WCULower > truth || truth > k.WCUUpper {
			t.Errorf("%s: key %s: [%d, %d] do not bracket %d", name, k.Key, k.WCULower, k.WCUUpper, truth)
		}
	}
	for k := range st.truth {
		if !listed[k] && in(k) > rep.OtherKeysWCUUpper {
			t.Errorf("%s: key %s not listed wrote %d, over other_keys_wcu_upper %d", name, k, in(k), rep.OtherKeysWCUUpper)
		}
	}
	if len(rep.TopKeys) != 5 || rep.TopKeys[0].Key != "HOT" {
		t.Errorf("%s: top keys %v: want 5, HOT first", name, keyNames(rep.TopKeys))
	}
	if len(rep.Shards) != 3 {
		t.Errorf("%s: shards %+v: want the 3 merged", name, rep.Shards)
	}
}

func keyNames(ks []report.KeyReport) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Key)
	}
	return out
}

// TestHotOnTwoShards: a key hot on shard 0 in minute 0 and on shard 1 in
// minute 1 appears, flagged, in both steps, each naming the shard it ran
// on as the busiest.
func TestHotOnTwoShards(t *testing.T) {
	st := newStream(t, 9, 2, 2)
	m, _ := NewMerger("Orders", "", time.Minute, 3)
	for _, s := range st.summaries {
		if err := m.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	reps := m.Reports()
	for i, rep := range reps {
		var hot *report.KeyReport
		for j := range rep.HotKeys {
			if rep.HotKeys[j].Key == "HOT" {
				hot = &rep.HotKeys[j]
			}
		}
		if hot == nil || hot.WCULower != 9000 || hot.Severity == report.None {
			t.Errorf("minute %d: HOT %+v: want flagged, 9,000 WCU certain", i, hot)
		}
		if want := fmt.Sprintf("shardId-%02d", i); rep.Shards[0].Shard != want {
			t.Errorf("minute %d: busiest shard %s, want %s", i, rep.Shards[0].Shard, want)
		}
	}
}

// roundTrip encodes s and decodes the result, as history stores and reads
// a summary; it returns the decoded summary and the encoding.
func roundTrip(t testing.TB, s *Summary) (*Summary, []byte) {
	t.Helper()
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Summary
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &got, b
}

func TestRoundTrip(t *testing.T) {
	st := newStream(t, 1, 1, 1)
	s := st.summaries[0]
	if got, _ := roundTrip(t, s); !cmp.Equal(s, got) {
		t.Errorf("round trip (-want +got):\n%s", cmp.Diff(s, got))
	}
	// A dense sketch (20,000 keys) and a sparse one (300) round-trip too,
	// byte for byte, and still count what they counted.
	for _, n := range []int{20000, 300} {
		sum, _ := sketch.NewSummary(sketch.DefaultConfig())
		for i := range n {
			sum.Add(fmt.Appendf(nil, "k%d", i), 1, 0, 0)
		}
		hll, _ := sum.AppendDistinct(nil)
		d := *s
		d.Distinct = hll
		got, _ := roundTrip(t, &d)
		var before, after sketch.DistinctUnion
		if err := errors.Join(before.Add(hll), after.Add(got.Distinct)); err != nil || !bytes.Equal(got.Distinct, hll) {
			t.Errorf("%d keys: the sketch changed in the round trip (%v)", n, err)
		}
		if want, _ := before.Encode(); want == 0 {
			t.Errorf("%d keys: an estimate of 0", n)
		} else if got, _ := after.Encode(); got != want {
			t.Errorf("%d keys: estimate %d after the round trip, %d before", n, got, want)
		}
	}
	// What is not stored: the per-report share and average, recomputed
	// when merged.
	rep := report.Report{
		Window:  report.Window{Table: "T", Start: t0, End: t0.Add(time.Minute)},
		Totals:  report.Totals{WCU: 10},
		TopKeys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "A", Type: "S", WCU: 5, WCULower: 4, WCUUpper: 5, Share: 0.5, AvgWCUPerSecond: 0.1, PeakWCUPerSecond: 3}}},
	}
	got, _ := roundTrip(t, FromReport(rep, "s", nil))
	want := &Summary{Table: "T", Shard: "s", Start: t0, End: t0.Add(time.Minute), Totals: report.Totals{WCU: 10},
		Keys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "A", Type: "S", WCU: 5, WCULower: 4, WCUUpper: 5, PeakWCUPerSecond: 3}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestEveryCounterStored: every counter of report.Totals, set to a value
// of its own, comes back from the newest version (a rollup's) and from a
// shard's window that needs it. A counter added to Totals without a
// version of history that holds it fails here.
func TestEveryCounterStored(t *testing.T) {
	var tot report.Totals
	v := reflect.ValueOf(&tot).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Uint64 {
			f.SetUint(uint64(1000 + i))
		}
	}
	tot.WCUIsLowerBound = true
	window := &Summary{Table: "Orders", Index: "GSI1", Shard: "shardId-1", Start: t0, End: t0.Add(time.Minute), Totals: tot}
	rollup := *window
	rollup.Shard, rollup.Sources = "", 3
	for _, s := range []*Summary{window, &rollup} {
		got, b := roundTrip(t, s)
		if diff := cmp.Diff(tot, got.Totals); diff != "" {
			t.Errorf("version %d lost a counter: give report.Totals' new counter a version (encoding.go's versionCounters, Version) (-stored +read):\n%s", b[2], diff)
		}
	}
}

// TestTrimmedHonestly: a window of 2,048-byte keys (DynamoDB's maximum)
// does not fit; it is stored trimmed to MaxEncodedSize with the flagged
// keys kept (none of them holds 1 % of the window: see
// TestTrimKeepsSignificantFirst) and a ceiling over every key dropped.
func TestTrimmedHonestly(t *testing.T) {
	st := newStream(t, 2, 1, 1) // a real dense-ish HyperLogLog
	s := *st.summaries[0]
	s.Keys, s.WCU = nil, 200_000
	for i := range 40 {
		k := report.KeyReport{KeyFigures: report.KeyFigures{Key: strings.Repeat(string(rune('a'+i%26)), 2047) + fmt.Sprint(i%10), Type: "S", WCULower: uint64(1000 - i), WCUUpper: uint64(1000 - i + 5)}}
		if i == 30 {
			k.Severity, k.Pattern, k.Diagnosis = report.Warning, report.PatternSingleKey, strings.Repeat("é", 700)
		}
		s.Keys = append(s.Keys, k)
	}
	s.OtherKeysWCUUpper = 3
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxEncodedSize {
		t.Fatalf("%d bytes, over %d", len(b), MaxEncodedSize)
	}
	var got Summary
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !got.Trimmed || len(got.Keys) == 0 || len(got.Keys) >= 40 || got.Distinct == nil {
		t.Fatalf("trimmed %v, %d keys, sketch kept %v: want trimmed, some keys, the sketch kept", got.Trimmed, len(got.Keys), got.Distinct != nil)
	}
	kept := map[string]bool{}
	for _, k := range got.Keys {
		kept[k.Key] = true
		if len(k.Key) != 2048 {
			t.Errorf("a key cut to %d bytes", len(k.Key))
		}
	}
	if !kept[s.Keys[30].Key] {
		t.Errorf("the flagged key was dropped")
	}
	for _, k := range s.Keys {
		if !kept[k.Key] && k.WCUUpper > got.OtherKeysWCUUpper {
			t.Errorf("dropped key with upper %d above the ceiling %d", k.WCUUpper, got.OtherKeysWCUUpper)
		}
	}
	if d := got.Keys[slices.IndexFunc(got.Keys, func(k report.KeyReport) bool { return k.Severity != report.None })].Diagnosis; len(d) > maxDiagnosis || !strings.HasPrefix(s.Keys[30].Diagnosis, d) {
		t.Errorf("diagnosis of %d bytes: want a prefix of at most %d", len(d), maxDiagnosis)
	}
}

func TestDecodeRejects(t *testing.T) {
	st := newStream(t, 3, 1, 1)
	good, err := st.summaries[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	for n := range len(good) {
		if err := s.UnmarshalBinary(good[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: %v, want ErrCorrupt", n, err)
		}
	}
	for i := range len(good) {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		if err := s.UnmarshalBinary(bad); err == nil {
			t.Fatalf("byte %d flipped: decoded", i)
		}
	}
	for _, v := range []byte{0, NewestVersion + 1, 255} {
		other := bytes.Clone(good)
		other[2] = v
		if err := s.UnmarshalBinary(other); !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: %v, want ErrVersion", v, err)
		}
	}
	// Every summary has one encoding: a version that does not match what
	// it holds is forged (its checksum right), and refused.
	all := []int{}
	for i := range st.summaries[0].Keys {
		all = append(all, i)
	}
	forge := func(sum *Summary, version int) []byte {
		return sum.encode(version, all, sum.OtherKeysWCUUpper, sum.Trimmed, nil)
	}
	if err := s.UnmarshalBinary(forge(st.summaries[0], version2)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version 2 without an index: %v, want ErrCorrupt", err)
	}
	if err := s.UnmarshalBinary(forge(st.summaries[0], version3)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version 3 without internal errors: %v, want ErrCorrupt", err)
	}
	if err := s.UnmarshalBinary(forge(st.summaries[0], version4)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version 4 holding a version 1 window: %v, want ErrCorrupt", err)
	}
	withErrors := *st.summaries[0]
	withErrors.InternalErrors = 1
	if err := s.UnmarshalBinary(forge(&withErrors, version3)); err != nil {
		t.Errorf("the forger's own version 3 (internal errors 1) is refused: %v", err)
	}
	s = Summary{}
	twice := *st.summaries[0]
	twice.Keys = append(twice.Keys, twice.Keys[0])
	if b, err := twice.MarshalBinary(); err != nil {
		t.Fatal(err)
	} else if err := s.UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a key listed twice: %v, want ErrCorrupt", err)
	}
	if err := s.UnmarshalBinary([]byte(`{"json": true}`)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("foreign bytes: %v, want ErrCorrupt", err)
	}
	if s.Table != "" {
		t.Errorf("a rejected decode changed the summary: %+v", s)
	}
}

func TestMergerRefuses(t *testing.T) {
	st := newStream(t, 4, 1, 1)
	m, _ := NewMerger("Other", "", time.Minute, 3)
	if err := m.Add(st.summaries[0]); !errors.Is(err, ErrTable) {
		t.Errorf("another table: %v, want ErrTable", err)
	}
	m, _ = NewMerger("Orders", "GSI1", time.Minute, 3)
	if err := m.Add(st.summaries[0]); !errors.Is(err, ErrTable) {
		t.Errorf("the table's summary to an index's merger: %v, want ErrTable", err)
	}
	ix := indexSummaries(t, 1)[0]
	for _, index := range []string{"", "GSI2"} {
		m, _ = NewMerger("Orders", index, time.Minute, 3)
		if err := m.Add(ix); !errors.Is(err, ErrTable) {
			t.Errorf("index GSI1's summary to the merger of %q: %v, want ErrTable", index, err)
		}
	}
	m, _ = NewMerger("Orders", "", 30*time.Second, 3)
	if err := m.Add(st.summaries[0]); !errors.Is(err, ErrStep) {
		t.Errorf("a 1-minute window in 30-second steps: %v, want ErrStep", err)
	}
	if len(m.Reports()) != 0 {
		t.Errorf("refused summaries left reports")
	}
	if _, err := NewMerger("Orders", "", 1500*time.Millisecond, 3); err == nil {
		t.Errorf("a step of 1.5 s was accepted")
	}
}

func FuzzUnmarshal(f *testing.F) {
	st := newStream(f, 5, 1, 1)
	good, _ := st.summaries[0].MarshalBinary()
	f.Add(good)
	small, _ := FromReport(report.Report{
		Window:  report.Window{Table: "T", Start: t0, End: t0.Add(time.Minute)},
		TopKeys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "k", Type: "S", WCULower: 1, WCUUpper: 2}}},
	}, "s", nil).MarshalBinary()
	f.Add(small)
	f.Add([]byte("hk\x01"))
	f.Add([]byte("hk\x02"))
	f.Add([]byte("hk\x03"))
	for i, s := range indexSummaries(f, 2) {
		b, _ := s.MarshalBinary()
		f.Add(b)
		// Version 3: an index's and a table's window with internal errors.
		v3 := *s
		v3.InternalErrors = uint64(1 + i*300)
		b, _ = v3.MarshalBinary()
		f.Add(b)
	}
	tableV3 := *st.summaries[0]
	tableV3.InternalErrors = 2
	b3, _ := tableV3.MarshalBinary()
	f.Add(b3)
	sum, _ := sketch.NewSummary(sketch.DefaultConfig())
	for i := range 20000 {
		sum.Add(fmt.Appendf(nil, "k%d", i), 1, 0, 0)
	}
	dense := *st.summaries[0]
	dense.Distinct, _ = sum.AppendDistinct(nil)
	denseEnc, _ := dense.MarshalBinary()
	f.Add(denseEnc)
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Summary
		if err := s.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", err)
			}
			return
		}
		// What decodes re-encodes to the same summary, and merges.
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var again Summary
		if err := again.UnmarshalBinary(b); err != nil {
			t.Fatalf("re-encoded summary does not decode: %v", err)
		}
		if !s.Trimmed && !cmp.Equal(s, again) {
			t.Fatalf("re-encoding changed the summary:\n%s", cmp.Diff(s, again))
		}
		if m, err := NewMerger(s.Table, s.Index, s.End.Sub(s.Start).Truncate(time.Second)+time.Second, 3); err == nil {
			_ = m.Add(&s)
			m.Reports()
		}
	})
}
