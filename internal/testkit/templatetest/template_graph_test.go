package templatetest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// getAttributes lists, per resource type, the Fn::GetAtt attributes
// CloudFormation (and SAM, for the function) returns.
var getAttributes = map[string][]string{
	"AWS::Serverless::Function": {"Arn"},
	"AWS::IAM::Role":            {"Arn", "RoleId"},
	"AWS::Logs::LogGroup":       {"Arn"},
	"AWS::SQS::Queue":           {"Arn", "QueueName", "QueueUrl"},
	"AWS::DynamoDB::Table":      {"Arn", "StreamArn"},
	"AWS::KMS::Key":             {"Arn", "KeyId"},
	"AWS::SNS::Topic":           {"TopicArn", "TopicName"},
	"AWS::SNS::Subscription":    {"Arn"},
	"AWS::CloudWatch::Alarm":    {"Arn"},
	// CloudFormation User Guide, AWS::CloudWatch::CompositeAlarm, Return values.
	"AWS::CloudWatch::CompositeAlarm": {"Arn"},
	"AWS::CloudWatch::Dashboard":      {},
	// CloudFormation User Guide, AWS::Kinesis::StreamConsumer and
	// AWS::Lambda::EventSourceMapping, Return values.
	"AWS::Kinesis::StreamConsumer":    {"ConsumerARN", "ConsumerCreationTimestamp", "ConsumerName", "ConsumerStatus", "StreamARN"},
	"AWS::Lambda::EventSourceMapping": {"EventSourceMappingArn", "Id"},
}

// references returns the resources v refers to (Ref, Fn::GetAtt, and
// ${Resource} or ${Resource.Attribute} in Fn::Sub), as "Id" or "Id.Attribute".
func references(v any, resources map[string]any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch k {
				case "Ref":
					if id, ok := e.(string); ok {
						if _, isResource := resources[id]; isResource {
							out = append(out, id)
						}
					}
				case "Fn::GetAtt":
					if a, ok := e.([]any); ok && len(a) == 2 {
						out = append(out, a[0].(string)+"."+a[1].(string))
					}
				case "Fn::Sub":
					text, _ := e.(string)
					if a, ok := e.([]any); ok && len(a) > 0 {
						text, _ = a[0].(string)
					}
					for _, m := range cfn.SubVariable.FindAllStringSubmatch(text, -1) {
						id, _, _ := strings.Cut(m[1], ".")
						if _, isResource := resources[id]; isResource {
							out = append(out, m[1])
						}
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// TestTemplateDependencyGraph checks what CloudFormation checks only at
// deployment: every Fn::GetAtt names an attribute its resource has, and the
// resources' references (with DependsOn) form no cycle. The log group, for
// one, is named without the function's name so that the role can name it.
func TestTemplateDependencyGraph(t *testing.T) {
	tmpl := readTemplate(t)
	resources := tmpl["Resources"].(map[string]any)
	deps := map[string][]string{}
	for _, id := range slices.Sorted(maps.Keys(resources)) {
		r := resources[id].(map[string]any)
		for _, target := range references(r["Properties"], resources) {
			rid, attribute, hasAttribute := strings.Cut(target, ".")
			other, ok := resources[rid].(map[string]any)
			if !ok {
				t.Errorf("%s refers to %s, which is no resource", id, target)
				continue
			}
			if typ, _ := other["Type"].(string); hasAttribute && !slices.Contains(getAttributes[typ], attribute) {
				t.Errorf("%s reads %s: a %s has no attribute %s (known: %v)", id, target, typ, attribute, getAttributes[typ])
			}
			deps[id] = append(deps[id], rid)
		}
		switch d := r["DependsOn"].(type) {
		case string:
			deps[id] = append(deps[id], d)
		case []any:
			for _, e := range d {
				deps[id] = append(deps[id], e.(string))
			}
		}
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) bool
	visit = func(id string) bool {
		switch state[id] {
		case visiting:
			i := slices.Index(path, id)
			t.Errorf("dependency cycle: %s -> %s", strings.Join(path[i:], " -> "), id)
			return false
		case done:
			return true
		}
		state[id] = visiting
		path = append(path, id)
		for _, d := range deps[id] {
			if !visit(d) {
				return false
			}
		}
		path = path[:len(path)-1]
		state[id] = done
		return true
	}
	for _, id := range slices.Sorted(maps.Keys(resources)) {
		if !visit(id) {
			return
		}
	}
}
