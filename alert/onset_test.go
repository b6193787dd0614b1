package alert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// sampleOnsets are a table's key and an index's key that crossed.
func sampleOnsets() []report.Onset {
	start := time.Date(2026, 11, 22, 11, 59, 0, 0, time.UTC)
	w := report.Window{Table: "Orders", Start: start, End: start.Add(time.Minute)}
	iw := w
	iw.Index = "GSI1"
	key := func(k string, peak float64) report.KeyFigures {
		return report.KeyFigures{Key: k, Type: "S", WCU: 5200, WCULower: 5200, WCUUpper: 5200, Share: 0.8, AvgWCUPerSecond: 86.7,
			PeakWCUPerSecond: peak, Severity: report.Critical, Pattern: report.PatternSingleItem,
			Diagnosis: "One item rewritten again and again (a counter or status record): …", RecommendedShards: 2}
	}
	return []report.Onset{
		{Window: w, Second: start.Add(25 * time.Second), SecondWCULower: 812, SecondWCUUpper: 812, SecondSoFar: true, Key: key("COUNTER#views", 812)},
		{Window: iw, Second: start.Add(26 * time.Second), SecondWCULower: 1000, SecondWCUUpper: 1040, Key: key("STATUS#OPEN", 1000)},
	}
}

// TestPublishOnsetsGolden: an onset's log line and its EMF lines, at
// 1-second resolution, stamped with its second, in every mode; an index's
// onset goes under TableName alone too.
func TestPublishOnsetsGolden(t *testing.T) {
	var got bytes.Buffer
	for _, tc := range []struct {
		mode Mode
		top  int
	}{{ModeEMF, 10}, {ModeBoth, 10}, {ModeAPI, 0}, {ModeOff, 10}} {
		cfg := DefaultConfig()
		cfg.Mode, cfg.Top = tc.mode, tc.top
		var out bytes.Buffer
		api := newServer()
		defer api.Close()
		p, err := newTestPublisher(cfg, api.Client(), &out)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.PublishOnsets(context.Background(), sampleOnsets())
		fmt.Fprintf(&got, "=== %s, top %d: %+v, %v\n%s", tc.mode, tc.top, res, err, out.Bytes())
		if n := len(api.Data()); n != 0 {
			t.Errorf("mode %s: %d values sent to PutMetricData; onsets go as EMF only", tc.mode, n)
		}
		emf, logs := splitOutput(t, out.Bytes())
		wantEMF := map[Mode]int{ModeEMF: 4, ModeBoth: 4, ModeAPI: 2, ModeOff: 0}[tc.mode]
		if len(emf) != wantEMF || len(logs) != 2 || logs[0]["msg"] != MsgOnset || logs[1]["index"] != "GSI1" {
			t.Errorf("mode %s: %d EMF lines (want %d), logs %v", tc.mode, len(emf), wantEMF, logs)
		}
	}
	golden.Equal(t, "testdata/publish-onsets.golden", got.Bytes())
}

func TestPublishOnsetsInvalid(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode = ModeEMF
	var out bytes.Buffer
	p, err := newTestPublisher(cfg, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	onsets := sampleOnsets()
	onsets[0].Table = ""
	res, err := p.PublishOnsets(context.Background(), onsets)
	if !errors.Is(err, ErrInvalidReport) || res.MetricsEMF != 2 {
		t.Errorf("PublishOnsets = %+v, %v; want the valid onset's 2 values and ErrInvalidReport", res, err)
	}
}

func TestOnsetMetricsCatalogue(t *testing.T) {
	ms := OnsetMetrics()
	if len(ms) != 2 || ms[0].Name != "OnsetPeakWCUPerSecond" || ms[1].Name != "KeyPeakWCUPerSecond" {
		t.Fatalf("OnsetMetrics() = %+v", ms)
	}
	ms[0].Dimensions[0] = "changed"
	if OnsetMetrics()[0].Dimensions[0] != DimensionTableName {
		t.Error("OnsetMetrics() shares its slices with the catalogue")
	}
}

// TestSaturatedFindings: a saturated key's findings line says so, and a
// saturated stream shard gets a line of its own.
func TestSaturatedFindings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode = ModeOff
	var out bytes.Buffer
	p, err := newTestPublisher(cfg, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	r := sampleReport("Orders", recentStart())
	r.HotKeys[0].SaturatedSeconds, r.HotKeys[0].Saturated, r.HotKeys[0].RecommendedShardsIsLowerBound = 7, true, true
	r.Shards = []report.ShardReport{{Shard: "shardId-1", Records: 9, WCU: 9000, PeakWCUPerSecond: 1000, SaturatedSeconds: 9, Saturated: true},
		{Shard: "shardId-2", Records: 1, WCU: 10, PeakWCUPerSecond: 10}}
	if _, err := p.Publish(context.Background(), []report.Report{r}); err != nil {
		t.Fatal(err)
	}
	_, logs := splitOutput(t, out.Bytes())
	var sat, shards int
	for _, l := range logs {
		switch l["msg"] {
		case MsgHotKey:
			if l["saturated_seconds"] == 7.0 && l["saturated"] == true && l["recommended_shards_is_lower_bound"] == true {
				sat++
			}
		case MsgShardSaturated:
			if l["shard"] == "shardId-1" && l["saturated_seconds"] == 9.0 && l["level"] == "ERROR" {
				shards++
			}
		}
	}
	if sat != 1 || shards != 1 {
		t.Errorf("%d saturated key lines, %d saturated shard lines; want 1 and 1:\n%s", sat, shards, out.Bytes())
	}
}
