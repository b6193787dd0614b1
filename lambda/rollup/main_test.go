package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/rollup"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/envconfig"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	cfg, err := configFromEnv(env(map[string]string{"HOTKEYS_HISTORY_TABLE": "H"}))
	if err != nil || cfg != (config{history: envconfig.History{Table: "H", Retention: 30 * 24 * time.Hour, WriteShards: store.DefaultWriteShards}, window: time.Minute}) {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = configFromEnv(env(map[string]string{"HOTKEYS_HISTORY_TABLE": "H", "HOTKEYS_WINDOW": "300", "HOTKEYS_HISTORY_WRITE_SHARDS": "128", "HOTKEYS_HISTORY_RETENTION_DAYS": "7"}))
	if err != nil || cfg != (config{history: envconfig.History{Table: "H", Retention: 7 * 24 * time.Hour, WriteShards: 128}, window: 5 * time.Minute}) {
		t.Errorf("set: %+v, %v", cfg, err)
	}
	for name, bad := range map[string][]string{
		"HOTKEYS_HISTORY_TABLE":          {""},
		"HOTKEYS_WINDOW":                 {"7m", "0", "1.5s", "x", "2h"},
		"HOTKEYS_HISTORY_WRITE_SHARDS":   {"0", "1025", "x"},
		"HOTKEYS_HISTORY_RETENTION_DAYS": {"0", "3651", "x"},
	} {
		for _, v := range bad {
			m := map[string]string{"HOTKEYS_HISTORY_TABLE": "H", name: v}
			if _, err := configFromEnv(env(m)); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// TestInvoke runs the function on the event EventBridge Scheduler sends:
// it rolls up the window of its scheduled time, whatever the clock says,
// and refuses an event it cannot read.
func TestInvoke(t *testing.T) {
	api, _ := dynamodblocal.Clients(t)
	name, _ := dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "rollupfn", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	table, err := store.New(api, name, store.Options{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, shard := range []string{"shardId-1", "shardId-2"} {
		s := &history.Summary{Table: "Orders", Shard: shard, Start: start, End: start.Add(time.Minute), Totals: report.Totals{Records: 5, WCU: 5}, DistinctKeys: 1,
			Keys: []report.KeyReport{{KeyFigures: report.KeyFigures{Key: "K", Type: "S", WCU: 5, WCULower: 5, WCUUpper: 5}}}}
		if err := table.Put(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	job, err := rollup.New(table, rollup.Config{Window: time.Minute}, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	h := &handler{job: job, now: func() time.Time { return start.Add(24 * time.Hour) }}
	out, err := h.Invoke(context.Background(), []byte(`{"scheduled_time": "2026-11-22T10:02:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	var res rollup.Result
	if err := json.Unmarshal(out, &res); err != nil || !res.First.Equal(start) || res.Rollups != 1 || res.Sources != 2 {
		t.Errorf("result %s, %v: want the window of 10:00 rolled up from 2 windows", out, err)
	}
	for _, bad := range []string{`{"scheduled_time": "yesterday"}`, `[1]`, `not json`} {
		if _, err := h.Invoke(context.Background(), []byte(bad)); err == nil || !strings.Contains(err.Error(), "rollup:") {
			t.Errorf("event %s: %v, want an error", bad, err)
		}
	}
}

// TestEnvVarsListed: envVars, which the template follows, lists exactly
// the variables configFromEnv reads.
func TestEnvVarsListed(t *testing.T) {
	read := map[string]bool{}
	if _, err := configFromEnv(func(k string) string { read[k] = true; return "H" }); err == nil {
		t.Fatal("HOTKEYS_WINDOW=H accepted")
	}
	read = map[string]bool{}
	configFromEnv(func(k string) string {
		read[k] = true
		if k == "HOTKEYS_HISTORY_TABLE" {
			return "H"
		}
		return ""
	})
	if got := slices.Sorted(maps.Keys(read)); !slices.Equal(got, slices.Sorted(slices.Values(envVars))) {
		t.Errorf("read %v, envVars %v", got, envVars)
	}
}
