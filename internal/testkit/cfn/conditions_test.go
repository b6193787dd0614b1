package cfn

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const scenarioTemplate = `
Parameters:
  Mode: {Type: String, Default: auto, AllowedValues: [auto, "on", "off"]}
  Names: {Type: String, Default: ""}
  Email: {Type: String, Default: ""}
  Arn: {Type: String}
Conditions:
  Analyses: !Not [!Equals [!Ref Mode, "off"]]
  NamesGiven: !Not [!Equals [!Ref Names, ""]]
  Alarms: !Or [!Equals [!Ref Mode, "on"], !And [!Equals [!Ref Mode, auto], !Condition NamesGiven]]
  HasEmail: !Not [!Equals [!Ref Email, ""]]
Resources:
  Alarm:
    Type: AWS::CloudWatch::Alarm
    Condition: Alarms
  Policy:
    Type: AWS::IAM::Policy
    Properties:
      Statement: [{Effect: Allow, Condition: {StringEquals: {a: b}}}]
  Dashboard:
    Type: AWS::CloudWatch::Dashboard
    Properties:
      Body: !Sub
        - '{"alarms": [${List}], "table": "${Arn}"}'
        - List: !If [Analyses, !Sub '"${Alarm.Arn}"', ""]
  Subscription:
    Type: AWS::SNS::Subscription
    Condition: HasEmail
`

func TestConditionsOf(t *testing.T) {
	tmpl, err := Parse([]byte(scenarioTemplate))
	if err != nil {
		t.Fatal(err)
	}
	res := tmpl["Resources"].(map[string]any)
	for id, want := range map[string][]string{
		// Its Fn::If, the condition of the alarm it names, and the
		// condition that one refers to.
		"Dashboard": {"Alarms", "Analyses", "NamesGiven"},
		// An IAM statement's Condition is a map, not a condition's name.
		"Policy":       nil,
		"Subscription": {"HasEmail"},
	} {
		got, err := ConditionsOf(tmpl, res[id])
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(got, want) {
			t.Errorf("ConditionsOf(%s) = %v, want %v", id, got, want)
		}
	}
	if got := ParametersOf(tmpl, []string{"Alarms", "Analyses"}); !cmp.Equal(got, []string{"Mode", "Names"}) {
		t.Errorf("ParametersOf = %v, want [Mode Names]", got)
	}
	broken := map[string]any{"Resources": map[string]any{"R": map[string]any{"Condition": "Nope"}}}
	if _, err := ConditionsOf(broken, broken["Resources"]); err == nil || !strings.Contains(err.Error(), "no condition Nope") {
		t.Errorf("a missing condition: error %v", err)
	}
}

func TestScenarios(t *testing.T) {
	tmpl, err := Parse([]byte(scenarioTemplate))
	if err != nil {
		t.Fatal(err)
	}
	conds := []string{"Alarms", "Analyses"}
	base := map[string]string{"Arn": "x"}
	got, err := Scenarios(tmpl, base, map[string][]string{"Names": {"GSI1"}}, conds)
	if err != nil {
		t.Fatal(err)
	}
	// Off never alarms; auto alarms only with names; on always does: three
	// of the four combinations are reachable, each by its first parameters.
	want := []Scenario{
		{map[string]string{"Arn": "x", "Mode": "off", "Names": ""}, map[string]bool{"Alarms": false, "Analyses": false}},
		{map[string]string{"Arn": "x", "Mode": "auto", "Names": ""}, map[string]bool{"Alarms": false, "Analyses": true}},
		{map[string]string{"Arn": "x", "Mode": "on", "Names": ""}, map[string]bool{"Alarms": true, "Analyses": true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scenarios (-want +got):\n%s", diff)
	}
	if s := got[1].String(); s != "Alarms=false Analyses=true" {
		t.Errorf("String() = %q", s)
	}

	// A free-form parameter without samples cannot be tried.
	if _, err := Scenarios(tmpl, base, nil, conds); err == nil || !strings.Contains(err.Error(), "parameter Names") {
		t.Errorf("no samples for Names: error %v", err)
	}
}
