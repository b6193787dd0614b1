package alert

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/report"
)

func TestFindingsLog(t *testing.T) {
	p, out := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	r := sampleReport("Orders", recentStart())
	r.WCUIsLowerBound = true
	r.TerminatedEarly = true
	if _, err := p.Publish(context.Background(), []report.Report{r}); err != nil {
		t.Fatal(err)
	}
	_, logs := splitOutput(t, out.Bytes())
	// Whole lines, every field: one for the early termination, then one per
	// flagged key. No wall-clock time: the window says when.
	window := map[string]any{"window_start": formatTime(r.Start), "window_end": formatTime(r.End)}
	line := func(fields map[string]any) map[string]any {
		for k, v := range window {
			fields[k] = v
		}
		return fields
	}
	want := []map[string]any{line(map[string]any{
		"level": "WARN", "msg": MsgTerminatedEarly, "table": "Orders",
		"records": float64(r.Records), "wcu": float64(r.WCU), "hot_keys": float64(len(r.HotKeys)),
	})}
	for _, k := range r.HotKeys {
		level := "WARN"
		if k.Severity == report.Critical {
			level = "ERROR"
		}
		l := line(map[string]any{
			"level": level, "msg": MsgHotKey, "table": r.Table, "key": k.Key, "type": k.Type,
			"dimension": DimensionValue(k.Key), "severity": string(k.Severity), "pattern": string(k.Pattern),
			"diagnosis": k.Diagnosis, "wcu": float64(k.WCU), "wcu_lower": float64(k.WCULower), "wcu_upper": float64(k.WCUUpper),
			"share": k.Share, "avg_wcu_per_second": k.AvgWCUPerSecond, "peak_wcu_per_second": k.PeakWCUPerSecond,
			"recommended_shards": float64(k.RecommendedShards), "wcu_is_lower_bound": true, "terminated_early": true,
		})
		if len(k.Shards) > 0 {
			var wcu []any
			for _, s := range k.Shards {
				wcu = append(wcu, float64(s.WCU))
			}
			l["write_shards"], l["write_shard_wcu"] = float64(len(k.Shards)), wcu
		}
		want = append(want, l)
	}
	if _, ok := want[3]["write_shards"]; !ok {
		t.Fatal("the sample's third hot key is not sharded: the test would prove less than it says")
	}
	if diff := cmp.Diff(want, logs); diff != "" {
		t.Errorf("findings log (-want +got):\n%s", diff)
	}
	// Only KeyReport.Key is printed: the physical shard keys are not.
	for _, part := range r.HotKeys[2].Shards {
		if strings.Contains(string(out.Bytes()), part.Key) {
			t.Errorf("output carries the shard key %q", part.Key)
		}
	}
}

// TestFindingsLogIndex: an index window's findings name the index; its
// figures are published under IndexName, never as the table's metrics.
func TestFindingsLogIndex(t *testing.T) {
	p, out := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	r := sampleReport("Orders", recentStart())
	r.Index = "GSI1"
	res, err := p.Publish(context.Background(), []report.Report{r})
	if err != nil {
		t.Fatal(err)
	}
	emf, logs := splitOutput(t, out.Bytes())
	want := expectedObs(r, nil) // Top 0: no key metrics
	if len(logs) != len(r.HotKeys) || res.MetricsEMF != len(want) || len(emf) != 1 {
		t.Fatalf("%d log lines, %d metrics (%d EMF lines); want %d lines and %d metrics in 1 line", len(logs), res.MetricsEMF, len(emf), len(r.HotKeys), len(want))
	}
	if got := strings.Join(emf[0].Dims, ","); got != "TableName,IndexName" {
		t.Errorf("index window's EMF dimensions %s, want TableName,IndexName", got)
	}
	sameObs(t, "index window", emfObs(emf), want)
	for _, l := range logs {
		if l["index"] != "GSI1" || l["table"] != "Orders" {
			t.Errorf("log line %v", l)
		}
	}
	r.Index = ""
	p2, out2 := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	if _, err := p2.Publish(context.Background(), []report.Report{r}); err != nil {
		t.Fatal(err)
	}
	if _, logs := splitOutput(t, out2.Bytes()); len(logs) == 0 || logs[0]["index"] != nil {
		t.Errorf("a table window's log line names an index: %v", logs)
	}
}
