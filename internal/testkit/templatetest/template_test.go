package templatetest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

const (
	// repoRoot is the checkout, where template.yaml and the Makefile live.
	repoRoot     = "../../.."
	templateFile = repoRoot + "/template.yaml"
	// functionID must match the Makefile's build-HotKeysFunction target,
	// which `sam build` runs for BuildMethod: makefile.
	functionID = "HotKeysFunction"

	testTable     = "Orders"
	testIndex     = "GSI1"
	testStreamArn = "arn:aws:dynamodb:" + cfn.Region + ":" + cfn.Account + ":table/" + testTable + "/stream/2026-11-22T10:00:00.000"
	// The table's Kinesis streaming destination, for StreamSource=kinesis.
	testKinesisArn = "arn:aws:kinesis:" + cfn.Region + ":" + cfn.Account + ":stream/" + testTable + "-changes"
)

// readTemplate parses template.yaml.
func readTemplate(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(templateFile)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := cfn.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// deploy evaluates the template as CloudFormation would with the test
// stream ARN, the parameters' defaults and the given overrides.
func deploy(t *testing.T, tmpl map[string]any, overrides map[string]string) *cfn.Stack {
	t.Helper()
	values := map[string]string{"StreamArn": testStreamArn}
	for k, v := range overrides {
		values[k] = v
	}
	s, err := cfn.NewStack(tmpl, values)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustResource(t *testing.T, s *cfn.Stack, id string) map[string]any {
	t.Helper()
	r, err := s.Resource(id)
	if err != nil {
		t.Fatal(err)
	}
	if r == nil {
		t.Fatalf("resource %s is not created with these parameters", id)
	}
	return r
}

func properties(r map[string]any) map[string]any {
	p, _ := r["Properties"].(map[string]any)
	return p
}

// --- Outputs -------------------------------------------------------------

func TestTemplateOutputs(t *testing.T) {
	s := deploy(t, readTemplate(t), nil)
	outputs, err := s.Outputs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"FunctionArn":        cfn.GetAtt(functionID, "Arn"),
		"AlarmTopicArn":      cfn.Ref("AlarmTopic"),
		"DeadLetterQueueUrl": cfn.Ref("DeadLetterQueue"),
		"DashboardName":      cfn.Ref("HotKeysDashboard"),
		"TableName":          testTable,
	}
	for name, w := range want {
		o, _ := outputs[name].(map[string]any)
		if got := o["Value"]; got != w {
			t.Errorf("output %s = %v, want %v", name, got, w)
		}
	}
	if ids := s.Resources("AWS::CloudWatch::Dashboard"); len(ids) != 1 || ids[0] != "HotKeysDashboard" {
		t.Errorf("dashboards %v, want [HotKeysDashboard]", ids)
	}
	// The whole set, so that a new output is a decision, not an accident.
	if got := len(outputs); got != len(want) {
		t.Errorf("%d outputs, want %d: %v", got, len(want), outputs)
	}
	// With history on, its table is an output too, for `hotkeys history`.
	s = deploy(t, readTemplate(t), map[string]string{"History": "on"})
	outputs, err = s.Outputs()
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := outputs["HistoryTable"].(map[string]any); o["Value"] != cfn.Ref("HistoryTable") || len(outputs) != len(want)+1 {
		t.Errorf("with History=on, output HistoryTable = %v, want the table", o)
	}
	// With redaction on, the outputs stay the same set: none names the
	// secret, let alone its value.
	s = deploy(t, readTemplate(t), map[string]string{"KeyRedaction": "hash"})
	outputs, err = s.Outputs()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(outputs); got != len(want) || strings.Contains(fmt.Sprint(outputs), "KeyRedactionSecret") {
		t.Errorf("outputs with redaction on: %v", outputs)
	}
}
