package templatetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// point is one value as the publisher sends it.
type point struct {
	namespace, name string
	dims            map[string]string
	value           float64
}

// publishPoints runs the real alert.Publisher, in EMF mode, on reports and
// returns every value its EMF lines carry.
func publishPoints(t *testing.T, reports []report.Report) []point {
	t.Helper()
	var pts []point
	for _, e := range parseEMF(t, publishEMF(t, reports, nil).Bytes()) {
		pts = append(pts, e.point)
	}
	return pts
}

// evaluate computes what a reference reads from the points, as CloudWatch
// would over one period: one value per contributor, keyed by its GROUP BY
// dimensions ("IndexName=GSI1,PartitionKey=OPS_LOG"; "" for a single time
// series). A query reads the metrics whose dimension names are exactly its
// SCHEMA's and that match its WHERE; a plain reference, the metric with
// exactly its dimensions and values.
func evaluate(t *testing.T, r metricRef, pts []point) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, p := range pts {
		if p.namespace != r.namespace || p.name != r.name {
			continue
		}
		if r.insights {
			if !slices.Equal(slices.Sorted(maps.Keys(p.dims)), slices.Sorted(slices.Values(r.schema))) {
				continue
			}
		} else if len(p.dims) != len(r.dimensions) {
			continue
		}
		match := true
		for k, v := range r.dimensions {
			if got, ok := p.dims[k]; !ok || (v != "" && got != v) {
				match = false
			}
		}
		if !match {
			continue
		}
		var group []string
		for _, k := range r.groupBy {
			group = append(group, k+"="+p.dims[k])
		}
		key := strings.Join(group, ",")
		prev, seen := out[key]
		switch r.stat {
		case "MAX", "Maximum":
			if !seen || p.value > prev {
				out[key] = p.value
			}
		case "SUM", "Sum":
			out[key] = prev + p.value
		default:
			t.Fatalf("%v: statistic %s is not evaluated here", r, r.stat)
		}
	}
	return out
}

// breaching returns the contributors of a single-query or single-metric
// alarm that are past its threshold.
func breaching(t *testing.T, s *cfn.Stack, id string, pts []point) map[string]float64 {
	t.Helper()
	p := properties(mustResource(t, s, id))
	refs, err := alarmMetricRefs(id, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 {
		t.Fatalf("alarm %s reads %d metrics; this test evaluates alarms on one", id, len(refs))
	}
	threshold := toFloat(t, p["Threshold"])
	out := map[string]float64{}
	for c, v := range evaluate(t, refs[0], pts) {
		switch p["ComparisonOperator"] {
		case "GreaterThanOrEqualToThreshold":
			if v >= threshold {
				out[c] = v
			}
		case "GreaterThanThreshold":
			if v > threshold {
				out[c] = v
			}
		default:
			t.Fatalf("alarm %s: operator %v is not evaluated here", id, p["ComparisonOperator"])
		}
	}
	return out
}

// hotWindow is a one-minute window of testTable, or of one of its indexes,
// through the real detector: key OPS_LOG written at peak WCU/s in one
// second, beside 300 quiet keys.
func hotWindow(t *testing.T, index string, peak int) report.Report {
	t.Helper()
	cfg := detector.DefaultConfig()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := detector.NewIndexWindow(cfg.Sketch, testTable, index, start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	add := func(key string, at time.Time, wcu uint64) {
		k := ddb.Key{Type: ddb.String, Value: []byte(key)}
		r := record.Record{Table: testTable, PartitionKey: k, WCU: wcu, WCUExact: true, Time: at}
		if index == "" {
			w.Add(&r)
			return
		}
		w.AddIndex(&r, &record.IndexWrite{Index: index, WCU: wcu, Exact: true, Put: ddb.IndexEntry{Key: k, WCU: wcu}})
	}
	for range peak {
		add("OPS_LOG", start.Add(7*time.Second), 1)
	}
	for i := range 300 {
		add(fmt.Sprintf("USER#%04d", i), start.Add(time.Duration(i%60)*time.Second), 2)
	}
	return w.Report(cfg)
}

// TestTemplateIndexAlarmsFire is the proof that the index alarms watch what
// the publisher really emits for an index's window, and that table and
// index never feed each other's alarms: the detector judges a window, the
// real publisher writes its metrics, and each alarm's query or metric is
// evaluated on them with the deployed threshold.
func TestTemplateIndexAlarmsFire(t *testing.T) {
	// IndexAnalysis auto with the indexes named, thresholds at their defaults.
	s := deploy(t, readTemplate(t), map[string]string{"IndexNames": testIndex + ",by-status"})
	crit := detector.DefaultConfig().CriticalWCUPerSecond
	if got := toFloat(t, properties(mustResource(t, s, "IndexHotKeyCriticalAlarm"))["Threshold"]); got != crit {
		t.Fatalf("the deployed critical threshold %v is not the detector's default %v, which hotWindow relies on", got, crit)
	}

	indexHot := []report.Report{hotWindow(t, "", 50), hotWindow(t, testIndex, 950), hotWindow(t, "by-status", 60)}
	tableHot := []report.Report{hotWindow(t, "", 950), hotWindow(t, testIndex, 50), hotWindow(t, "by-status", 60)}
	if len(indexHot[1].HotKeys) != 1 || indexHot[1].HotKeys[0].Severity != report.Critical || len(indexHot[0].HotKeys) != 0 || len(indexHot[2].HotKeys) != 0 {
		t.Fatalf("the detector did not flag exactly GSI1's OPS_LOG as critical: %+v", indexHot)
	}

	for _, tc := range []struct {
		name    string
		reports []report.Report
		want    map[string]map[string]float64 // alarm → breaching contributors
	}{
		{"a hot key of index GSI1, the table quiet", indexHot, map[string]map[string]float64{
			"IndexHotKeyCriticalAlarm": {"IndexName=" + testIndex: 950},
			"IndexHotKeyByKeyAlarm":    {"IndexName=" + testIndex + ",PartitionKey=OPS_LOG": 950},
			"IndexHotKeyWarningAlarm":  {"IndexName=" + testIndex: 1},
			"HotKeyCriticalAlarm":      {},
			"HotKeyByKeyAlarm":         {},
		}},
		{"a hot key of the table, its indexes quiet", tableHot, map[string]map[string]float64{
			"IndexHotKeyCriticalAlarm": {},
			"IndexHotKeyByKeyAlarm":    {},
			"IndexHotKeyWarningAlarm":  {},
			"HotKeyCriticalAlarm":      {"": 950},
			"HotKeyByKeyAlarm":         {"PartitionKey=OPS_LOG": 950},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pts := publishPoints(t, tc.reports)
			got := map[string]map[string]float64{}
			for id := range tc.want {
				got[id] = breaching(t, s, id, pts)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("breaching contributors by alarm (-want +got):\n%s", diff)
			}
		})
	}

	// Both index queries see every index, not only the hot one: the quiet
	// index is a contributor too, below the threshold.
	refs, err := alarmMetricRefs("IndexHotKeyCriticalAlarm", properties(mustResource(t, s, "IndexHotKeyCriticalAlarm")))
	if err != nil {
		t.Fatal(err)
	}
	all := evaluate(t, refs[0], publishPoints(t, indexHot))
	if diff := cmp.Diff(map[string]float64{"IndexName=" + testIndex: 950, "IndexName=by-status": 60}, all); diff != "" {
		t.Errorf("index critical alarm's contributors (-want +got):\n%s", diff)
	}
}

// TestTemplateIndexAlarmsOnlyWhenIndexesAreDeclared: the three index alarms
// exist with IndexAnalysis on, or auto with IndexNames given, and never
// with off. auto alone may be a table without any index, and each of them
// holds one of the Region's 200 Metrics Insights alarms (docs/deploy.md).
func TestTemplateIndexAlarmsOnlyWhenIndexesAreDeclared(t *testing.T) {
	tmpl := readTemplate(t)
	for _, tc := range []struct {
		mode, names string
		alarms      bool
	}{
		{"auto", "", false},
		{"auto", testIndex, true},
		{"auto", testIndex + ",by-status", true},
		{"on", "", true},
		{"on", testIndex, true},
		{"off", "", false},
		{"off", testIndex, false},
	} {
		values := map[string]string{"IndexAnalysis": tc.mode}
		if tc.names != "" {
			values["IndexNames"] = tc.names
		}
		s := deploy(t, tmpl, values)
		for _, id := range []string{"IndexHotKeyCriticalAlarm", "IndexHotKeyByKeyAlarm", "IndexHotKeyWarningAlarm"} {
			r, err := s.Resource(id)
			if err != nil {
				t.Fatal(err)
			}
			if (r != nil) != tc.alarms {
				t.Errorf("IndexAnalysis=%s IndexNames=%q: %s created = %v, want %v", tc.mode, tc.names, id, r != nil, tc.alarms)
			}
		}
		// The function analyses the indexes whatever the alarms: names
		// or not, it asks DescribeTable.
		if got := functionEnvironment(t, s)["HOTKEYS_INDEXES"]; got != tc.mode {
			t.Errorf("IndexAnalysis=%s: HOTKEYS_INDEXES = %q", tc.mode, got)
		}
	}

	decl, ok := tmpl["Parameters"].(map[string]any)["IndexNames"].(map[string]any)
	if !ok {
		t.Fatal("no parameter IndexNames")
	}
	pattern := matcher(t, "IndexNames", decl["AllowedPattern"].(string))
	for v, ok := range map[string]bool{
		"":                           true,
		testIndex:                    true,
		"GSI1,by-status,a.b_c-d":     true,
		strings.Repeat("x", 255):     true,
		"ab":                         false, // DynamoDB index names have 3 to 255 characters
		strings.Repeat("x", 256):     false,
		"GSI1, by-status":            false, // a space
		"GSI1,":                      false,
		",GSI1":                      false,
		"GSI#1":                      false,
		"arn:aws:dynamodb:x:y:table": false,
	} {
		if pattern.MatchString(v) != ok {
			t.Errorf("IndexNames pattern on %q: %v, want %v", v, !ok, ok)
		}
	}
}
