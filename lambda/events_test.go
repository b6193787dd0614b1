package main

import (
	"strings"
	"testing"
)

// Documented thresholds (the defaults the samples are designed against).
const (
	defaultShare    = 0.10
	defaultMinRate  = 100
	defaultCritical = 800
	namespace       = "HotKeyDetector"
)

// TestEventDesigns checks every file against its design with the oracle:
// the expected outcomes in the table are true of the files.
func TestEventDesigns(t *testing.T) {
	for _, s := range samples {
		t.Run(s.File, func(t *testing.T) {
			tr, err := analyse(s.PKName, readSample(t, s.File))
			if err != nil {
				t.Fatal(err)
			}
			checkTruth(t, tr, s.Want)
		})
	}
	t.Run("tumbling sequence", func(t *testing.T) {
		tr := sequenceTruth(t)
		checkTruth(t, tr, tumblingSequence)
	})
}

func sequenceTruth(t testing.TB) *truth {
	t.Helper()
	tr, err := analyse("PK", readSample(t, "tumbling-window-1.json"), readSample(t, "tumbling-window-2.json"), readSample(t, "tumbling-window-final.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func checkTruth(t *testing.T, tr *truth, want expect) {
	t.Helper()
	got := expect{Records: tr.Records, WCU: tr.WCU, TTLDeletes: tr.TTLDeletes, Malformed: tr.Malformed, LowerBound: tr.LowerBound}
	if got.Records != want.Records || got.WCU != want.WCU || got.TTLDeletes != want.TTLDeletes || got.Malformed != want.Malformed || got.LowerBound != want.LowerBound {
		t.Errorf("oracle: %+v, design: %+v", got, want)
	}
	flagged := tr.flagged(defaultShare, defaultMinRate, defaultCritical)
	designed := map[string]string{}
	for _, k := range want.Hot {
		if k.Logical {
			wcu, peak := logicalTruth(tr, k.Key)
			if wcu != k.WCU || float64(peak) != k.Peak {
				t.Errorf("oracle: logical key %s has %d WCU, peak %d; design %d, %g", k.Key, wcu, peak, k.WCU, k.Peak)
			}
			continue
		}
		designed[k.Key] = k.Severity
		kt := tr.Keys[k.Key]
		if kt == nil || kt.WCU != k.WCU || float64(kt.peak()) != k.Peak {
			t.Errorf("oracle: key %s = %+v; design WCU %d, peak %g", k.Key, kt, k.WCU, k.Peak)
		}
	}
	if !equalMaps(flagged, designed) {
		t.Errorf("oracle flags %v, design %v", flagged, designed)
	}
}

// logicalTruth sums the WCU of the shards of a write-sharded key,
// BASE#<shard>, and finds its hottest shard's peak.
func logicalTruth(tr *truth, logical string) (wcu, peak uint64) {
	base := strings.TrimSuffix(logical, "#<shard>")
	for key, k := range tr.Keys {
		if strings.HasPrefix(key, base+"#SHARD_") {
			wcu += k.WCU
			peak = max(peak, k.peak())
		}
	}
	return wcu, peak
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestEventFiles runs every file of events/ through the built bootstrap,
// as `sam local invoke -e events/<file>` would, and checks its outcome.
func TestEventFiles(t *testing.T) {
	shift := recentShift()
	for _, s := range samples {
		if s.NeedsDynamoDBLocal {
			continue // TestDescribeTableLookup
		}
		t.Run(s.File, func(t *testing.T) {
			t.Parallel()
			raw := readSample(t, s.File)
			tr, err := analyse(s.PKName, raw)
			if err != nil {
				t.Fatal(err)
			}
			f := startFunction(t, s.Env)
			resp := f.invoke(t, shiftEvent(raw, shift))
			if s.Shape == plainBatch {
				plainResponse(t, resp)
			} else {
				state := tumblingResponse(t, resp)
				checkState(t, state, s.Shape == tumblingBatch)
			}
			lines := f.lines(t)
			if !s.Published {
				if n := f.cw.Attempts(); n != 0 || len(findings(lines)) != 0 || len(emfLines(lines)) != 0 {
					t.Errorf("a batch that closes no window published: %d CloudWatch requests, %d findings, %d EMF lines", n, len(findings(lines)), len(emfLines(lines)))
				}
				return
			}
			checkWindow(t, windowCheck{
				table: s.Table, start: s.Window.Add(shift), want: s.Want, truth: tr, shard: s.Shard != "",
			}, fromCloudWatch(t, f.cw), findings(lines))
			if n := len(emfLines(lines)); n != 0 {
				t.Errorf("%d EMF lines in api mode with CloudWatch up", n)
			}
		})
	}
}

// checkState: the summary travels in state, and stays well under Lambda's
// 1 MB limit (our budget is 64 KB).
func checkState(t testing.TB, state map[string]string, mustCarry bool) {
	t.Helper()
	size := 0
	for k, v := range state {
		size += len(k) + len(v)
	}
	if mustCarry && size == 0 {
		t.Errorf("a non-final tumbling batch returned an empty state: its records are lost")
	}
	if size > 64<<10 {
		t.Errorf("state is %d bytes, over the 64 KB budget", size)
	}
}
