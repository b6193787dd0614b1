package templatetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/report"
)

// The onset metric (issue 20): a key's WCU in the second it crossed the
// critical rate, at 1-second resolution, per table; an index's onset also
// per table and index.
const (
	onsetMetric = alert.MetricOnsetPeakWCUPerSecond
	// onsetMessage is the "msg" of the onset log line, which names the key.
	onsetMessage = alert.MsgOnset
)

var onsetTableDims = []string{alert.DimensionTableName}

// emfPoint is one value of an EMF line, with the storage resolution its
// directive declares (60 when it declares none, as the specification says).
type emfPoint struct {
	point
	resolution int
	timestamp  time.Time
}

// parseEMF reads every value out of EMF lines; other lines are skipped.
func parseEMF(t *testing.T, out []byte) []emfPoint {
	t.Helper()
	var pts []emfPoint
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var root map[string]any
		if err := json.Unmarshal(sc.Bytes(), &root); err != nil {
			t.Fatalf("a line that is not JSON: %q", sc.Text())
		}
		var line struct {
			AWS *struct {
				Timestamp         int64
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct {
						Name              string
						StorageResolution int
					}
				}
			} `json:"_aws"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.AWS == nil {
			continue
		}
		for _, d := range line.AWS.CloudWatchMetrics {
			for _, set := range d.Dimensions {
				dims := map[string]string{}
				for _, n := range set {
					dims[n], _ = root[n].(string)
				}
				for _, m := range d.Metrics {
					v, ok := root[m.Name].(float64)
					if !ok {
						t.Fatalf("metric %s has no value in %q", m.Name, sc.Text())
					}
					res := m.StorageResolution
					if res == 0 {
						res = 60
					}
					pts = append(pts, emfPoint{point{d.Namespace, m.Name, dims, v}, res, time.UnixMilli(line.AWS.Timestamp).UTC()})
				}
			}
		}
	}
	return pts
}

// onsetEMF runs the real alert.Publisher, with its default configuration
// in EMF mode, on onsets in the same second, each at wcu WCU, one per index
// given ("" the table's): key OPS_LOG of the table, key STATUS#open of an
// index. It returns what the publisher writes: the onset log lines and
// their EMF lines.
func onsetEMF(t *testing.T, second time.Time, wcu uint64, indexes ...string) []byte {
	t.Helper()
	start := second.Truncate(time.Minute)
	var onsets []report.Onset
	for _, index := range indexes {
		key := "OPS_LOG"
		if index != "" {
			key = "STATUS#open"
		}
		onsets = append(onsets, report.Onset{
			Window: report.Window{Table: testTable, Index: index, Start: start, End: start.Add(time.Minute)},
			Second: second, SecondWCULower: wcu, SecondWCUUpper: wcu + 10,
			Key: report.KeyFigures{Key: key, Type: "S", WCU: wcu, WCULower: wcu, WCUUpper: wcu + 10, PeakWCUPerSecond: float64(wcu),
				Severity: report.Critical, Pattern: report.PatternSingleKey, Diagnosis: "one key carries most of the writes", RecommendedShards: 2},
		})
	}
	var out bytes.Buffer
	if _, err := emfPublisher(t, &out).PublishOnsets(context.Background(), onsets); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestTemplateOnsetAlarm checks the high-resolution alarm against the
// onset metric as it is emitted: a 10-s period, which CloudWatch evaluates
// every 10 s, needs the metric stored at 1-second resolution (else the
// alarm lapses into INSUFFICIENT_DATA: PutMetricAlarm, Period); it reads
// exactly the table-level metric's name and dimensions; and with the
// deployed threshold it fires on an onset of the table at the critical
// rate and not below it.
func TestTemplateOnsetAlarm(t *testing.T) {
	s := deploy(t, readTemplate(t), map[string]string{"CriticalWCUPerSecond": "750"})
	const id = "HotKeyOnsetAlarm"
	p := properties(mustResource(t, s, id))
	refs, err := alarmMetricRefs(id, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 {
		t.Fatalf("%s reads %d metrics, want the onset metric alone", id, len(refs))
	}
	period := toFloat(t, p["Period"])
	if period != 10 {
		t.Errorf("%s: Period %v, want 10 (seconds, not minutes)", id, period)
	}
	// A data point is stamped with the second the key crossed and reaches
	// CloudWatch after the batching window, the invocation and log
	// ingestion: the range must hold it when it arrives, and a point must
	// be enough. CloudWatch caps a sub-hour period's range at one day.
	if rng := period * toFloat(t, p["EvaluationPeriods"]); rng < 120 || rng > 86400 {
		t.Errorf("%s: evaluates %v s of data, want 2 min to 1 day", id, rng)
	}
	for k, want := range map[string]string{"DatapointsToAlarm": "1", "Threshold": "750", "Statistic": "Maximum",
		"ComparisonOperator": "GreaterThanOrEqualToThreshold", "TreatMissingData": "notBreaching"} {
		if got := cfn.ScalarString(p[k]); got != want {
			t.Errorf("%s: %s %s, want %s", id, k, got, want)
		}
	}

	second := time.Date(2026, 11, 22, 10, 0, 7, 0, time.UTC)
	for _, tc := range []struct {
		wcu  uint64
		want map[string]float64
	}{
		{950, map[string]float64{"": 950}},
		{750, map[string]float64{"": 750}},
		{749, map[string]float64{}},
	} {
		for _, indexes := range [][]string{{""}, {testIndex}, {"", testIndex}} {
			var pts []point
			for _, e := range parseEMF(t, onsetEMF(t, second, tc.wcu, indexes...)) {
				if e.name == onsetMetric && e.resolution != 1 {
					t.Errorf("%s%v is emitted at %d-s resolution; a 10-s alarm needs 1", e.name, e.dims, e.resolution)
				}
				if !e.timestamp.Equal(second) {
					t.Errorf("%s%v is stamped %v, want the second the key crossed, %v", e.name, e.dims, e.timestamp, second)
				}
				pts = append(pts, e.point)
			}
			// An index's onset is emitted under TableName alone as well:
			// the one alarm per table covers its indexes' keys.
			if got := breaching(t, s, id, pts); !cmp.Equal(got, tc.want) {
				t.Errorf("onsets of %q at %v WCU in a second: %s breaches with %v, want %v", indexes, tc.wcu, id, got, tc.want)
			}
		}
	}
	// The per-key alarms read KeyPeakWCUPerSecond, which an onset also
	// publishes: they name the key a minute-scale later.
	var pts []point
	for _, e := range parseEMF(t, onsetEMF(t, second, 950, "", testIndex)) {
		pts = append(pts, e.point)
	}
	if got, want := breaching(t, s, "HotKeyByKeyAlarm", pts), map[string]float64{"PartitionKey=OPS_LOG": 950}; !cmp.Equal(got, want) {
		t.Errorf("an onset's key metric breaches the per-key alarm with %v, want %v", got, want)
	}
	si := deploy(t, readTemplate(t), map[string]string{"IndexAnalysis": "on"})
	if got, want := breaching(t, si, "IndexHotKeyByKeyAlarm", pts), map[string]float64{"IndexName=" + testIndex + ",PartitionKey=STATUS#open": 950}; !cmp.Equal(got, want) {
		t.Errorf("an index onset's key metric breaches the index per-key alarm with %v, want %v", got, want)
	}
}

// TestTemplateNotificationTopic checks the wiring of the function's onset
// notification: the alarm topic by default, a topic the user names, or
// none, and the role may publish to that one topic (the grants themselves:
// TestTemplateIAMIsLeastPrivilege).
func TestTemplateNotificationTopic(t *testing.T) {
	tmpl := readTemplate(t)
	for param, want := range map[string]string{
		"alarm-topic": cfn.Ref("AlarmTopic"),
		ownTopicArn:   ownTopicArn,
		"off":         "",
	} {
		s := deploy(t, tmpl, map[string]string{"NotifyTopicArn": param})
		if got := functionEnvironment(t, s)["HOTKEYS_NOTIFY_TOPIC_ARN"]; got != want {
			t.Errorf("NotifyTopicArn=%s: HOTKEYS_NOTIFY_TOPIC_ARN = %q, want %q", param, got, want)
		}
	}
	if def := cfn.ScalarString(tmpl["Parameters"].(map[string]any)["NotifyTopicArn"].(map[string]any)["Default"]); def != "alarm-topic" {
		t.Errorf("NotifyTopicArn defaults to %q, want the alarm topic", def)
	}
	decl := tmpl["Parameters"].(map[string]any)["NotifyTopicArn"].(map[string]any)
	pattern := matcher(t, "NotifyTopicArn", decl["AllowedPattern"].(string))
	for v, ok := range map[string]bool{
		"alarm-topic": true, "off": true, ownTopicArn: true,
		"arn:aws-cn:sns:cn-north-1:123456789012:a_b-c": true,
		"":                                     false, // say off
		"oncall":                               false, // a name, not an ARN
		ownTopicArn + ".fifo":                  false, // a FIFO topic needs a message group id
		"arn:aws:sqs:us-east-1:123456789012:q": false,
		"arn:aws:sns:us-east-1:1234:oncall":    false,
		" " + ownTopicArn:                      false,
	} {
		if pattern.MatchString(v) != ok {
			t.Errorf("NotifyTopicArn pattern on %q: %v, want %v", v, !ok, ok)
		}
	}
	// The scenarios test both ways of every condition the function and the
	// key depend on.
	for id, want := range map[string][]string{
		functionID:            {"NotifiesAlarmTopic", "NotifiesOwnTopic"},
		"HotKeysFunctionRole": {"NotifiesAlarmTopic", "NotifiesOwnTopic"},
		"AlarmTopicKey":       {"NotifiesAlarmTopic"},
	} {
		_, conds := scenariosOf(t, tmpl, id)
		for _, c := range want {
			if !slices.Contains(conds, c) {
				t.Errorf("%s does not depend on %s (it depends on %v)", id, c, conds)
			}
		}
	}
}
