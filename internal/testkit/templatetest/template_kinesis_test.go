package templatetest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// TestTemplateStreamSourceParameters: the table's stream by default, as
// before the choice existed; Kinesis only with a Kinesis stream's ARN,
// which a CloudFormation rule demands and a pattern checks.
func TestTemplateStreamSourceParameters(t *testing.T) {
	tmpl := readTemplate(t)
	params := tmpl["Parameters"].(map[string]any)
	src := params["StreamSource"].(map[string]any)
	if src["Default"] != "dynamodb" || fmt.Sprint(src["AllowedValues"]) != fmt.Sprint([]any{"dynamodb", "kinesis"}) {
		t.Errorf("StreamSource default %v, values %v; want dynamodb, [dynamodb kinesis]", src["Default"], src["AllowedValues"])
	}

	rule, _ := tmpl["Rules"].(map[string]any)["KinesisSourceNamesItsStream"].(map[string]any)
	if fmt.Sprint(rule["RuleCondition"]) != fmt.Sprint(map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "StreamSource"}, "kinesis"}}) {
		t.Errorf("rule condition %v, want StreamSource kinesis", rule["RuleCondition"])
	}
	asserts, _ := rule["Assertions"].([]any)
	want := map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "KinesisStreamArn"}, ""}}}}
	if len(asserts) != 1 || fmt.Sprint(asserts[0].(map[string]any)["Assert"]) != fmt.Sprint(want) {
		t.Errorf("rule assertions %v, want KinesisStreamArn not empty", asserts)
	}

	// CloudFormation matches AllowedPattern against the whole value.
	pattern := regexp.MustCompile("^(?:" + params["KinesisStreamArn"].(map[string]any)["AllowedPattern"].(string) + ")$")
	for _, arn := range []string{
		"", testKinesisArn,
		"arn:aws-cn:kinesis:cn-north-1:123456789012:stream/a",
		"arn:aws:kinesis:eu-west-1:123456789012:stream/my.stream-2_b",
	} {
		if !pattern.MatchString(arn) {
			t.Errorf("KinesisStreamArn pattern rejects %q", arn)
		}
	}
	for _, arn := range []string{
		testStreamArn, // the table's DynamoDB stream
		"arn:aws:kinesis:eu-west-1:123456789012:stream/Orders/consumer/c:1", // a consumer, not its stream
		"arn:aws:kinesis:eu-west-1:12345:stream/Orders",                     // short account
		"arn:aws:kinesis:eu-west-1:123456789012:stream/",                    // no name
		" " + testKinesisArn, // pasted with a space
	} {
		if pattern.MatchString(arn) {
			t.Errorf("KinesisStreamArn pattern accepts %q", arn)
		}
	}
}

// TestTemplateIteratorAgeAlarmWatchesEitherSource: Lambda publishes
// IteratorAge per function for any stream mapping, Kinesis through a
// consumer included, so the one lag alarm watches whichever source exists.
func TestTemplateIteratorAgeAlarmWatchesEitherSource(t *testing.T) {
	tmpl := readTemplate(t)
	for _, params := range []map[string]string{nil, kinesisSource} {
		s := deploy(t, tmpl, params)
		a := properties(mustResource(t, s, "IteratorAgeAlarm"))
		dims := fmt.Sprint(a["Dimensions"])
		if a["Namespace"] != "AWS/Lambda" || a["MetricName"] != "IteratorAge" ||
			dims != fmt.Sprint([]any{map[string]any{"Name": "FunctionName", "Value": cfn.Ref(functionID)}}) {
			t.Errorf("StreamSource %s: lag alarm on %v %v %s, want AWS/Lambda IteratorAge of the function", s.Param("StreamSource"), a["Namespace"], a["MetricName"], dims)
		}
	}
}
