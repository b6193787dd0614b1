package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestJSONAsBefore: the sample reports (testdata), written by the build
// before this package existed, decode into Report and ClientReport and
// encode again byte for byte: field names, order and omissions are as they
// were, for the stream side (the demo's windows, and windows with every
// optional field set) and the client side.
func TestJSONAsBefore(t *testing.T) {
	roundTrip[report.Report](t, "testdata/stream.jsonl")
	roundTrip[report.ClientReport](t, "testdata/client.jsonl")
}

func roundTrip[R any](t *testing.T, path string) {
	t.Helper()
	lines := golden.RawLines(t, path)
	if len(lines) < 4 {
		t.Fatalf("%s: %d reports: the test would prove little", path, len(lines))
	}
	for i, line := range lines {
		var r R
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s, line %d: %v", path, i+1, err)
		}
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, line) {
			t.Errorf("%s, line %d: encodes as\n%s\nwant\n%s", path, i+1, got, line)
		}
	}
}

// TestClientRefusesStream: a stream's report is not read as a client's,
// so a reader of mixed windows can tell them apart.
func TestClientRefusesStream(t *testing.T) {
	line := golden.RawLines(t, "testdata/stream.jsonl")[0]
	var c report.ClientReport
	if err := json.Unmarshal(line, &c); !errors.Is(err, report.ErrNotClient) {
		t.Errorf("a stream report read as a client's: %v", err)
	}
}

// TestClientNull: null leaves a client report as it is, as encoding/json
// does for any value.
func TestClientNull(t *testing.T) {
	var doc struct{ Windows []report.ClientReport }
	if err := json.Unmarshal([]byte(`{"Windows":[null]}`), &doc); err != nil || len(doc.Windows) != 1 || doc.Windows[0].Table != "" {
		t.Errorf("null: %v, %+v", err, doc)
	}
}
