package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

// refusing is a history table's client whose every call fails as its
// context's end makes it fail.
type refusing struct{ store.API }

func (refusing) PutItem(ctx context.Context, _ *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

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
	s := &historyStore{table: mustTable(t, refusing{}, "hotkeys-history", store.Options{}), namespace: "HotKeys", emf: &emf,
		log: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	s.store(context.Background(), &budget{}, []*detector.Window{w}, []report.Report{w.Report(detector.DefaultConfig())}, "shardId-1", 1, newRecentIDs(8))
	want := `{"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeys","Dimensions":[["TableName"]],` +
		`"Metrics":[{"Name":"HistoryWriteErrors","Unit":"Count"}]}]},"TableName":"Orders","HistoryWriteErrors":1}` + "\n"
	if got := emf.String(); got != want {
		t.Errorf("EMF line\n got %s\nwant %s", got, want)
	}
}
