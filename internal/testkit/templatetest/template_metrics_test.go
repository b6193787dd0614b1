package templatetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/report"
)

// publishedMetric is a metric as it leaves the alert package.
type publishedMetric struct {
	namespace, name, unit string
	dimensions            []string // sorted
}

// metricID names a metric by its name and its set of dimension names, as
// CloudWatch tells metrics apart: "HotKeys{IndexName,TableName}".
func metricID(name string, dims []string) string {
	return name + "{" + strings.Join(slices.Sorted(slices.Values(dims)), ",") + "}"
}

// publishWindow runs the real alert.Publisher, in EMF mode, on a window with
// a flagged key, on a window of one of the table's global secondary indexes
// with a flagged key, on a client-side window, and on the onsets of a table
// key and of an index key, and returns the metrics its EMF lines declare, by
// metricID, and the findings and onset log lines it writes.
func publishWindow(t *testing.T) (map[string]publishedMetric, []map[string]any) {
	t.Helper()
	// A fixed window: EMF lines are written whatever the clock says, and
	// the metrics they declare do not depend on the time.
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	key := report.KeyReport{
		KeyFigures: report.KeyFigures{Key: "OPS_LOG", Type: "S", WCU: 60000, WCULower: 59990, WCUUpper: 60010, Share: 0.6, AvgWCUPerSecond: 1000, PeakWCUPerSecond: 1200, Severity: report.Critical, Pattern: report.PatternSingleKey, Diagnosis: "one key carries most of the table's writes", RecommendedShards: 2,
			SaturatedSeconds: 4, Saturated: true, RecommendedShardsIsLowerBound: true},
	}
	rep := report.Report{
		Window:       report.Window{Table: testTable, Start: start, End: start.Add(time.Minute)},
		Totals:       report.Totals{Records: 60000, WCU: 100000, Malformed: 1, TTLDeletes: 2},
		DistinctKeys: 1000,
		HotKeys:      []report.KeyReport{key},
		TopKeys:      []report.KeyReport{key},
		Shards:       []report.ShardReport{{Shard: "shardId-1", Records: 60000, WCU: 100000, PeakWCUPerSecond: 2000}},
	}
	// A window of index GSI1, with the table's key among its hot keys.
	index := rep
	index.Index = testIndex
	index.Malformed, index.Shards = 0, []report.ShardReport{}
	// And a client-side window (package clientwatch): a read-hot key that
	// was throttled, for the optional client alarms.
	cw, err := clientwindow.New(detector.DefaultConfig().Sketch, testTable, start, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	celebrity := ddb.Key{Type: ddb.String, Value: []byte("PROFILE#celebrity")}
	for range 300 {
		cw.AddRequest(celebrity, start, 5*time.Millisecond, true, true)
		cw.AddCapacity(celebrity, start, 20, 0)
	}
	cw.AddThrottle(celebrity, start, []string{"TableReadKeyRangeThroughputExceeded"})
	out := publishEMF(t, []report.Report{rep, index}, []report.ClientReport{cw.Report(detector.DefaultConfig())})
	// And the onsets of a table key and of an index key, inside the window.
	out.Write(onsetEMF(t, start.Add(7*time.Second), 950, "", testIndex))
	metrics := map[string]publishedMetric{}
	var findings []map[string]any
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			AWS *struct {
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct{ Name, Unit string }
				}
			} `json:"_aws"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("publisher wrote a line that is not JSON: %q", sc.Text())
		}
		if line.AWS == nil {
			var f map[string]any
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				t.Fatal(err)
			}
			findings = append(findings, f)
			continue
		}
		for _, d := range line.AWS.CloudWatchMetrics {
			for _, dims := range d.Dimensions {
				for _, m := range d.Metrics {
					metrics[metricID(m.Name, dims)] = publishedMetric{d.Namespace, m.Name, m.Unit, slices.Sorted(slices.Values(dims))}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return metrics, findings
}

var (
	tableDims = []string{alert.DimensionTableName}
	keyDims   = []string{alert.DimensionTableName, alert.DimensionPartitionKey}
)

// emfPublisher returns the real alert.Publisher, with its default
// configuration in EMF mode, writing to out.
func emfPublisher(t *testing.T, out *bytes.Buffer) *alert.Publisher {
	t.Helper()
	cfg := alert.DefaultConfig()
	cfg.Mode = alert.ModeEMF
	p, err := alert.NewPublisher(cfg, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// publishEMF runs the real alert.Publisher, with its default configuration
// in EMF mode, on reports and returns what it writes to stdout.
func publishEMF(t *testing.T, reports []report.Report, clients []report.ClientReport) *bytes.Buffer {
	t.Helper()
	var out bytes.Buffer
	p := emfPublisher(t, &out)
	if _, err := p.Publish(context.Background(), reports); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PublishClient(context.Background(), clients); err != nil {
		t.Fatal(err)
	}
	return &out
}

// awsMetrics are the AWS-published metrics the template may read, with
// their sets of dimensions (from the Lambda, SQS and DynamoDB metric
// references). DynamoDB's key-range throttle events come per table
// (TableName: the table's own requests, not its indexes') and per global
// secondary index (TableName and GlobalSecondaryIndexName): DynamoDB
// developer guide, "DynamoDB Metrics and dimensions" (metrics-dimensions.html).
var awsMetrics = map[string][][]string{
	"AWS/Lambda/IteratorAge":                     {{"FunctionName"}},
	"AWS/Lambda/Errors":                          {{"FunctionName"}},
	"AWS/Lambda/Duration":                        {{"FunctionName"}},
	"AWS/Lambda/Invocations":                     {{"FunctionName"}},
	"AWS/Lambda/Throttles":                       {{"FunctionName"}},
	"AWS/SQS/ApproximateNumberOfMessagesVisible": {{"QueueName"}},
	"AWS/DynamoDB/" + writeKeyRangeThrottles:     {ddbTableDims, ddbIndexDims},
	"AWS/DynamoDB/" + readKeyRangeThrottles:      {ddbTableDims, ddbIndexDims},
}

// DynamoDB's names, as its CloudWatch metrics spell them.
const (
	writeKeyRangeThrottles = "WriteKeyRangeThroughputThrottleEvents"
	readKeyRangeThrottles  = "ReadKeyRangeThroughputThrottleEvents"
	ddbIndexDimension      = "GlobalSecondaryIndexName"
)

var (
	ddbTableDims = []string{alert.DimensionTableName}
	ddbIndexDims = []string{ddbIndexDimension, alert.DimensionTableName} // sorted
)

// templateMetricRefs returns every metric the template's alarms and
// dashboard read, evaluated for the test stack, and the dashboard's widgets.
func templateMetricRefs(t *testing.T, s *cfn.Stack) (alarmRefs map[string][]metricRef, widgets []dashboardWidget, dashRefs []metricRef) {
	t.Helper()
	alarmRefs = map[string][]metricRef{}
	for _, id := range s.Resources("AWS::CloudWatch::Alarm") {
		if r, err := s.Resource(id); err != nil || r == nil {
			continue // not created with these parameters (the optional client alarms)
		}
		refs, err := alarmMetricRefs(id, properties(mustResource(t, s, id)))
		if err != nil {
			t.Fatal(err)
		}
		alarmRefs[id] = refs
	}
	body, _ := properties(mustResource(t, s, "HotKeysDashboard"))["DashboardBody"].(string)
	widgets, dashRefs, err := parseDashboard(body)
	if err != nil {
		t.Fatal(err)
	}
	return alarmRefs, widgets, dashRefs
}

// TestTemplateReadsOnlyPublishedMetrics checks that every metric an alarm or
// the dashboard reads is one the alert package publishes, in its namespace,
// with exactly its dimensions, for this table, and with a statistic that
// means something for it.
func TestTemplateReadsOnlyPublishedMetrics(t *testing.T) {
	published, _ := publishWindow(t)
	catalogued := map[string]bool{}
	for _, d := range slices.Concat(alert.Metrics(), alert.ClientMetrics(), alert.OnsetMetrics()) {
		sets := [][]string{d.Dimensions}
		if d.IndexDimensions != nil {
			sets = append(sets, d.IndexDimensions)
		}
		for _, dims := range sets {
			id := metricID(d.Name, dims)
			catalogued[id] = true
			p, ok := published[id]
			if !ok {
				t.Errorf("alert.Metrics lists %s, which windows with a flagged key do not publish", id)
				continue
			}
			if p.unit != d.Unit || p.namespace != alert.DefaultNamespace {
				t.Errorf("published %+v, catalogue says %+v", p, d)
			}
		}
	}
	for id := range published {
		if !catalogued[id] {
			t.Errorf("published %s, which the catalogue does not list", id)
		}
	}

	s := deploy(t, readTemplate(t), map[string]string{"ClientAlarms": "on", "IndexAnalysis": "on"})
	alarmRefs, _, dashRefs := templateMetricRefs(t, s)
	var refs []metricRef
	for id, r := range alarmRefs {
		if len(r) == 0 {
			t.Errorf("alarm %s reads no metric", id)
		}
		refs = append(refs, r...)
	}
	refs = append(refs, dashRefs...)

	read := map[string]bool{}
	for _, r := range refs {
		if strings.HasPrefix(r.namespace, "AWS/") {
			want, ok := awsMetrics[r.namespace+"/"+r.name]
			if !ok {
				t.Errorf("%v: not an AWS metric the test knows", r)
			} else if got := r.dimensionNames(); !slices.ContainsFunc(want, func(w []string) bool { return slices.Equal(got, w) }) {
				t.Errorf("%v: dimensions %v, want one of %v", r, got, want)
			}
			if r.namespace == "AWS/DynamoDB" {
				if v := r.dimensions[alert.DimensionTableName]; v != testTable {
					t.Errorf("%v: TableName %q, want the stream's table %q", r, v, testTable)
				}
				if v := r.dimensions[ddbIndexDimension]; v != "" {
					t.Errorf("%v: names the index %q; indexes must come from the query", r, v)
				}
			}
			continue
		}
		// A metric is its name and its whole set of dimensions: a reference
		// with one too many or too few reads nothing.
		p, ok := published[metricID(r.name, r.dimensionNames())]
		switch {
		case r.namespace != alert.DefaultNamespace:
			t.Errorf("%v: namespace %q, the code publishes in %q", r, r.namespace, alert.DefaultNamespace)
		case !ok:
			var sets [][]string
			for _, p := range published {
				if p.name == r.name {
					sets = append(sets, p.dimensions)
				}
			}
			t.Errorf("%v: dimensions %v, the code publishes %s with %v", r, r.dimensionNames(), r.name, sets)
		}
		if v, ok := r.dimensions[alert.DimensionTableName]; ok && v != testTable {
			t.Errorf("%v: TableName %q, want the stream's table %q", r, v, testTable)
		}
		if v := r.dimensions[alert.DimensionPartitionKey]; v != "" {
			t.Errorf("%v: names the partition key %q; keys must come from GROUP BY", r, v)
		}
		if r.insights && !slices.Contains(r.groupBy, alert.DimensionPartitionKey) && slices.Contains(r.schema, alert.DimensionPartitionKey) {
			t.Errorf("%v: a key metric query must GROUP BY PartitionKey", r)
		}
		// Index names are known only at run time: a reference must not
		// name one, and a query on index metrics groups by IndexName, so
		// that each index is a contributor that names itself.
		if v := r.dimensions[alert.DimensionIndexName]; v != "" {
			t.Errorf("%v: names the index %q; indexes must come from GROUP BY", r, v)
		}
		if _, ok := r.dimensions[alert.DimensionIndexName]; ok && !(r.insights && slices.Contains(r.groupBy, alert.DimensionIndexName)) {
			t.Errorf("%v: an index metric must be read by a query that GROUP BY IndexName", r)
		}
		// Several shards publish the same table metric for one window, and
		// mode "both" sends every value twice: summing a rate or a fraction
		// would add them up.
		if ok && (p.unit == alert.UnitNone || p.unit == alert.UnitCountPerSecond) {
			if !slices.Contains([]string{"Maximum", "Minimum", "Average", "MAX", "MIN", "AVG"}, r.stat) {
				t.Errorf("%v: statistic %s of a %s metric; want Maximum, Minimum or Average", r, r.stat, p.unit)
			}
		}
		read[r.name] = true
	}

	// The dashboard shows every table and key metric docs/metrics.md lists, and
	// the alarms watch the three docs/deploy.md describe.
	idx := []string{alert.DimensionIndexName, alert.DimensionTableName}
	idxKey := []string{alert.DimensionIndexName, alert.DimensionPartitionKey, alert.DimensionTableName}
	shows := func(refs []metricRef, id string) bool {
		return slices.ContainsFunc(refs, func(r metricRef) bool { return metricID(r.name, r.dimensionNames()) == id })
	}
	for _, id := range []string{
		metricID(alert.MetricWriteCapacityUnits, tableDims), metricID(alert.MetricStreamRecords, tableDims),
		metricID(alert.MetricDistinctPartitionKeys, tableDims), metricID(alert.MetricMaxKeyWCUShare, tableDims),
		metricID(alert.MetricMaxKeyPeakWCUPerSecond, tableDims), metricID(alert.MetricHotKeys, tableDims),
		metricID(alert.MetricMalformedRecords, tableDims), metricID(alert.MetricKeyWriteCapacityUnits, keyDims),
		metricID(alert.MetricKeyWCUShare, keyDims), metricID(alert.MetricKeyPeakWCUPerSecond, keyDims),
		// The indexes: their write load, their hot keys by peak and share.
		metricID(alert.MetricWriteCapacityUnits, idx), metricID(alert.MetricMaxKeyPeakWCUPerSecond, idx),
		metricID(alert.MetricHotKeys, idx), metricID(alert.MetricKeyPeakWCUPerSecond, idxKey),
		metricID(alert.MetricKeyWCUShare, idxKey),
		// Onsets, in seconds; DynamoDB's own throttling beside our keys,
		// for the table and (by GROUP BY) each index.
		metricID(onsetMetric, onsetTableDims),
		metricID(writeKeyRangeThrottles, ddbTableDims), metricID(readKeyRangeThrottles, ddbTableDims),
		metricID(writeKeyRangeThrottles, ddbIndexDims), metricID(readKeyRangeThrottles, ddbIndexDims),
	} {
		if !shows(dashRefs, id) {
			t.Errorf("the dashboard does not show %s", id)
		}
	}
	for alarm, id := range map[string]string{
		"HotKeyCriticalAlarm":         metricID(alert.MetricMaxKeyPeakWCUPerSecond, tableDims),
		"HotKeyByKeyAlarm":            metricID(alert.MetricKeyPeakWCUPerSecond, keyDims),
		"HotKeyWarningAlarm":          metricID(alert.MetricMaxKeyWCUShare, tableDims),
		"IndexHotKeyCriticalAlarm":    metricID(alert.MetricMaxKeyPeakWCUPerSecond, idx),
		"IndexHotKeyByKeyAlarm":       metricID(alert.MetricKeyPeakWCUPerSecond, idxKey),
		"IndexHotKeyWarningAlarm":     metricID(alert.MetricHotKeys, idx),
		"HotKeyOnsetAlarm":            metricID(onsetMetric, onsetTableDims),
		"KeyRangeThrottledAlarm":      metricID(writeKeyRangeThrottles, ddbTableDims),
		"IndexKeyRangeThrottledAlarm": metricID(writeKeyRangeThrottles, ddbIndexDims),
		"MalformedRecordsAlarm":       metricID(alert.MetricMalformedRecords, tableDims),
		"InternalErrorsAlarm":         metricID(alert.MetricInternalErrors, tableDims),
		"ClientThrottledKeyAlarm":     metricID(alert.MetricClientKeyThrottledAttempts, keyDims),
		"ClientReadHotKeyAlarm":       metricID(alert.MetricClientMaxKeyPeakRCUPerSecond, tableDims),
	} {
		if !shows(alarmRefs[alarm], id) {
			t.Errorf("alarm %s does not read %s", alarm, id)
		}
	}
}

// scenarioSamples gives, beside their defaults, values to try for the
// free-form parameters that the template's conditions read
// (cfn.Scenarios): a new condition on a parameter without AllowedValues
// needs its sample here.
var scenarioSamples = map[string][]string{
	"IndexNames":                  {testIndex},
	"PartitionKeyName":            {"pk"},
	"AlarmEmail":                  {"oncall@example.com"},
	"KeyRedactionSecretArn":       {existingSecretArn},
	"KeyRedactionSecretKmsKeyArn": {customerKeyArn},
	"NotifyTopicArn":              {ownTopicArn, "off"},
	"ForecastAlarmDays":           {"0"},
}

// scenariosOf returns one parameter set for every combination of the
// conditions that decide a resource (its own, its Fn::If, those of what it
// refers to) that parameters can reach, and the conditions themselves.
func scenariosOf(t *testing.T, tmpl map[string]any, id string) ([]cfn.Scenario, []string) {
	t.Helper()
	conds, err := cfn.ConditionsOf(tmpl, tmpl["Resources"].(map[string]any)[id])
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := cfn.Scenarios(tmpl, map[string]string{"StreamArn": testStreamArn}, scenarioSamples, conds)
	if err != nil {
		t.Fatal(err)
	}
	// Each condition must be seen both ways, or the scenarios test less
	// than they claim.
	for _, c := range conds {
		seen := map[bool]bool{}
		for _, sc := range scenarios {
			seen[sc.Conditions[c]] = true
		}
		if len(seen) != 2 {
			t.Errorf("%s: condition %s is %v in every scenario", id, c, slices.Collect(maps.Keys(seen)))
		}
	}
	return scenarios, conds
}

// insightsQueries counts the Metrics Insights queries of a metric widget.
// A widget is one GetMetricData request, which runs at most one ("Each
// GetMetricData operation can have only one query, but you can have
// multiple widgets in a dashboard that each include a query": CloudWatch
// Metrics Insights quotas).
func insightsQueries(w dashboardWidget) int {
	n := 0
	entries, _ := w.Properties["metrics"].([]any)
	for _, e := range entries {
		items, _ := e.([]any)
		if len(items) == 0 {
			continue
		}
		if opts, ok := items[0].(map[string]any); ok {
			if expr, _ := opts["expression"].(string); strings.HasPrefix(strings.ToUpper(strings.TrimSpace(expr)), "SELECT") {
				n++
			}
		}
	}
	return n
}

// TestTemplateDashboardWidgets renders the dashboard under every combination
// of the conditions that change it and checks each body: at most one
// Metrics Insights query per widget, a layout on CloudWatch's 24-column grid
// without overlaps, the stack's region, every alarm the stack creates (and
// none it does not), the index widgets exactly when the function analyses
// indexes, and a findings query on the fields the findings log really
// writes.
func TestTemplateDashboardWidgets(t *testing.T) {
	// The fields of each kind of line the log widgets read: the findings
	// of a closed window, and the onsets.
	_, findings := publishWindow(t)
	fields := map[string]map[string]bool{alert.MsgHotKey: {}, alert.MsgOnset: {}}
	for _, f := range findings {
		msg, _ := f["msg"].(string)
		if fields[msg] == nil {
			continue
		}
		for k := range f {
			fields[msg][k] = true
		}
	}
	for msg, f := range fields {
		if len(f) == 0 {
			t.Fatalf("the publisher logged no %q line", msg)
		}
	}

	tmpl := readTemplate(t)
	scenarios, conds := scenariosOf(t, tmpl, "HotKeysDashboard")
	for _, c := range []string{"AnalysesIndexes", "AlarmsOnIndexes", "KeepsHistory"} {
		if !slices.Contains(conds, c) {
			t.Errorf("the dashboard does not depend on condition %s (it depends on %v)", c, conds)
		}
	}
	for _, sc := range scenarios {
		s := deploy(t, tmpl, sc.Values)
		_, widgets, dashRefs := templateMetricRefs(t, s)
		var alarmsShown []string
		var logWidgets []string
		for i, w := range widgets {
			if n := insightsQueries(w); n > 1 {
				t.Errorf("%s: widget %d (%v) runs %d Metrics Insights queries; a widget's GetMetricData runs one", sc, i, w.Properties["title"], n)
			}
			if w.X < 0 || w.Width < 1 || w.X+w.Width > 24 || w.Y < 0 || w.Height < 1 {
				t.Errorf("%s: widget %d at (%d,%d) size %dx%d is outside the 24-column grid", sc, i, w.X, w.Y, w.Width, w.Height)
			}
			for j, o := range widgets[:i] {
				if w.X < o.X+o.Width && o.X < w.X+w.Width && w.Y < o.Y+o.Height && o.Y < w.Y+w.Height {
					t.Errorf("%s: widgets %d and %d overlap", sc, j, i)
				}
			}
			if r, ok := w.Properties["region"]; ok && r != cfn.Region {
				t.Errorf("%s: widget %d: region %v, want the stack's", sc, i, r)
			}
			switch w.Type {
			case "alarm":
				for _, a := range w.Properties["alarms"].([]any) {
					alarmsShown = append(alarmsShown, a.(string))
				}
			case "log":
				logWidgets = append(logWidgets, checkFindingsQuery(t, i, w.Properties["query"].(string), fields))
			}
		}
		var alarms []string
		for _, id := range slices.Concat(s.Resources("AWS::CloudWatch::Alarm"), s.Resources("AWS::CloudWatch::CompositeAlarm")) {
			if r, err := s.Resource(id); err == nil && r != nil && !strings.HasPrefix(id, "Client") { // the optional client alarms are not on the dashboard
				alarms = append(alarms, cfn.GetAtt(id, "Arn"))
			}
		}
		slices.Sort(alarmsShown)
		slices.Sort(alarms)
		if !slices.Equal(alarmsShown, alarms) {
			t.Errorf("%s: alarm widgets show %v, want every alarm %v", sc, alarmsShown, alarms)
		}
		analyses, err := s.Condition("AnalysesIndexes")
		if err != nil {
			t.Fatal(err)
		}
		readsIndexes := slices.ContainsFunc(dashRefs, func(r metricRef) bool {
			_, ok := r.dimensions[alert.DimensionIndexName]
			return ok
		})
		if readsIndexes != analyses {
			t.Errorf("%s: the dashboard reads index metrics = %v", sc, readsIndexes)
		}
		history, err := s.Condition("KeepsHistory")
		if err != nil {
			t.Fatal(err)
		}
		if got := forecastRefs(dashRefs); history != (len(got) == 1) || len(got) > 1 {
			t.Errorf("%s: the dashboard reads MinDaysToLimit %v, want once exactly when History is on (%v)", sc, got, history)
		} else if history {
			checkForecastWidgetRef(t, got[0])
		}
		if slices.Sort(logWidgets); !slices.Equal(logWidgets, []string{alert.MsgHotKey, alert.MsgOnset}) {
			t.Errorf("%s: log widgets of %q, want one of the findings and one of the onsets", sc, logWidgets)
		}
	}
}

var (
	logsSource = regexp.MustCompile(`^SOURCE '([^']+)'`)
	logsFilter = regexp.MustCompile(`\|\s*filter\s+msg\s*=\s*'([^']+)'`)
	logsFields = regexp.MustCompile(`\|\s*fields\s+([^|]+)`)
)

// checkFindingsQuery checks a log widget's query: the function's log
// group, one kind of line (its msg), and fields those lines really have. It
// returns the msg.
func checkFindingsQuery(t *testing.T, i int, q string, fields map[string]map[string]bool) string {
	t.Helper()
	if m := logsSource.FindStringSubmatch(q); m == nil || m[1] != cfn.Ref("HotKeysLogGroup") {
		t.Errorf("log widget %d: query %q does not read the function's log group", i, q)
	}
	m := logsFilter.FindStringSubmatch(q)
	if m == nil || fields[m[1]] == nil {
		t.Errorf("log widget %d: query %q filters on no msg the function logs (%v)", i, q, sortedKeys(map[string]bool{alert.MsgHotKey: true, alert.MsgOnset: true}))
		return ""
	}
	msg := m[1]
	m = logsFields.FindStringSubmatch(q)
	if m == nil {
		t.Fatalf("log widget %d: no fields in %q", i, q)
	}
	for _, f := range strings.Split(m[1], ",") {
		f = strings.TrimSpace(f)
		if !strings.HasPrefix(f, "@") && !fields[msg][f] {
			t.Errorf("log widget %d: field %q is not in the %q lines (they have %v)", i, f, msg, sortedKeys(fields[msg]))
		}
	}
	return msg
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// forecastRefs returns the references to the rollup function's
// MinDaysToLimit among refs.
func forecastRefs(refs []metricRef) []metricRef {
	var out []metricRef
	for _, r := range refs {
		if r.name == alert.MetricMinDaysToLimit {
			out = append(out, r)
		}
	}
	return out
}

// checkForecastWidgetRef checks that the dashboard's MinDaysToLimit reads
// what the rollup function writes: its namespace, TableName alone (the
// dimension set that an index's line carries too) and Minimum, which is
// the table's and its indexes' fewest days.
func checkForecastWidgetRef(t *testing.T, ref metricRef) {
	t.Helper()
	at := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var lines []byte
	lines = alert.AppendEMFTableValue(lines, alert.DefaultNamespace, at, testTable, "", alert.MetricMinDaysToLimit, "None", 25)
	lines = alert.AppendEMFTableValue(lines, alert.DefaultNamespace, at, testTable, "GSI1", alert.MetricMinDaysToLimit, "None", 3)
	least := -1.0
	for _, p := range parseEMF(t, lines) {
		if p.namespace == ref.namespace && p.name == ref.name && maps.Equal(p.dims, ref.dimensions) && (least < 0 || p.value < least) {
			least = p.value
		}
	}
	if least != 3 || ref.stat != "Minimum" {
		t.Errorf("the dashboard's %v (statistic %s) reads a minimum of %v from the rollup function's lines, want 3 (the index's) with Minimum\n%s", ref, ref.stat, least, lines)
	}
}
