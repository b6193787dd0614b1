package clientwindow

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

// clientDemand is what one key asks of its partition, per second, in
// reads (RCU) and writes (WCU).
type clientDemand struct{ reads, writes func(sec int) int }

// admitClient runs demand for seconds through the admission model of each
// key's partition, one for reads (3,000 RCU/s) and one for writes
// (1,000 WCU/s), in calls of 10 units, and charges w with what was
// admitted, as an instrumented client sees the successful calls. It
// returns the exact oracle: per key, the seconds whose admitted reads and
// writes reached fraction of each limit.
func admitClient(w *Window, seconds int, fraction float64, demand map[string]clientDemand) map[string][2]int {
	oracle := map[string][2]int{}
	reads, writes := map[string]*ddb.Admission{}, map[string]*ddb.Admission{}
	for _, k := range slices.Sorted(maps.Keys(demand)) {
		reads[k], writes[k] = ddb.NewAdmission(ddb.PartitionReadUnits), ddb.NewAdmission(ddb.PartitionWriteUnits)
	}
	for s := range seconds {
		at := t0.Add(time.Duration(s) * time.Second)
		for _, k := range slices.Sorted(maps.Keys(demand)) {
			key := ddb.Key{Type: ddb.String, Value: []byte(k)}
			var r, wr int
			if f := demand[k].reads; f != nil {
				for range f(s) / 10 {
					if reads[k].Admit(int64(s), 10) {
						w.AddCapacity(key, at.Add(time.Duration(r)*time.Microsecond), 20, 0) // 10 RCU, in half units
						r += 10
					}
				}
			}
			if f := demand[k].writes; f != nil {
				for range f(s) / 10 {
					if writes[k].Admit(int64(s), 10) {
						w.AddCapacity(key, at.Add(time.Duration(wr)*time.Microsecond), 0, 10)
						wr += 10
					}
				}
			}
			o := oracle[k]
			if float64(r) >= fraction*ddb.PartitionReadUnits {
				o[0]++
			}
			if float64(wr) >= fraction*ddb.PartitionWriteUnits {
				o[1]++
			}
			oracle[k] = o
		}
	}
	return oracle
}

// newOrdersWindow is a client window of table Orders, a minute from t0.
func newOrdersWindow(t *testing.T) *Window {
	t.Helper()
	w, err := New(detector.DefaultConfig().Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// clientSat is what the saturation rule decides of a client key.
type clientSat struct {
	Severity                  report.Severity
	ReadSeconds, WriteSeconds int
	Saturated, LowerBound     bool
	HotFor                    []report.Cause
	SaturatedDiagnosis        bool
}

func clientSatOf(rep report.ClientReport, key string) clientSat {
	for _, k := range rep.TopKeys {
		if k.Key == key {
			return clientSat{k.Severity, k.ReadSaturatedSeconds, k.SaturatedSeconds, k.Saturated,
				k.RecommendedShardsIsLowerBound, k.HotFor, strings.HasPrefix(k.Diagnosis, "Saturated: successful ")}
		}
	}
	return clientSat{}
}

// TestClientSaturation: a client key, of a table or of an index, is
// saturated exactly when its successful reads or writes stayed at 90 % of
// the partition's limit for 3 seconds of the window, as the admission
// model's exact count of them says; the seconds it reports are that count.
func TestClientSaturation(t *testing.T) {
	burst := func(at, high, low int) func(int) int {
		return func(s int) int {
			if s == at {
				return high
			}
			return low
		}
	}
	twoThenThree := func(high, low int) func(int) int {
		return func(s int) int {
			if s == 1 || s == 2 || s >= 7 {
				return high
			}
			return low
		}
	}
	crit := []report.Cause{report.CauseSaturated, report.CauseReads}
	for _, tc := range []struct {
		name     string
		index    string
		fraction float64
		seconds  int
		demand   clientDemand
		want     clientSat
	}{{
		name:   "reads pinned at the cap",
		demand: clientDemand{reads: constant(5000)},
		want:   clientSat{report.Critical, 10, 0, true, false, crit, true},
	}, {
		name:   "reads steady at 70 %",
		demand: clientDemand{reads: constant(2100)},
		want:   clientSat{Severity: report.Warning, HotFor: []report.Cause{report.CauseReads}},
	}, {
		name:   "reads at the cap for a single second",
		demand: clientDemand{reads: burst(4, 3000, 100)},
		want:   clientSat{Severity: report.Critical, ReadSeconds: 1, HotFor: []report.Cause{report.CauseReads}},
	}, {
		name:   "reads at the cap for 2 seconds, then 3",
		demand: clientDemand{reads: twoThenThree(4000, 500)},
		want:   clientSat{report.Critical, 5, 0, true, false, crit, true},
	}, {
		name:   "an index key's reads pinned at the cap",
		index:  "GSI1",
		demand: clientDemand{reads: constant(3500)},
		want:   clientSat{report.Critical, 10, 0, true, false, crit, true},
	}, {
		name:   "writes pinned at the cap",
		demand: clientDemand{writes: constant(2500)},
		want:   clientSat{report.Critical, 0, 10, true, true, []report.Cause{report.CauseSaturated, report.CauseWrites}, true},
	}, {
		name:   "writes steady at 70 %",
		demand: clientDemand{writes: constant(700)},
		want:   clientSat{Severity: report.Warning, HotFor: []report.Cause{report.CauseWrites}},
	}, {
		name:   "writes at the cap for a single second",
		demand: clientDemand{writes: burst(4, 1000, 100)},
		want:   clientSat{Severity: report.Critical, WriteSeconds: 1, HotFor: []report.Cause{report.CauseWrites}},
	}, {
		name:   "an index key's writes pinned at the cap",
		index:  "GSI1",
		demand: clientDemand{writes: constant(1200)},
		want:   clientSat{report.Critical, 0, 10, true, true, []report.Cause{report.CauseSaturated, report.CauseWrites}, true},
	}, {
		name:   "both pinned",
		demand: clientDemand{reads: constant(9000), writes: constant(9000)},
		want:   clientSat{report.Critical, 10, 10, true, true, []report.Cause{report.CauseSaturated, report.CauseReads, report.CauseWrites}, true},
	}, {
		name:     "at 70 % saturates at a fraction of 0.6 and 10 seconds",
		fraction: 0.6, seconds: 10,
		demand: clientDemand{reads: constant(2100)},
		want:   clientSat{report.Critical, 10, 0, true, false, []report.Cause{report.CauseSaturated, report.CauseReads}, true},
	}, {
		name:     "pinned for 10 seconds is not enough at 11",
		fraction: 0.9, seconds: 11,
		demand: clientDemand{reads: constant(5000)},
		want:   clientSat{Severity: report.Critical, ReadSeconds: 10, HotFor: []report.Cause{report.CauseReads}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := detector.DefaultConfig()
			if tc.fraction != 0 {
				cfg.SaturationFraction, cfg.SaturationSeconds = tc.fraction, tc.seconds
			}
			w, err := NewIndex(cfg.Sketch, "Orders", tc.index, t0, t0.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			w.Watch(cfg)
			fraction := cfg.SaturationFraction
			oracle := admitClient(w, 10, fraction, map[string]clientDemand{"HOT": tc.demand, "COLD": {reads: constant(10), writes: constant(10)}})
			got := clientSatOf(w.Report(cfg), "HOT")
			if got.ReadSeconds != oracle["HOT"][0] || got.WriteSeconds != oracle["HOT"][1] {
				t.Errorf("seconds at the level: read %d, write %d; the admission model's exact count: %v", got.ReadSeconds, got.WriteSeconds, oracle["HOT"])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(clientSat{}, clientSatOf(w.Report(cfg), "COLD")); diff != "" {
				t.Errorf("COLD (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClientSaturationDiagnosis: a key pinned at both limits says so for
// each side, in the stream side's words, its shard count a lower bound.
func TestClientSaturationDiagnosis(t *testing.T) {
	cfg, w := detector.DefaultConfig(), newOrdersWindow(t)
	admitClient(w, 4, 0.9, map[string]clientDemand{"HOT": {reads: constant(9000), writes: constant(9000)}})
	k := w.Report(cfg).HotKeys[0]
	want := "Saturated: successful reads pinned at the partition limit (at least 2,700 RCU/s for 4 s of the window), so its reads are most likely being throttled and its true demand is at least what was observed." +
		" Saturated: successful writes pinned at the partition limit (at least 900 WCU/s for 4 s of the window), so its writes are most likely being throttled and its true demand is at least what was observed; its recommended shard count (2) is a lower bound."
	if got, _, _ := strings.Cut(k.Diagnosis, " Read-hot: "); got != want {
		t.Errorf("diagnosis opens\n%s\nwant\n%s", got, want)
	}
	if k.RecommendedShards != 2 || !k.RecommendedShardsIsLowerBound {
		t.Errorf("recommended shards %d, lower bound %v; want 2, true", k.RecommendedShards, k.RecommendedShardsIsLowerBound)
	}
}

// TestClientSaturationLateCall: a call that ends in a second already past
// counts toward no saturated second (a lower bound), and a window counts
// no second before its first charge.
func TestClientSaturationLateCall(t *testing.T) {
	cfg, w := detector.DefaultConfig(), newOrdersWindow(t)
	key := ddb.Key{Type: ddb.String, Value: []byte("HOT")}
	w.AddCapacity(key, t0, 0, 500)
	w.AddCapacity(key, t0.Add(time.Second), 0, 950)
	w.AddCapacity(key, t0, 0, 500) // late: second 0 had 1,000 in truth
	w.AddCapacity(key, t0.Add(2*time.Second), 0, 950)
	if got := clientSatOf(w.Report(cfg), "HOT"); got.WriteSeconds != 2 || got.Saturated {
		t.Errorf("%+v; want 2 seconds counted (the late call's second left out), not saturated", got)
	}
}

// TestClientSaturationAllocs: charging a client window, second after
// second, with a key at both saturation levels and 100 others, allocates
// nothing once its buffers have grown: the per-call path stays free of
// allocations.
func TestClientSaturationAllocs(t *testing.T) {
	cfg, w := detector.DefaultConfig(), newOrdersWindow(t)
	hot := ddb.Key{Type: ddb.String, Value: []byte("HOT")}
	cold := make([]ddb.Key, 100)
	for i := range cold {
		cold[i] = ddb.Key{Type: ddb.String, Value: []byte("U" + strconv.Itoa(i))}
	}
	second := func(s int) {
		at := t0.Add(time.Duration(s) * time.Second)
		for range 100 {
			w.AddCapacity(hot, at, 60, 10)
		}
		for _, k := range cold {
			w.AddCapacity(k, at, 2, 1)
		}
	}
	for s := range 3 { // the scratch buffers' growth
		second(s)
	}
	s := 3
	if n := testing.AllocsPerRun(10, func() { second(s); s++ }); n != 0 {
		t.Errorf("a second of calls allocated %v times", n)
	}
	if got := clientSatOf(w.Report(cfg), "HOT"); got.ReadSeconds != s || got.WriteSeconds != s || !got.Saturated {
		t.Errorf("HOT after %d seconds: %+v, want saturated every second", s, got)
	}
}
