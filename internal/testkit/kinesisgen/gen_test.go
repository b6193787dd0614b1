package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/hotkeys-dev/hotkeys/record"
)

const eventsDir = "../../../events"

// TestSamplesUpToDate: the files of events/kinesis/ are what kinesisgen
// writes from the stream samples.
func TestSamplesUpToDate(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"-events", eventsDir, "-check"}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("kinesisgen -check: exit %d: %s", code, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(eventsDir, outDir, "*"))
	want, err := generate(eventsDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("events/%s holds %d files, kinesisgen writes %d", outDir, len(files), len(want))
	}
	var stdout bytes.Buffer
	if code := run([]string{"-events", t.TempDir()}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "plain-batch.json") {
		t.Errorf("without stream samples: exit %d, %q", code, stderr.String())
	}
}

// totals decodes the change records of Kinesis events, each eventID once,
// or the records of stream events, with record's decoder.
type totals struct {
	Records, Delivered, WCU uint64
	PerKey                  map[string]uint64
}

// newTotals returns a decoder of the samples (partition key PK), empty
// totals and the eventIDs seen.
func newTotals(t *testing.T) (*record.Decoder, totals, map[string]bool) {
	t.Helper()
	dec, err := record.NewDecoder(record.Config{PartitionKey: "PK"})
	if err != nil {
		t.Fatal(err)
	}
	return dec, totals{PerKey: map[string]uint64{}}, map[string]bool{}
}

func (tt *totals) add(t *testing.T, dec *record.Decoder, payload []byte, seen map[string]bool) {
	t.Helper()
	err := dec.Decode(payload, record.Visitor{Record: func(r *record.Record) error {
		tt.Delivered++
		if seen[string(r.EventID)] {
			return nil
		}
		seen[string(r.EventID)] = true
		tt.Records++
		tt.WCU += r.WCU
		tt.PerKey[string(r.PartitionKey.Value)] += r.WCU
		return nil
	}, Malformed: func(m *record.Malformed) error { return m.Err }})
	if err != nil {
		t.Fatal(err)
	}
}

// kinesisTotals reads the Kinesis samples files, checks their envelope, and
// totals their change records.
func kinesisTotals(t *testing.T, files ...string) totals {
	t.Helper()
	dec, tt, seen := newTotals(t)
	micros := regexp.MustCompile(`"ApproximateCreationDateTime":\d{16},`)
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(eventsDir, outDir, f))
		if err != nil {
			t.Fatal(err)
		}
		var ev events.KinesisTimeWindowEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range ev.Records {
			if r.EventSource != "aws:kinesis" || r.EventSourceArn != streamARN || !strings.HasPrefix(r.EventID, "shardId-000000000000:") {
				t.Errorf("%s: record envelope %+v", f, r)
			}
			if ev.ShardID != "" && (r.Kinesis.ApproximateArrivalTimestamp.Before(windowStart) || !r.Kinesis.ApproximateArrivalTimestamp.Before(windowEnd)) {
				t.Errorf("%s: arrival %v outside the window", f, r.Kinesis.ApproximateArrivalTimestamp)
			}
			if !micros.Match(r.Kinesis.Data) || !bytes.Contains(r.Kinesis.Data, []byte(`"ApproximateCreationDateTimePrecision":"MICROSECOND"`)) {
				t.Errorf("%s: a change record without a microsecond time: %s", f, r.Kinesis.Data)
			}
			tt.add(t, dec, r.Kinesis.Data, seen)
		}
	}
	return tt
}

func streamTotals(t *testing.T, files ...string) totals {
	t.Helper()
	dec, tt, seen := newTotals(t)
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(eventsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		tt.add(t, dec, raw, seen)
	}
	return tt
}

// TestSamplesHoldTheStreamSamplesWrites: once each eventID is counted once,
// a Kinesis sample holds the writes of its stream samples, WCU for WCU and
// key for key, as docs/events.md says; duplicates make the difference.
func TestSamplesHoldTheStreamSamplesWrites(t *testing.T) {
	for _, tc := range []struct {
		kinesis, stream   []string
		records, dup, wcu uint64
		hotKey            string
		hotWCU            uint64
	}{
		{[]string{"kinesis-batch.json"}, []string{"plain-batch.json"}, 100, 3, 160, "", 0},
		{[]string{"kinesis-tumbling-window-1.json", "kinesis-tumbling-window-2.json", "kinesis-tumbling-window-final.json"},
			[]string{"tumbling-window-1.json", "tumbling-window-2.json", "tumbling-window-final.json"}, 300, 4, 300, "TENANT#acme", 180},
	} {
		got, want := kinesisTotals(t, tc.kinesis...), streamTotals(t, tc.stream...)
		if got.Records != want.Records || got.WCU != want.WCU || got.Records != tc.records || got.WCU != tc.wcu || got.Delivered != tc.records+tc.dup {
			t.Errorf("%v: %d records (%d delivered), %d WCU; stream samples %d, %d; want %d (+%d), %d",
				tc.kinesis, got.Records, got.Delivered, got.WCU, want.Records, want.WCU, tc.records, tc.dup, tc.wcu)
		}
		for k, w := range want.PerKey {
			if got.PerKey[k] != w {
				t.Errorf("%v: key %s %d WCU, stream samples %d", tc.kinesis, k, got.PerKey[k], w)
			}
		}
		if tc.hotKey != "" && got.PerKey[tc.hotKey] != tc.hotWCU {
			t.Errorf("%v: %s has %d WCU, want %d", tc.kinesis, tc.hotKey, got.PerKey[tc.hotKey], tc.hotWCU)
		}
	}
}
