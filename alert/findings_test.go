package alert

import (
	"context"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/detector"
)

func TestFindingsLog(t *testing.T) {
	p, out := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	r := sampleReport("Orders", recentStart())
	r.WCUIsLowerBound = true
	r.TerminatedEarly = true
	if _, err := p.Publish(context.Background(), []detector.Report{r}); err != nil {
		t.Fatal(err)
	}
	_, logs := splitOutput(t, out.Bytes())
	if len(logs) != 1+len(r.HotKeys) {
		t.Fatalf("%d log lines, want %d", len(logs), 1+len(r.HotKeys))
	}
	early := logs[0]
	if early["msg"] != MsgTerminatedEarly || early["level"] != "WARN" || early["table"] != "Orders" || early["window_start"] != formatTime(r.Start) {
		t.Errorf("early-termination line %v", early)
	}
	for i, k := range r.HotKeys {
		l := logs[1+i]
		wantLevel := "WARN"
		if k.Severity == detector.Critical {
			wantLevel = "ERROR"
		}
		checks := map[string]any{
			"level": wantLevel, "msg": MsgHotKey, "table": r.Table, "key": k.Key, "type": k.Type,
			"dimension": DimensionValue(k.Key), "severity": string(k.Severity), "pattern": string(k.Pattern),
			"diagnosis": k.Diagnosis, "wcu": float64(k.WCU), "wcu_lower": float64(k.WCULower), "wcu_upper": float64(k.WCUUpper),
			"share": k.Share, "avg_wcu_per_second": k.AvgWCUPerSecond, "peak_wcu_per_second": k.PeakWCUPerSecond,
			"recommended_shards": float64(k.RecommendedShards), "wcu_is_lower_bound": true, "terminated_early": true,
			"window_start": formatTime(r.Start), "window_end": formatTime(r.End),
		}
		for field, want := range checks {
			if l[field] != want {
				t.Errorf("key %s: %s = %v, want %v", k.Key, field, l[field], want)
			}
		}
		if _, ok := l["time"]; ok {
			t.Errorf("log line carries a wall-clock time")
		}
	}
	if logs[3]["write_shards"] != float64(2) {
		t.Errorf("sharded key: write_shards = %v", logs[3]["write_shards"])
	}
	// Only KeyReport.Key is printed: the physical shard keys are not.
	for _, part := range r.HotKeys[2].Shards {
		if strings.Contains(string(out.Bytes()), part.Key) {
			t.Errorf("output carries the shard key %q", part.Key)
		}
	}
}

// TestFindingsLogIndex: an index window's findings name the index; its
// figures are not published as the table's metrics.
func TestFindingsLogIndex(t *testing.T) {
	p, out := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	r := sampleReport("Orders", recentStart())
	r.Index = "GSI1"
	res, err := p.Publish(context.Background(), []detector.Report{r})
	if err != nil {
		t.Fatal(err)
	}
	emf, logs := splitOutput(t, out.Bytes())
	if len(logs) != len(r.HotKeys) || res.MetricsEMF != 0 || len(emf) != 0 {
		t.Fatalf("%d log lines, %d metrics (%d EMF lines); want %d lines and no metrics", len(logs), res.MetricsEMF, len(emf), len(r.HotKeys))
	}
	for _, l := range logs {
		if l["index"] != "GSI1" || l["table"] != "Orders" {
			t.Errorf("log line %v", l)
		}
	}
	r.Index = ""
	p2, out2 := emfPublisher(t, Config{Namespace: "N", Top: 0, StorageResolution: 60})
	if _, err := p2.Publish(context.Background(), []detector.Report{r}); err != nil {
		t.Fatal(err)
	}
	if _, logs := splitOutput(t, out2.Bytes()); len(logs) == 0 || logs[0]["index"] != nil {
		t.Errorf("a table window's log line names an index: %v", logs)
	}
}
