package main

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
)

// metric is one published value, from the API or from an EMF line.
type metric struct {
	value     float64
	unit      string
	namespace string
	timestamp time.Time
}

// published is a window's metrics, by dimension set.
type published struct {
	table map[string]metric            // TableName only
	keys  map[string]map[string]metric // PartitionKey -> metric name
	dups  []string
}

func newPublished() *published {
	return &published{table: map[string]metric{}, keys: map[string]map[string]metric{}}
}

func (p *published) add(table, key, name string, m metric) {
	dst := p.table
	if key != "" {
		if p.keys[key] == nil {
			p.keys[key] = map[string]metric{}
		}
		dst = p.keys[key]
	}
	if _, dup := dst[name]; dup {
		p.dups = append(p.dups, table+"/"+key+"/"+name)
	}
	dst[name] = m
}

func fromCloudWatch(t testing.TB, cw *fakecloudwatch.Server) *published {
	t.Helper()
	if r := cw.Rejected(); len(r) != 0 {
		t.Errorf("CloudWatch rejected requests: %q", r)
	}
	p := newPublished()
	for _, d := range cw.Data() {
		if !d.HasValue || len(d.Values) != 0 {
			t.Errorf("datum %s: want a single Value", d.MetricName)
		}
		p.add(d.Dimension("TableName"), d.Dimension("PartitionKey"), d.MetricName,
			metric{d.Value, d.Unit, d.Namespace, d.Timestamp})
		for _, dim := range d.Dimensions {
			if dim.Name != "TableName" && dim.Name != "PartitionKey" {
				t.Errorf("datum %s has dimension %s", d.MetricName, dim.Name)
			}
		}
	}
	return p
}

// fromEMF reads metrics from Embedded Metric Format lines, as CloudWatch
// Logs extracts them.
func fromEMF(t testing.TB, lines []logLine) *published {
	t.Helper()
	p := newPublished()
	for _, l := range emfLines(lines) {
		meta, _ := l["_aws"].(map[string]any)
		ms, _ := meta["Timestamp"].(float64)
		directives, _ := meta["CloudWatchMetrics"].([]any)
		if len(directives) == 0 {
			t.Errorf("EMF line without directives: %v", l)
		}
		for _, d := range directives {
			dir, _ := d.(map[string]any)
			ns, _ := dir["Namespace"].(string)
			dimSets, _ := dir["Dimensions"].([]any)
			if len(dimSets) != 1 {
				t.Errorf("EMF directive with %d dimension sets, want 1", len(dimSets))
				continue
			}
			var table, key string
			for _, name := range dimSets[0].([]any) {
				switch name {
				case "TableName":
					table = l.str("TableName")
				case "PartitionKey":
					key = l.str("PartitionKey")
				default:
					t.Errorf("EMF dimension %v", name)
				}
			}
			metrics, _ := dir["Metrics"].([]any)
			for _, m := range metrics {
				md, _ := m.(map[string]any)
				name, _ := md["Name"].(string)
				unit, _ := md["Unit"].(string)
				v, ok := l[name].(float64)
				if !ok {
					t.Errorf("EMF metric %s has no numeric value in its line", name)
				}
				p.add(table, key, name, metric{v, unit, ns, time.UnixMilli(int64(ms)).UTC()})
			}
		}
	}
	return p
}

// windowCheck is what one published window must show.
type windowCheck struct {
	table string
	start time.Time
	want  expect
	truth *truth
	shard bool // the records came with a shardId (tumbling windows)
	// redacted: keys appear as stable hashes, so findings are matched to
	// the design by their figures, not their names.
	redacted bool
	early    bool // isWindowTerminatedEarly
}

// tableMetrics are the per-window metrics docs/metrics.md ("Metrics") promises; more are allowed.
var tableMetrics = []string{"WriteCapacityUnits", "StreamRecords", "DistinctPartitionKeys", "MaxKeyWCUShare", "MaxKeyPeakWCUPerSecond", "HotKeys", "MalformedRecords"}

// checkWindow checks a published window against its design, against the
// oracle's truth, and checks that metrics and findings agree.
func checkWindow(t *testing.T, w windowCheck, pub *published, found []logLine) {
	t.Helper()
	if len(pub.dups) > 0 {
		t.Errorf("metrics published twice: %v", pub.dups)
	}
	tr, want := w.truth, w.want

	// Findings: one line per flagged key, each matching the design and
	// bracketing the truth.
	byKey := map[string]logLine{}
	for _, l := range found {
		if l.str("table") != w.table || l.str("window_start") != w.start.Format(time.RFC3339) {
			t.Errorf("finding for table %q window %q; want %q at %s", l.str("table"), l.str("window_start"), w.table, w.start.Format(time.RFC3339))
		}
		if _, dup := byKey[l.str("key")]; dup {
			t.Errorf("two findings for key %q", l.str("key"))
		}
		byKey[l.str("key")] = l
		if w.early && l["terminated_early"] != true {
			t.Errorf("finding of a window terminated early does not say so: %v", l)
		}
	}
	if len(found) != len(want.Hot) {
		t.Errorf("%d findings, want %d (%v)", len(found), len(want.Hot), keysOfLines(found))
	}
	var maxShare, maxPeak float64
	for _, k := range tr.Keys {
		maxShare = max(maxShare, float64(k.WCU)/float64(tr.WCU))
		maxPeak = max(maxPeak, float64(k.peak()))
	}
	critical := 0
	for _, wk := range want.Hot {
		l := matchFinding(t, byKey, wk, w.redacted)
		if l == nil {
			continue
		}
		if wk.Severity == "critical" {
			critical++
		}
		var truthWCU, truthPeak uint64
		if wk.Logical {
			truthWCU, truthPeak = logicalTruth(tr, wk.Key)
			maxShare = max(maxShare, float64(truthWCU)/float64(tr.WCU))
			maxPeak = max(maxPeak, float64(truthPeak))
		} else {
			truthWCU, truthPeak = tr.Keys[wk.Key].WCU, tr.Keys[wk.Key].peak()
		}
		lo, hi := l.num("wcu_lower"), l.num("wcu_upper")
		switch {
		case l.str("severity") != wk.Severity || l.str("pattern") != wk.Pattern:
			t.Errorf("key %s: severity %q pattern %q, want %q %q", wk.Key, l.str("severity"), l.str("pattern"), wk.Severity, wk.Pattern)
		case !(lo <= float64(truthWCU) && float64(truthWCU) <= hi):
			t.Errorf("key %s: bounds [%g, %g] do not bracket its true %d WCU", wk.Key, lo, hi, truthWCU)
		case l.num("wcu") != float64(wk.WCU) || float64(truthWCU) != float64(wk.WCU):
			t.Errorf("key %s: %g WCU (truth %d), want %d", wk.Key, l.num("wcu"), truthWCU, wk.WCU)
		case l.num("peak_wcu_per_second") != wk.Peak:
			t.Errorf("key %s: peak %g WCU/s (truth %d), want %g", wk.Key, l.num("peak_wcu_per_second"), truthPeak, wk.Peak)
		case math.Abs(l.num("share")-float64(truthWCU)/float64(tr.WCU)) > 1e-9:
			t.Errorf("key %s: share %g, truth %g", wk.Key, l.num("share"), float64(truthWCU)/float64(tr.WCU))
		case l.num("recommended_shards") < 2 || l.str("diagnosis") == "":
			t.Errorf("key %s: recommended shards %g, diagnosis %q", wk.Key, l.num("recommended_shards"), l.str("diagnosis"))
		case strings.Contains(l.str("diagnosis"), wk.Key):
			t.Errorf("key %s: the diagnosis quotes the key: %q", wk.Key, l.str("diagnosis"))
		case l["wcu_is_lower_bound"] != want.LowerBound:
			t.Errorf("key %s: wcu_is_lower_bound %v, want %v", wk.Key, l["wcu_is_lower_bound"], want.LowerBound)
		}
	}

	// Table metrics: the window's exact figures.
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	shardPeak := 0.0
	if w.shard {
		shardPeak = float64(tr.shardPeak())
	}
	wantTable := map[string]float64{
		"WriteCapacityUnits":       float64(want.WCU),
		"StreamRecords":            float64(want.Records),
		"MalformedRecords":         float64(want.Malformed),
		"TTLDeletes":               float64(want.TTLDeletes),
		"WCUIsLowerBound":          b2f(want.LowerBound),
		"HotKeys":                  float64(len(want.Hot)),
		"CriticalHotKeys":          float64(critical),
		"MaxKeyWCUShare":           maxShare,
		"MaxKeyPeakWCUPerSecond":   maxPeak,
		"MaxShardPeakWCUPerSecond": shardPeak,
		"InternalErrors":           0, // these windows hold no bug's victims
	}
	for _, name := range tableMetrics {
		if _, ok := pub.table[name]; !ok {
			t.Errorf("table metric %s not published", name)
		}
	}
	for name, m := range pub.table {
		if m.namespace != namespace || !m.timestamp.Equal(w.start) {
			t.Errorf("%s: namespace %q timestamp %v; want %q, the window start %v", name, m.namespace, m.timestamp, namespace, w.start)
		}
		if name == "DistinctPartitionKeys" {
			n := float64(len(tr.Keys))
			if math.Abs(m.value-n) > 0.02*n+0.5 {
				t.Errorf("DistinctPartitionKeys = %g, truth %g (want within 2 %%)", m.value, n)
			}
			continue
		}
		v, known := wantTable[name]
		if !known {
			t.Errorf("table metric %s = %g is published but not checked here", name, m.value)
		} else if math.Abs(m.value-v) > 1e-9 {
			t.Errorf("%s = %g, want %g", name, m.value, v)
		}
	}
	if len(pub.table) == 0 {
		return
	}

	// Key metrics: one set per flagged key, agreeing with its finding.
	if len(pub.keys) != len(found) {
		t.Errorf("key metrics for %d keys, %d keys flagged", len(pub.keys), len(found))
	}
	for key, ms := range pub.keys {
		l, ok := byKey[key]
		if !ok {
			t.Errorf("key metrics for %q, which has no finding", key)
			continue
		}
		for name, field := range map[string]string{"KeyWriteCapacityUnits": "wcu", "KeyWCUShare": "share", "KeyPeakWCUPerSecond": "peak_wcu_per_second"} {
			m, ok := ms[name]
			if !ok {
				t.Errorf("key %s: %s not published", key, name)
				continue
			}
			if math.Abs(m.value-l.num(field)) > 1e-9 || m.namespace != namespace || !m.timestamp.Equal(w.start) {
				t.Errorf("key %s: %s = %g (%s, %v); the finding says %g", key, name, m.value, m.namespace, m.timestamp, l.num(field))
			}
		}
	}
}

// matchFinding finds the finding of a designed key: by name, or, when keys
// are redacted, by its figures (and checks the name is a hash).
func matchFinding(t *testing.T, byKey map[string]logLine, wk wantKey, redacted bool) logLine {
	t.Helper()
	if !redacted {
		l, ok := byKey[wk.Key]
		if !ok {
			t.Errorf("key %s not flagged; flagged: %v", wk.Key, slices.Sorted(mapsKeys(byKey)))
			return nil
		}
		return l
	}
	for k, l := range byKey {
		if l.num("wcu") == float64(wk.WCU) && l.str("pattern") == wk.Pattern {
			if !strings.HasPrefix(k, "h:") {
				t.Errorf("redacted key %q is not a hash", k)
			}
			return l
		}
	}
	t.Errorf("no finding with %d WCU and pattern %s", wk.WCU, wk.Pattern)
	return nil
}

func mapsKeys(m map[string]logLine) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func keysOfLines(ls []logLine) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.str("key"))
	}
	sort.Strings(out)
	return out
}
