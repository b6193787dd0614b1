package templatetest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

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

// TestTemplateCompositeOnEmission runs the composite alarm on what is
// emitted: the onsets the real publisher writes, and DynamoDB's throttle
// events as DynamoDB publishes them. Each alarm the rule names is
// evaluated on those points with its deployed threshold, and the rule on
// their states: it fires when the table is throttled on a key range and a
// key's onset reached the critical rate, and not when either is missing.
func TestTemplateCompositeOnEmission(t *testing.T) {
	s := deploy(t, readTemplate(t), nil)
	rule, _ := properties(mustResource(t, s, "ThrottledHotKeyCompositeAlarm"))["AlarmRule"].(string)
	second := time.Date(2026, 11, 22, 10, 0, 7, 0, time.UTC)
	throttled := point{"AWS/DynamoDB", writeKeyRangeThrottles, map[string]string{alert.DimensionTableName: testTable}, 12}
	for _, tc := range []struct {
		name      string
		onsetWCU  uint64 // 0: no onset
		throttled bool
		want      bool
	}{
		{"a table key's onset, the table throttled", 950, true, true},
		{"an onset below the critical rate, the table throttled", 799, true, false},
		{"no onset, the table throttled", 0, true, false},
		{"a table key's onset, no throttling", 950, false, false},
	} {
		var pts []point
		if tc.onsetWCU > 0 {
			for _, e := range parseEMF(t, onsetEMF(t, second, tc.onsetWCU, "")) {
				pts = append(pts, e.point)
			}
		}
		if tc.throttled {
			pts = append(pts, throttled)
		}
		firing := map[string]bool{}
		for _, m := range alarmRuleTerm.FindAllStringSubmatch(rule, -1) {
			id, _, _ := strings.Cut(strings.TrimPrefix(m[1], "getatt("), ".")
			firing[m[1]] = alarmFires(t, s, id, pts)
		}
		got, err := evalRule(rule, firing)
		if err != nil {
			t.Fatalf("rule %q: %v", rule, err)
		}
		if got != tc.want {
			t.Errorf("%s: the composite is %v (its alarms firing: %v), want %v", tc.name, got, firing, tc.want)
		}
	}
}

// alarmFires reports whether an alarm breaches on pts. An alarm of several
// metrics (metric math) is evaluated here only when none of its metrics
// has a point, and then it is not breaching (missing data is not
// breaching).
func alarmFires(t *testing.T, s *cfn.Stack, id string, pts []point) bool {
	t.Helper()
	refs, err := alarmMetricRefs(id, properties(mustResource(t, s, id)))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) == 1 {
		return len(breaching(t, s, id, pts)) > 0
	}
	for _, r := range refs {
		if len(evaluate(t, r, pts)) > 0 {
			t.Fatalf("alarm %s reads %d metrics, which this test does not combine, and %v has points", id, len(refs), r)
		}
	}
	return false
}
