package alert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/report"
)

// testNow is the tests' clock: every publisher and fake CloudWatch of the
// tests reads it, so that CloudWatch's time range (two weeks back to two
// hours ahead) is checked against a fixed instant and no outcome depends on
// when a test runs.
var testNow = time.Date(2026, 11, 22, 10, 3, 0, 0, time.UTC)

func testClock() time.Time { return testNow }

// recentStart is a window start CloudWatch accepts at testNow: a
// minute-aligned window that closed a minute before.
func recentStart() time.Time { return testNow.Add(-2 * time.Minute) }

// newTestPublisher is NewPublisher with the tests' clock.
func newTestPublisher(cfg Config, api MetricPutter, stdout io.Writer) (*Publisher, error) {
	p, err := NewPublisher(cfg, api, stdout)
	if p != nil {
		p.now = testClock
	}
	return p, err
}

// newServer starts a fake CloudWatch with the tests' clock.
func newServer() *fakecloudwatch.Server {
	srv := fakecloudwatch.New()
	srv.SetClock(testClock)
	return srv
}

// sampleReport is a window of a table with one critical single key, a
// warning low-cardinality key, a warning sharded key, and an unflagged tail.
func sampleReport(table string, start time.Time) report.Report {
	hot := []report.KeyReport{
		{
			KeyFigures: report.KeyFigures{Key: "OPS_LOG", Type: "S", WCU: 9000, WCULower: 8990, WCUUpper: 9010, Share: 0.38369713506139154, AvgWCUPerSecond: 150, PeakWCUPerSecond: 950, Severity: report.Critical, Pattern: report.PatternSingleKey, Diagnosis: "one key carries 38% of the table's writes", RecommendedShards: 2},
		},
		{
			KeyFigures: report.KeyFigures{Key: "STATUS#ACTIVE", Type: "S", WCU: 4000, WCULower: 3950, WCUUpper: 4040, Share: 0.17053206002728513, AvgWCUPerSecond: 66.66666666666667, PeakWCUPerSecond: 310.5, Severity: report.Warning, Pattern: report.PatternLowCardinality, Diagnosis: "an enumerated value used as a partition key", RecommendedShards: 2},
		},
		{
			KeyFigures: report.KeyFigures{Key: "ORDERS", Type: "S", WCU: 2700, WCULower: 2700, WCUUpper: 2712, Share: 0.11510914051841747, AvgWCUPerSecond: 45, PeakWCUPerSecond: 120, Severity: report.Warning, Pattern: report.PatternShardedUneven, Diagnosis: "write shards are uneven", RecommendedShards: 2},
			Shards:     []report.ShardedKeyPart{{Key: "ORDERS#SHARD_0", WCU: 2000}, {Key: "ORDERS#SHARD_1", WCU: 700}},
		},
	}
	top := append(slices.Clone(hot), report.KeyReport{
		KeyFigures: report.KeyFigures{Key: "USER#0001", Type: "S", WCU: 100, WCULower: 90, WCUUpper: 110, Share: 0.004263301500682128, AvgWCUPerSecond: 1.6666666666666667, PeakWCUPerSecond: 12},
	})
	return report.Report{
		Window:       report.Window{Table: table, Start: start, End: start.Add(time.Minute)},
		Totals:       report.Totals{Records: 10000, TTLDeletes: 12, Malformed: 3, InternalErrors: 1, WCU: 23456},
		DistinctKeys: 4567,
		HotKeys:      hot,
		TopKeys:      top,
		Shards: []report.ShardReport{
			{Shard: "shardId-00000001", Records: 6000, WCU: 15000, PeakWCUPerSecond: 990},
			{Shard: "shardId-00000002", Records: 4000, WCU: 8456, PeakWCUPerSecond: 400.25},
		},
	}
}

// obs is one metric value as CloudWatch would store it.
type obs struct {
	Name, Unit, Dims string // Dims: "Name=Value|…" in the order sent
	TS               int64  // ms
	Value            float64
}

func (o obs) String() string {
	return fmt.Sprintf("%s{%s}@%d=%v %s", o.Name, o.Dims, o.TS, o.Value, o.Unit)
}

func apiObs(data []fakecloudwatch.Datum) []obs {
	out := make([]obs, 0, len(data))
	for _, d := range data {
		var dims []string
		for _, dim := range d.Dimensions {
			dims = append(dims, dim.Name+"="+dim.Value)
		}
		out = append(out, obs{d.MetricName, d.Unit, strings.Join(dims, "|"), d.Timestamp.UnixMilli(), d.Value})
	}
	return out
}

// expectedObs computes, independently of the package's code paths, what a
// report must publish: the table metrics, then the key metrics of the top
// flagged keys in the given order. An index's window adds IndexName after
// TableName and leaves out what belongs to the stream as a whole: malformed
// records, internal errors and the stream shards' peak.
func expectedObs(r report.Report, keys []report.KeyReport) []obs {
	ts := r.Start.UnixMilli()
	table := "TableName=" + r.Table
	if r.Index != "" {
		table += "|IndexName=" + r.Index
	}
	var maxShare, maxPeak, maxShard float64
	critical := 0
	for _, k := range append(slices.Clone(r.HotKeys), r.TopKeys...) {
		if !math.IsNaN(k.Share) && !math.IsInf(k.Share, 0) {
			maxShare = math.Max(maxShare, k.Share)
		}
		if !math.IsNaN(k.PeakWCUPerSecond) && !math.IsInf(k.PeakWCUPerSecond, 0) {
			maxPeak = math.Max(maxPeak, k.PeakWCUPerSecond)
		}
	}
	for _, k := range r.HotKeys {
		if k.Severity == report.Critical {
			critical++
		}
	}
	for _, s := range r.Shards {
		maxShard = math.Max(maxShard, s.PeakWCUPerSecond)
	}
	lower := 0.0
	if r.WCUIsLowerBound {
		lower = 1
	}
	out := []obs{
		{"WriteCapacityUnits", "Count", table, ts, float64(r.WCU)},
		{"StreamRecords", "Count", table, ts, float64(r.Records)},
		{"DistinctPartitionKeys", "Count", table, ts, float64(r.DistinctKeys)},
		{"MaxKeyWCUShare", "None", table, ts, maxShare},
		{"MaxKeyPeakWCUPerSecond", "Count/Second", table, ts, maxPeak},
		{"HotKeys", "Count", table, ts, float64(len(r.HotKeys))},
		{"CriticalHotKeys", "Count", table, ts, float64(critical)},
		{"MalformedRecords", "Count", table, ts, float64(r.Malformed)},
		{"InternalErrors", "Count", table, ts, float64(r.InternalErrors)},
		{"TTLDeletes", "Count", table, ts, float64(r.TTLDeletes)},
		{"WCUIsLowerBound", "None", table, ts, lower},
		{"MaxShardPeakWCUPerSecond", "Count/Second", table, ts, maxShard},
	}
	if r.Index != "" {
		out = slices.DeleteFunc(out, func(o obs) bool {
			return o.Name == "MalformedRecords" || o.Name == "InternalErrors" || o.Name == "MaxShardPeakWCUPerSecond"
		})
	}
	for _, k := range keys {
		dims := table + "|PartitionKey=" + DimensionValue(k.Key)
		for _, o := range []obs{
			{"KeyWriteCapacityUnits", "Count", dims, ts, float64(k.WCU)},
			{"KeyWCUShare", "None", dims, ts, k.Share},
			{"KeyPeakWCUPerSecond", "Count/Second", dims, ts, k.PeakWCUPerSecond},
		} {
			if !math.IsNaN(o.Value) && !math.IsInf(o.Value, 0) {
				out = append(out, o)
			}
		}
	}
	return out
}

// emfLine is one parsed EMF document.
type emfLine struct {
	Namespace string
	Dims      []string // dimension set, in order
	Obs       []obs
}

var standardUnits = []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes",
	"Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count",
	"Bytes/Second", "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second",
	"Bits/Second", "Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None"}

// parseEMF checks a line against the EMF specification (root members,
// metadata, directive shapes and limits, target members) and returns it.
func parseEMF(t *testing.T, line []byte) emfLine {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("EMF line is not a JSON object: %v\n%s", err, line)
	}
	if dec.More() {
		t.Fatalf("EMF line has data after the object: %s", line)
	}
	meta, ok := root["_aws"].(map[string]any)
	if !ok || len(meta) != 2 {
		t.Fatalf("_aws must be an object with Timestamp and CloudWatchMetrics only: %s", line)
	}
	tsNum, ok := meta["Timestamp"].(json.Number)
	ts, err := tsNum.Int64()
	if !ok || err != nil || ts <= 0 {
		t.Fatalf("Timestamp must be a positive integer of milliseconds: %v", meta["Timestamp"])
	}
	directives, ok := meta["CloudWatchMetrics"].([]any)
	if !ok || len(directives) == 0 {
		t.Fatalf("CloudWatchMetrics must be a non-empty array: %s", line)
	}
	var out emfLine
	for _, d := range directives {
		dir, ok := d.(map[string]any)
		if !ok {
			t.Fatalf("directive is not an object: %v", d)
		}
		for k := range dir {
			if k != "Namespace" && k != "Dimensions" && k != "Metrics" {
				t.Fatalf("directive has unknown member %q", k)
			}
		}
		ns, _ := dir["Namespace"].(string)
		if ns == "" || len(ns) > 255 || (out.Namespace != "" && ns != out.Namespace) {
			t.Fatalf("bad Namespace %q", ns)
		}
		out.Namespace = ns
		sets, ok := dir["Dimensions"].([]any)
		if !ok || len(sets) == 0 {
			t.Fatalf("want at least one dimension set, got %v", dir["Dimensions"])
		}
		// Every set must be valid; each yields its own observations (an
		// index's onset is published under TableName alone too).
		var setPairs [][]string
		for si, s := range sets {
			set, ok := s.([]any)
			if !ok || len(set) == 0 || len(set) > 30 {
				t.Fatalf("dimension set must hold 1 to 30 names: %v", s)
			}
			var dims, pairs []string
			for _, n := range set {
				name, ok := n.(string)
				val, vok := root[name].(string)
				if !ok || !vok || !validDimensionValue(val) {
					t.Fatalf("dimension %v must be a root member with a valid string value, got %v", n, root[name])
				}
				dims = append(dims, name)
				pairs = append(pairs, name+"="+val)
			}
			if si == 0 {
				if out.Dims != nil && !slices.Equal(out.Dims, dims) {
					t.Fatalf("directives disagree on dimensions: %v vs %v", out.Dims, dims)
				}
				out.Dims = dims
			}
			setPairs = append(setPairs, pairs)
		}
		metrics, ok := dir["Metrics"].([]any)
		if !ok || len(metrics) == 0 || len(metrics) > 100 {
			t.Fatalf("Metrics must hold 1 to 100 definitions, got %d", len(metrics))
		}
		for _, m := range metrics {
			def, ok := m.(map[string]any)
			if !ok {
				t.Fatalf("metric definition is not an object: %v", m)
			}
			name, _ := def["Name"].(string)
			unit, _ := def["Unit"].(string)
			if name == "" || len(name) > 255 || !slices.Contains(standardUnits, unit) {
				t.Fatalf("bad metric definition %v", def)
			}
			if r, ok := def["StorageResolution"]; ok && r.(json.Number) != "1" && r.(json.Number) != "60" {
				t.Fatalf("StorageResolution %v", r)
			}
			num, ok := root[name].(json.Number)
			if !ok {
				t.Fatalf("metric %s has no numeric root member: %v", name, root[name])
			}
			v, err := num.Float64()
			if err != nil {
				t.Fatal(err)
			}
			for _, pairs := range setPairs {
				out.Obs = append(out.Obs, obs{name, unit, strings.Join(pairs, "|"), ts, v})
			}
		}
	}
	return out
}

// splitOutput separates EMF lines from log lines.
func splitOutput(t *testing.T, out []byte) (emf []emfLine, logs []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte(`{"_aws":`)) {
			emf = append(emf, parseEMF(t, line))
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("output line is not JSON: %v\n%s", err, line)
		}
		logs = append(logs, m)
	}
	return emf, logs
}

func emfObs(lines []emfLine) []obs {
	var out []obs
	for _, l := range lines {
		out = append(out, l.Obs...)
	}
	return out
}

func sameObs(t *testing.T, what string, got, want []obs) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: value %d is %v, want %v", what, i, got[i], want[i])
			return
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writers of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// published is the keys publishedKeys picks of hot, in its order.
func published(hot []report.KeyReport, top int) []report.KeyReport {
	var out []report.KeyReport
	for _, i := range publishedKeys(len(hot), func(i int) *report.KeyFigures { return &hot[i].KeyFigures }, top) {
		out = append(out, hot[i])
	}
	return out
}
