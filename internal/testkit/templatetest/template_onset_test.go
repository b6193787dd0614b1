package templatetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
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
	cfg := alert.DefaultConfig()
	cfg.Mode = alert.ModeEMF
	var out bytes.Buffer
	p, err := alert.NewPublisher(cfg, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := p.PublishOnsets(context.Background(), onsets); err != nil {
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

// alarmRuleTerm matches ALARM("...") in a composite alarm's rule.
var alarmRuleTerm = regexp.MustCompile(`ALARM\("([^"]+)"\)`)

// ruleEvaluator evaluates a composite alarm's AlarmRule (ALARM terms,
// AND, OR, NOT and parentheses; PutCompositeAlarm, AlarmRule) for a set of
// alarms in ALARM, named as the rule names them.
type ruleEvaluator struct {
	tokens []string
	pos    int
	firing map[string]bool
}

var ruleToken = regexp.MustCompile(`ALARM\("[^"]+"\)|\(|\)|AND|OR|NOT|\S+`)

func evalRule(rule string, firing map[string]bool) (bool, error) {
	e := &ruleEvaluator{tokens: ruleToken.FindAllString(rule, -1), firing: firing}
	v, err := e.or()
	if err == nil && e.pos != len(e.tokens) {
		err = fmt.Errorf("unexpected %q", e.tokens[e.pos])
	}
	return v, err
}

func (e *ruleEvaluator) next() string {
	if e.pos == len(e.tokens) {
		return ""
	}
	e.pos++
	return e.tokens[e.pos-1]
}

func (e *ruleEvaluator) peek() string {
	if e.pos == len(e.tokens) {
		return ""
	}
	return e.tokens[e.pos]
}

func (e *ruleEvaluator) or() (bool, error) {
	v, err := e.and()
	for err == nil && e.peek() == "OR" {
		e.next()
		var w bool
		w, err = e.and()
		v = v || w
	}
	return v, err
}

func (e *ruleEvaluator) and() (bool, error) {
	v, err := e.unary()
	for err == nil && e.peek() == "AND" {
		e.next()
		var w bool
		w, err = e.unary()
		v = v && w
	}
	return v, err
}

func (e *ruleEvaluator) unary() (bool, error) {
	switch tok := e.next(); {
	case tok == "NOT":
		v, err := e.unary()
		return !v, err
	case tok == "(":
		v, err := e.or()
		if err == nil && e.next() != ")" {
			err = fmt.Errorf("missing )")
		}
		return v, err
	case alarmRuleTerm.MatchString(tok):
		return e.firing[alarmRuleTerm.FindStringSubmatch(tok)[1]], nil
	default:
		return false, fmt.Errorf("unexpected %q", tok)
	}
}

// TestTemplateThrottledHotKeyComposite checks the composite alarm: DynamoDB
// throttles the table or an index on a key range AND hotkeys flags a key.
// Every alarm its rule names exists in the stack; the rule is true exactly
// when one throttle alarm and one hot-key alarm are in ALARM; and its
// description says where the key is named.
func TestTemplateThrottledHotKeyComposite(t *testing.T) {
	tmpl := readTemplate(t)
	for _, tc := range []struct {
		params    map[string]string
		throttles []string
		flags     []string
	}{
		{nil, []string{"KeyRangeThrottledAlarm"}, []string{"HotKeyOnsetAlarm", "HotKeyCriticalAlarm", "HotKeyWarningAlarm"}},
		{map[string]string{"IndexAnalysis": "on"},
			[]string{"KeyRangeThrottledAlarm", "IndexKeyRangeThrottledAlarm"},
			[]string{"HotKeyOnsetAlarm", "HotKeyCriticalAlarm", "HotKeyWarningAlarm", "IndexHotKeyCriticalAlarm", "IndexHotKeyWarningAlarm"}},
	} {
		s := deploy(t, tmpl, tc.params)
		p := properties(mustResource(t, s, "ThrottledHotKeyCompositeAlarm"))
		rule, _ := p["AlarmRule"].(string)
		var named []string
		for _, m := range alarmRuleTerm.FindAllStringSubmatch(rule, -1) {
			named = append(named, m[1])
		}
		byArn := map[string]string{}
		for _, id := range s.Resources("AWS::CloudWatch::Alarm") {
			if r, err := s.Resource(id); err == nil && r != nil {
				byArn[cfn.GetAtt(id, "Arn")] = id
			}
		}
		var ids []string
		for _, n := range named {
			id, ok := byArn[n]
			if !ok {
				t.Errorf("%v: the rule names %s, which is no alarm of the stack", tc.params, n)
			}
			ids = append(ids, id)
		}
		if want := slices.Concat(tc.throttles, tc.flags); !cmp.Equal(slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%v: the rule names %v, want %v", tc.params, ids, want)
		}
		// The truth table: every alarm alone, and every pair.
		all := slices.Concat(tc.throttles, tc.flags)
		for i, a := range all {
			for _, b := range all[i:] {
				firing := map[string]bool{cfn.GetAtt(a, "Arn"): true, cfn.GetAtt(b, "Arn"): true}
				got, err := evalRule(rule, firing)
				if err != nil {
					t.Fatalf("rule %q: %v", rule, err)
				}
				want := (slices.Contains(tc.throttles, a) || slices.Contains(tc.throttles, b)) &&
					(slices.Contains(tc.flags, a) || slices.Contains(tc.flags, b))
				if got != want {
					t.Errorf("%v: %s and %s in ALARM: the composite is %v, want %v", tc.params, a, b, got, want)
				}
			}
		}
		desc, _ := p["AlarmDescription"].(string)
		for _, where := range []string{`"` + onsetMessage + `"`, cfn.StackName + "-hot-key-by-key", "NotifyTopicArn", "findings log"} {
			if !strings.Contains(desc, where) {
				t.Errorf("composite description does not say the key is named by %s: %q", where, desc)
			}
		}
		if len(desc) > 1024 {
			t.Errorf("composite description of %d bytes, CloudWatch takes 1,024", len(desc))
		}
		for _, k := range []string{"AlarmActions", "OKActions"} {
			if a, _ := p[k].([]any); !slices.Equal(a, []any{cfn.Ref("AlarmTopic")}) {
				t.Errorf("composite %s = %v, want the alarm topic", k, p[k])
			}
		}
	}
}

// TestTemplateKeyRangeThrottleAlarms evaluates the throttle alarms on
// DynamoDB's metrics as DynamoDB publishes them: the table's throttled
// writes under TableName, an index's under TableName and
// GlobalSecondaryIndexName. The table alarm sees only the table's, the
// index alarm every index's, and reads never count.
func TestTemplateKeyRangeThrottleAlarms(t *testing.T) {
	s := deploy(t, readTemplate(t), map[string]string{"IndexAnalysis": "on"})
	table := map[string]string{alert.DimensionTableName: testTable}
	gsi := func(name string) map[string]string {
		return map[string]string{alert.DimensionTableName: testTable, ddbIndexDimension: name}
	}
	other := map[string]string{alert.DimensionTableName: "Other"}
	pt := func(name string, dims map[string]string, v float64) point {
		return point{"AWS/DynamoDB", name, dims, v}
	}
	for _, tc := range []struct {
		name string
		pts  []point
		want map[string]map[string]float64
	}{
		{"table writes throttled", []point{pt(writeKeyRangeThrottles, table, 3), pt(writeKeyRangeThrottles, other, 9)},
			map[string]map[string]float64{"KeyRangeThrottledAlarm": {"": 3}, "IndexKeyRangeThrottledAlarm": {}}},
		{"index writes throttled", []point{pt(writeKeyRangeThrottles, gsi(testIndex), 2), pt(writeKeyRangeThrottles, gsi("by-status"), 5)},
			map[string]map[string]float64{"KeyRangeThrottledAlarm": {}, "IndexKeyRangeThrottledAlarm": {"": 7}}},
		{"only reads throttled", []point{pt(readKeyRangeThrottles, table, 4), pt(readKeyRangeThrottles, gsi(testIndex), 4)},
			map[string]map[string]float64{"KeyRangeThrottledAlarm": {}, "IndexKeyRangeThrottledAlarm": {}}},
	} {
		got := map[string]map[string]float64{}
		for id := range tc.want {
			got[id] = breaching(t, s, id, tc.pts)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: breaching by alarm (-want +got):\n%s", tc.name, diff)
		}
	}
	// DynamoDB's alarms ignore missing data and keep their state; the
	// table alarm fills the minutes DynamoDB sends nothing with zeros.
	p := properties(mustResource(t, s, "KeyRangeThrottledAlarm"))
	var fill bool
	for _, m := range p["Metrics"].([]any) {
		m := m.(map[string]any)
		if m["ReturnData"] == true {
			fill = regexp.MustCompile(`^FILL\(\s*[a-z]\w*\s*,\s*0\s*\)$`).MatchString(fmt.Sprint(m["Expression"]))
		}
	}
	if !fill {
		t.Errorf("KeyRangeThrottledAlarm returns %v, want FILL(<throttled>, 0)", p["Metrics"])
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
