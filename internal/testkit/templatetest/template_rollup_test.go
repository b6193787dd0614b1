package templatetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

const rollupID = "HistoryRollupFunction"

// TestTemplateHistoryRollup: with History on, and only then, the rollup
// function runs every minute from EventBridge Scheduler (ScheduleV2, its
// scheduled time in the event, unnamed so that stacks do not collide),
// retried and alarmed, with the environment its sources read and a role
// that may read and write the history table and its own logs, nothing
// else; `sam build` can build it.
func TestTemplateHistoryRollup(t *testing.T) {
	tmpl := readTemplate(t)
	off := deploy(t, tmpl, nil)
	for _, id := range []string{rollupID, "HistoryRollupRole", "HistoryRollupLogGroup", "HistoryRollupErrorsAlarm"} {
		if off.HasResource(id) {
			if r, _ := off.Resource(id); r != nil {
				t.Errorf("%s is created with History off", id)
			}
		}
	}
	s := deploy(t, tmpl, map[string]string{"History": "on", "WindowSeconds": "300", "HistoryWriteShards": "128", "HistoryRetentionDays": "9"})
	fn := properties(mustResource(t, s, rollupID))
	env, _ := fn["Environment"].(map[string]any)
	vars := map[string]string{}
	for k, v := range env["Variables"].(map[string]any) {
		vars[k] = cfn.ScalarString(v)
	}
	want := map[string]string{
		"HOTKEYS_HISTORY_TABLE":          fmt.Sprint(cfn.Ref("HistoryTable")),
		"HOTKEYS_WINDOW":                 "300s",
		"HOTKEYS_HISTORY_WRITE_SHARDS":   "128",
		"HOTKEYS_HISTORY_RETENTION_DAYS": "9",
	}
	if !maps.Equal(vars, want) {
		t.Errorf("rollup environment %v, want %v", vars, want)
	}
	if read := sourceEnvironment(t, filepath.Join("lambda", "rollup")); !slices.Equal(read, slices.Sorted(maps.Keys(want))) {
		t.Errorf("lambda/rollup reads %v, the template sets %v", read, slices.Sorted(maps.Keys(want)))
	}
	if fn["Role"] != cfn.GetAtt("HistoryRollupRole", "Arn") || fn["Runtime"] != "provided.al2023" || fn["Handler"] != "bootstrap" {
		t.Errorf("rollup function: role %v, runtime %v, handler %v", fn["Role"], fn["Runtime"], fn["Handler"])
	}
	if md, _ := mustResource(t, s, rollupID)["Metadata"].(map[string]any); md["BuildMethod"] != "makefile" {
		t.Errorf("rollup function BuildMethod %v, want makefile", md["BuildMethod"])
	}
	if lc, _ := fn["LoggingConfig"].(map[string]any); lc["LogGroup"] != cfn.Ref("HistoryRollupLogGroup") {
		t.Errorf("rollup function logs to %v", lc["LogGroup"])
	}
	if eic := fmt.Sprint(fn["EventInvokeConfig"]); eic != fmt.Sprint(map[string]any{"MaximumEventAgeInSeconds": 3600, "MaximumRetryAttempts": 2}) &&
		eic != fmt.Sprint(map[string]any{"MaximumEventAgeInSeconds": "3600", "MaximumRetryAttempts": "2"}) {
		t.Errorf("EventInvokeConfig %s: want 2 retries of a failed run, dropped after an hour", eic)
	}
	events, _ := fn["Events"].(map[string]any)
	if len(events) != 1 {
		t.Fatalf("rollup events %v, want one schedule", events)
	}
	for name, e := range events {
		ev := e.(map[string]any)
		p := ev["Properties"].(map[string]any)
		var input map[string]string
		if ev["Type"] != "ScheduleV2" || p["ScheduleExpression"] != "cron(* * * * ? *)" || p["OmitName"] != true ||
			json.Unmarshal([]byte(fmt.Sprint(p["Input"])), &input) != nil || input["scheduled_time"] != "<aws.scheduler.scheduled-time>" {
			t.Errorf("event %s: %v; want ScheduleV2 every minute, unnamed, the scheduled time in its input", name, ev)
		}
		if _, ok := p["RoleArn"]; ok {
			t.Errorf("event %s sets RoleArn: SAM's own role may invoke this function and nothing else", name)
		}
	}

	role := properties(mustResource(t, s, "HistoryRollupRole"))
	trust := statements("trust", role["AssumeRolePolicyDocument"])
	if len(trust) != 1 || fmt.Sprint(trust[0].m["Principal"]) != "map[Service:lambda.amazonaws.com]" {
		t.Errorf("rollup role trust %v", trust)
	}
	got := map[string][]string{}
	for _, st := range statements("role", role["Policies"]) {
		if st.m["Effect"] != "Allow" || st.m["Condition"] != nil {
			t.Errorf("%s: want plain Allow statements", st.where)
		}
		for _, a := range st.list("Action") {
			got[a] = append(got[a], st.list("Resource")...)
		}
	}
	table := []string{cfn.GetAtt("HistoryTable", "Arn")}
	logs := []string{cfn.GetAtt("HistoryRollupLogGroup", "Arn")}
	if w := map[string][]string{"dynamodb:Query": table, "dynamodb:PutItem": table, "dynamodb:UpdateItem": table,
		"logs:CreateLogStream": logs, "logs:PutLogEvents": logs}; !maps.EqualFunc(got, w, slices.Equal) {
		t.Errorf("the rollup role grants %v, want %v", got, w)
	}

	// A failed run alarms when it fails again within three minutes (its
	// retry, or the next run): one failure its retry fixes stays quiet.
	// TestTemplateAlarms checks its topic, missing data and description.
	alarm := properties(mustResource(t, s, "HistoryRollupErrorsAlarm"))
	gotAlarm := map[string]string{}
	for _, k := range []string{"Namespace", "MetricName", "Dimensions", "Statistic", "Period", "EvaluationPeriods", "DatapointsToAlarm", "Threshold", "ComparisonOperator"} {
		gotAlarm[k] = cfn.ScalarString(alarm[k])
		if k == "Dimensions" {
			gotAlarm[k] = fmt.Sprint(alarm[k])
		}
	}
	wantAlarm := map[string]string{"Namespace": "AWS/Lambda", "MetricName": "Errors",
		"Dimensions": fmt.Sprint([]any{map[string]any{"Name": "FunctionName", "Value": cfn.Ref(rollupID)}}),
		"Statistic":  "Sum", "Period": "60", "EvaluationPeriods": "3", "DatapointsToAlarm": "2", "Threshold": "1", "ComparisonOperator": "GreaterThanOrEqualToThreshold"}
	if !maps.Equal(gotAlarm, wantAlarm) {
		t.Errorf("rollup alarm %v, want %v", gotAlarm, wantAlarm)
	}

	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command(makePath, "-s", "-n", "-C", repoRoot, "build-"+rollupID, "ARTIFACTS_DIR=/tmp/x").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-o /tmp/x/bootstrap ./lambda/rollup") || !strings.Contains(string(out), "CGO_ENABLED=0") {
		t.Errorf("make build-%s: %v\n%s", rollupID, err, out)
	}
}

// TestTemplateLogging: both functions log JSON, so that Lambda drops its
// own START, END and REPORT lines (SystemLogLevel WARN), and keep their
// application lines at INFO: Lambda gives a line without a "level", which
// every EMF line is, the level INFO, so anything above would drop the
// metrics.
func TestTemplateLogging(t *testing.T) {
	s := deploy(t, readTemplate(t), map[string]string{"History": "on"})
	for _, id := range []string{functionID, rollupID} {
		lc, _ := properties(mustResource(t, s, id))["LoggingConfig"].(map[string]any)
		if lc["LogFormat"] != "JSON" || lc["SystemLogLevel"] != "WARN" || (lc["ApplicationLogLevel"] != nil && lc["ApplicationLogLevel"] != "INFO") {
			t.Errorf("%s LoggingConfig %v: want JSON, system lines at WARN, application lines at INFO", id, lc)
		}
	}
}

// TestTemplateHistoryWindowRule: with History on, a CloudFormation rule
// admits exactly the WindowSeconds that divide an hour, the windows the
// rollup function can roll up into hours (rollup.New refuses the others).
func TestTemplateHistoryWindowRule(t *testing.T) {
	tmpl := readTemplate(t)
	rules, _ := tmpl["Rules"].(map[string]any)
	rule, _ := rules["HistoryWindowsDivideAnHour"].(map[string]any)
	if fmt.Sprint(rule["RuleCondition"]) != fmt.Sprint(map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "History"}, "on"}}) {
		t.Fatalf("rule condition %v, want History on", rule["RuleCondition"])
	}
	asserts, _ := rule["Assertions"].([]any)
	if len(asserts) != 1 {
		t.Fatalf("assertions %v", asserts)
	}
	contains := asserts[0].(map[string]any)["Assert"].(map[string]any)["Fn::Contains"].([]any)
	if fmt.Sprint(contains[1]) != fmt.Sprint(map[string]any{"Ref": "WindowSeconds"}) {
		t.Errorf("the rule checks %v, want WindowSeconds", contains[1])
	}
	var want []string
	for w := 1; w <= 900; w++ {
		if 3600%w == 0 {
			want = append(want, strconv.Itoa(w))
		}
	}
	if got := stringsOf(contains[0]); !slices.Equal(got, want) {
		t.Errorf("the rule admits %v, want the divisors of 3600 up to 900 %v", got, want)
	}
}
