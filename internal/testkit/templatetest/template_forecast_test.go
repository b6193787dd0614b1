package templatetest

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

const forecastAlarmID = "ForecastAlarm"

// TestTemplateForecastAlarm: ForecastAlarmDays (default 14, 0 to 90) sets
// the threshold of an alarm on the rollup function's MinDaysToLimit, which
// exists only with History on and ForecastAlarmDays above 0; the alarm
// reads the line the rollup function writes for the table and, under
// TableName alone, for an index, with Minimum (several lines a day would
// otherwise add up), over 28 hours, so that one day's point lasts until
// the next day's; the rollup function gets the partition limit it
// forecasts against, and its role stays as it was (EMF needs no IAM).
func TestTemplateForecastAlarm(t *testing.T) {
	tmpl := readTemplate(t)
	param := tmpl["Parameters"].(map[string]any)["ForecastAlarmDays"].(map[string]any)
	if got := fmt.Sprint(param["Default"]); got != "14" {
		t.Errorf("ForecastAlarmDays default %s, want 14 (its range: TestTemplateNumberParameters)", got)
	}
	for _, c := range []struct {
		params map[string]string
		exists bool
	}{
		{nil, false},
		{map[string]string{"History": "on"}, true},
		{map[string]string{"History": "on", "ForecastAlarmDays": "0"}, false},
		{map[string]string{"ForecastAlarmDays": "7"}, false},
	} {
		s := deploy(t, tmpl, c.params)
		r, _ := s.Resource(forecastAlarmID)
		if (r != nil) != c.exists {
			t.Errorf("parameters %v: alarm created %v, want %v", c.params, r != nil, c.exists)
		}
	}

	s := deploy(t, tmpl, map[string]string{"History": "on", "ForecastAlarmDays": "21", "PartitionLimit": "250"})
	alarm := properties(mustResource(t, s, forecastAlarmID))
	got := map[string]string{}
	for _, k := range []string{"Namespace", "MetricName", "Statistic", "Period", "EvaluationPeriods", "DatapointsToAlarm", "Threshold", "ComparisonOperator", "TreatMissingData"} {
		got[k] = cfn.ScalarString(alarm[k])
	}
	want := map[string]string{"Namespace": alert.DefaultNamespace, "MetricName": alert.MetricMinDaysToLimit, "Statistic": "Minimum",
		"Period": "3600", "EvaluationPeriods": "28", "DatapointsToAlarm": "1", "Threshold": "21", "ComparisonOperator": "LessThanThreshold",
		"TreatMissingData": "notBreaching"}
	if !maps.Equal(got, want) {
		t.Errorf("forecast alarm %v, want %v", got, want)
	}
	for _, k := range []string{"AlarmActions", "OKActions"} {
		if a := fmt.Sprint(alarm[k]); a != fmt.Sprint([]any{cfn.Ref("AlarmTopic")}) {
			t.Errorf("%s %s, want the alarm topic", k, a)
		}
	}
	env := properties(mustResource(t, s, rollupID))["Environment"].(map[string]any)["Variables"].(map[string]any)
	if v := cfn.ScalarString(env["HOTKEYS_PARTITION_LIMIT"]); v != "250" {
		t.Errorf("rollup HOTKEYS_PARTITION_LIMIT %q, want PartitionLimit, 250", v)
	}

	// What the rollup function writes for the table (5 days) and an index
	// (3 days): the alarm reads both, and the smaller breaches.
	at := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var lines []byte
	lines = alert.AppendEMFTableValue(lines, alert.DefaultNamespace, at, testTable, "", alert.MetricMinDaysToLimit, "None", 25)
	lines = alert.AppendEMFTableValue(lines, alert.DefaultNamespace, at, testTable, "GSI1", alert.MetricMinDaysToLimit, "None", 3)
	refs, err := alarmMetricRefs(forecastAlarmID, alarm)
	if err != nil || len(refs) != 1 {
		t.Fatalf("alarm metrics %v, %v; want one", refs, err)
	}
	ref := refs[0]
	if ref.dimensions[alert.DimensionTableName] != testTable || len(ref.dimensions) != 1 {
		t.Errorf("alarm dimensions %v, want TableName %s alone", ref.dimensions, testTable)
	}
	least := -1.0
	for _, p := range parseEMF(t, lines) {
		if p.namespace == ref.namespace && p.name == ref.name && maps.Equal(p.dims, ref.dimensions) && (least < 0 || p.value < least) {
			least = p.value
		}
	}
	if least != 3 {
		t.Errorf("the alarm reads a minimum of %v from the rollup function's lines, want 3 (the index's)\n%s", least, lines)
	}
}
