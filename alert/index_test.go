package alert

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
)

// indexReports are one window of table Orders and of two of its global
// secondary indexes. GSI1 has the table's hottest key name too (OPS_LOG),
// so a mix-up of the table's and an index's metrics would show.
func indexReports(start time.Time) []report.Report {
	table := sampleReport("Orders", start)
	gsi1 := sampleReport("Orders", start)
	gsi1.Index = "GSI1"
	gsi1.Malformed, gsi1.InternalErrors, gsi1.Shards = 0, 0, []report.ShardReport{}
	gsi1.WCU, gsi1.Records, gsi1.DistinctKeys = 31000, 9000, 3
	gsi1.HotKeys[0].PeakWCUPerSecond = 1000
	gsi2 := sampleReport("Orders", start)
	gsi2.Index = "by-status.v2"
	gsi2.Malformed, gsi2.InternalErrors, gsi2.Shards = 0, 0, []report.ShardReport{}
	gsi2.HotKeys = gsi2.HotKeys[1:2] // one warning, no critical key
	gsi2.WCUIsLowerBound = true
	return []report.Report{table, gsi1, gsi2}
}

// TestPublishIndexWindowsAPI: through the real client and CloudWatch's wire
// format, an index's window publishes the table metrics an index has, and
// its keys' metrics, each with IndexName after TableName, in one request
// with the table's; the table's own values are those it would publish
// alone.
func TestPublishIndexWindowsAPI(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Top = 2
	p, out := newAPIPublisher(t, cfg, srv, 1)
	reports := indexReports(recentStart())
	res, err := p.Publish(context.Background(), reports)
	if err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	var want []obs
	for _, r := range reports {
		want = append(want, expectedObs(r, published(r.HotKeys, cfg.Top))...)
	}
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)
	// 12 + 2×3 for the table, 9 + 2×3 for GSI1, 9 + 1×3 for by-status.v2.
	if len(want) != 45 {
		t.Errorf("the expectation has %d values, want 45", len(want))
	}
	sameResult(t, Result{MetricsSent: len(want), Requests: 1, FindingsLogged: 7}, res)

	// The table's own values are exactly what it publishes alone.
	alone := newServer()
	defer alone.Close()
	p2, _ := newAPIPublisher(t, cfg, alone, 1)
	if _, err := p2.Publish(context.Background(), reports[:1]); err != nil {
		t.Fatal(err)
	}
	var tableOnly []obs
	for _, o := range apiObs(srv.Data()) {
		if !strings.Contains(o.Dims, "IndexName=") {
			tableOnly = append(tableOnly, o)
		}
	}
	if diff := cmp.Diff(apiObs(alone.Data()), tableOnly); diff != "" {
		t.Errorf("the table's metrics change when its indexes publish too (-alone +with indexes):\n%s", diff)
	}

	// Each findings line of an index names it; the table's names none.
	_, logs := splitOutput(t, out.Bytes())
	var indexes []any
	for _, l := range logs {
		indexes = append(indexes, l["index"])
	}
	wantIdx := []any{nil, nil, nil, "GSI1", "GSI1", "GSI1", "by-status.v2"}
	if diff := cmp.Diff(wantIdx, indexes); diff != "" {
		t.Errorf("findings lines' index (-want +got):\n%s", diff)
	}
}

// TestPublishIndexWindowsEMF: the same values as EMF lines, one per group,
// with the dimension sets the catalogue gives.
func TestPublishIndexWindowsEMF(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Top = 2
	p, out := emfPublisher(t, cfg)
	reports := indexReports(goldenStart)
	res, err := p.Publish(context.Background(), reports)
	if err != nil {
		t.Fatal(err)
	}
	emf, _ := splitOutput(t, out.Bytes())
	var want []obs
	for _, r := range reports {
		want = append(want, expectedObs(r, published(r.HotKeys, cfg.Top))...)
	}
	sameObs(t, "EMF", emfObs(emf), want)
	sameResult(t, Result{MetricsEMF: len(want), FindingsLogged: 7}, res)
	var sets []string
	for _, l := range emf {
		sets = append(sets, strings.Join(l.Dims, ","))
	}
	wantSets := []string{
		"TableName", "TableName,PartitionKey", "TableName,PartitionKey",
		"TableName,IndexName", "TableName,IndexName,PartitionKey", "TableName,IndexName,PartitionKey",
		"TableName,IndexName", "TableName,IndexName,PartitionKey",
	}
	if diff := cmp.Diff(wantSets, sets); diff != "" {
		t.Errorf("EMF dimension sets (-want +got):\n%s", diff)
	}
}

// TestIndexMetricsAreCatalogued: an index's window publishes exactly the
// metrics whose catalogue entry has IndexDimensions, with those dimensions
// in that order, and a table's window exactly the others' Dimensions: the
// template tests build the index alarms on this catalogue.
func TestIndexMetricsAreCatalogued(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, _ := newAPIPublisher(t, DefaultConfig(), srv, 1)
	if _, err := p.Publish(context.Background(), indexReports(recentStart())[1:2]); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, d := range srv.Data() {
		var names []string
		for _, dim := range d.Dimensions {
			names = append(names, dim.Name)
		}
		if prev, ok := got[d.MetricName]; ok && !slices.Equal(prev, names) {
			t.Errorf("%s sent with dimensions %v and %v", d.MetricName, prev, names)
		}
		got[d.MetricName] = names
	}
	want := map[string][]string{}
	for _, m := range Metrics() {
		if m.IndexDimensions != nil {
			want[m.Name] = m.IndexDimensions
			if w := slices.Insert(slices.Clone(m.Dimensions), 1, DimensionIndexName); !slices.Equal(m.IndexDimensions, w) {
				t.Errorf("%s: IndexDimensions %v, want %v (IndexName after TableName)", m.Name, m.IndexDimensions, w)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("an index's window publishes (-catalogue +sent):\n%s", diff)
	}
	for _, m := range ClientMetrics() {
		if m.IndexDimensions != nil {
			t.Errorf("client metric %s has IndexDimensions: a client's reports describe tables", m.Name)
		}
	}
}

// TestIndexKeysRedacted: with redaction, a key of an index reaches metrics
// and logs only as the same keyed hash the table's key gets, in PutMetricData
// and EMF alike, and nowhere in any other form.
func TestIndexKeysRedacted(t *testing.T) {
	h, err := redact.New([]byte("sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	dcfg := detector.DefaultConfig()
	dcfg.Redactor = h
	start := recentStart()
	raw := "alice@example.com"
	key := ddb.Key{Type: ddb.String, Value: []byte(raw)}

	// The same key, hot in the table and in index GSI1.
	tw, err := detector.NewWindow(dcfg.Sketch, "Users", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	iw, err := detector.NewIndexWindow(dcfg.Sketch, "Users", "GSI1", start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 {
		at := start.Add(time.Duration(i%6) * time.Second) // 500 WCU/s: a warning
		r := record.Record{Table: "Users", PartitionKey: key, WCU: 5, WCUExact: true, Time: at}
		tw.Add(&r)
		iw.AddIndex(&r, &record.IndexWrite{Index: "GSI1", WCU: 5, Exact: true, Put: ddb.IndexEntry{Key: key, WCU: 5}})
	}
	reports := []report.Report{tw.Report(dcfg), iw.Report(dcfg)}
	stand := h.Key(byte(ddb.String), []byte(raw))
	for _, r := range reports {
		if len(r.HotKeys) != 1 || r.HotKeys[0].Key != stand {
			t.Fatalf("window %q: hot keys %+v, want the one key, hashed to %s", r.Index, r.HotKeys, stand)
		}
	}

	srv := newServer()
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Mode = ModeBoth
	p, out := newAPIPublisher(t, cfg, srv, 1)
	if _, err := p.Publish(context.Background(), reports); err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	want := append(expectedObs(reports[0], reports[0].HotKeys), expectedObs(reports[1], reports[1].HotKeys)...)
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)
	emf, logs := splitOutput(t, out.Bytes())
	sameObs(t, "EMF", emfObs(emf), want)
	var keyDims []string
	for _, d := range srv.Data() {
		for _, dim := range d.Dimensions {
			if dim.Name == DimensionPartitionKey {
				keyDims = append(keyDims, dim.Value)
			}
		}
	}
	if wantDims := slices.Repeat([]string{stand}, 6); !slices.Equal(keyDims, wantDims) {
		t.Errorf("PartitionKey dimensions %v, want %v", keyDims, wantDims)
	}
	if len(logs) != 2 || logs[0]["key"] != stand || logs[1]["key"] != stand || logs[1]["index"] != "GSI1" {
		t.Errorf("findings lines %v: want the table's and GSI1's, both with key %s", logs, stand)
	}
	for _, form := range []string{raw, "alice", "YWxpY2"} { // the key, a part, its base64
		if bytes.Contains(out.Bytes(), []byte(form)) {
			t.Errorf("stdout carries %q", form)
		}
		for _, d := range srv.Data() {
			for _, dim := range d.Dimensions {
				if strings.Contains(dim.Value, form) {
					t.Errorf("%s dimension %s=%s carries %q", d.MetricName, dim.Name, dim.Value, form)
				}
			}
		}
	}
}

// TestPublishClientReportWithIndex: a client's report describes a table; one
// that names an index is refused, and the others are still published,
// exactly as they are alone.
func TestPublishClientReportWithIndex(t *testing.T) {
	p, out := emfPublisher(t, DefaultConfig())
	bad := report.ClientReport{Window: report.Window{Table: "Orders", Index: "GSI1", Start: goldenStart, End: goldenStart.Add(time.Minute)}}
	good := clientReport(t, goldenStart)
	res, err := p.PublishClient(context.Background(), []report.ClientReport{bad, good})
	if !errors.Is(err, ErrInvalidReport) {
		t.Fatalf("error %v, want ErrInvalidReport", err)
	}
	alone, aloneOut := emfPublisher(t, DefaultConfig())
	want, err := alone.PublishClient(context.Background(), []report.ClientReport{good})
	if err != nil {
		t.Fatal(err)
	}
	if res != want || string(out.Bytes()) != string(aloneOut.Bytes()) || res.MetricsEMF == 0 {
		t.Errorf("with a bad report: %+v\n%s\nalone: %+v\n%s", res, string(out.Bytes()), want, string(aloneOut.Bytes()))
	}
}
