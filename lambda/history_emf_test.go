package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history/store"
)

// TestHistoryWriteErrorsLine: a window whose summary is not stored is
// counted in one whole EMF line, the shape alert writes every metric in:
// the namespace, the table as the one dimension, a Count of 1 at the
// window's start.
func TestHistoryWriteErrorsLine(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := detector.NewWindow(detector.DefaultConfig().Sketch, "Orders", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var emf bytes.Buffer
	s := &historyStore{table: mustTable(t, nil, "hotkeys-history", store.Options{}), namespace: "HotKeys", emf: &emf,
		log: slog.New(slog.NewJSONHandler(io.Discard, nil)), now: time.Now, attempts: 1}
	// A context already done: no write is started, and none is needed to
	// fail.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s.write(ctx, w, w.Report(detector.DefaultConfig()), "shardId-1") {
		t.Fatal("a write with no time left was reported stored")
	}
	want := `{"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeys","Dimensions":[["TableName"]],` +
		`"Metrics":[{"Name":"HistoryWriteErrors","Unit":"Count"}]}]},"TableName":"Orders","HistoryWriteErrors":1}` + "\n"
	if got := emf.String(); got != want {
		t.Errorf("EMF line\n got %s\nwant %s", got, want)
	}
}
