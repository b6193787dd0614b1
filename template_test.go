package hotkeys_test

// Tests of template.yaml, the AWS SAM template users deploy. They check it
// against the official SAM schema and a schema of what that one passes
// through unchecked; that its alarms and dashboard read metrics the alert
// package really publishes; and that its IAM, event source mapping and
// environment keep the guarantees README promises. The SAM CLI is not
// needed: the template is parsed and its intrinsic functions are evaluated
// here (cfnyaml_test.go, cfneval_test.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	templateFile = "template.yaml"
	// samSchemaFile is the official SAM schema
	// (aws/serverless-application-model, schema_source/sam.schema.json),
	// kept outside the repository, next to it.
	samSchemaFile = "../shared/schemas/sam.schema.json"
	// resourceSchemaFile describes what the SAM schema leaves unchecked.
	resourceSchemaFile = "testdata/template/cfn-resources.schema.json"

	// functionID must match the Makefile's build-HotKeysFunction target,
	// which `sam build` runs for BuildMethod: makefile.
	functionID = "HotKeysFunction"

	testTable     = "Orders"
	testStreamArn = "arn:aws:dynamodb:" + testRegion + ":" + testAccount + ":table/" + testTable + "/stream/2026-11-22T10:00:00.000"
)

// readTemplate parses template.yaml.
func readTemplate(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(templateFile)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := parseTemplate(data)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// deploy evaluates the template as CloudFormation would with the test
// stream ARN, the parameters' defaults and the given overrides.
func deploy(t *testing.T, tmpl map[string]any, overrides map[string]string) *cfnStack {
	t.Helper()
	values := map[string]string{"StreamArn": testStreamArn}
	for k, v := range overrides {
		values[k] = v
	}
	s, err := newStack(tmpl, values)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustResource(t *testing.T, s *cfnStack, id string) map[string]any {
	t.Helper()
	r, err := s.resource(id)
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

// --- Schema validation ---------------------------------------------------

// dlclarkRegexp lets the schemas use ECMAScript patterns: the SAM schema's
// ^(?!AWS::Serverless::).+$ needs lookahead, which Go's regexp lacks.
type dlclarkRegexp regexp2.Regexp

func (re *dlclarkRegexp) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(re).MatchString(s)
	return err == nil && ok
}

func (re *dlclarkRegexp) String() string { return (*regexp2.Regexp)(re).String() }

func compileECMAScript(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return (*dlclarkRegexp)(re), nil
}

func compileSchema(path string) (*jsonschema.Schema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("schema %s is missing (resolved from %s as %s)", path, mustGetwd(), abs)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(compileECMAScript)
	url := "file://" + filepath.ToSlash(abs)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	return wd
}

// The SAM schema is 750 KB: compile each schema once for all tests.
var (
	samSchema      = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(samSchemaFile) })
	resourceSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(resourceSchemaFile) })
)

// validate checks a parsed template against one of the schemas and returns
// the validation error, detailed, or nil.
func validate(t *testing.T, schema func() (*jsonschema.Schema, error), tmpl map[string]any) error {
	t.Helper()
	sch, err := schema()
	if err != nil {
		t.Fatal(err)
	}
	// Round-trip through JSON so that the instance holds JSON types only.
	data, err := json.Marshal(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%#v", ve)
		}
		return err
	}
	return nil
}

func TestTemplateMatchesSAMSchema(t *testing.T) {
	if err := validate(t, samSchema, readTemplate(t)); err != nil {
		t.Fatalf("%s does not match %s:\n%s", templateFile, samSchemaFile, clip(err.Error(), 60))
	}
}

func TestTemplateMatchesResourceSchema(t *testing.T) {
	if err := validate(t, resourceSchema, readTemplate(t)); err != nil {
		t.Fatalf("%s does not match %s:\n%s", templateFile, resourceSchemaFile, clip(err.Error(), 60))
	}
}

// clip keeps the first n lines of a validation error: an anyOf over every
// SAM resource type explains itself at great length.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-n)
}

// at walks a parsed template along keys and fails when the path is not
// there, so that a mutation cannot silently miss its target.
func at(t *testing.T, v any, path ...string) map[string]any {
	t.Helper()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not a map", k)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %q in path %q", k, path)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%q is not a map", path)
	}
	return m
}

// TestTemplateValidationRejectsBrokenCopies makes sure the validation bites:
// each broken copy of the template must be rejected by the schema that is
// meant to catch it. The SAM schema checks SAM's own properties but passes
// CloudFormation's through ({}), so a numeric Runtime, for one, is the
// resource schema's to catch.
func TestTemplateValidationRejectsBrokenCopies(t *testing.T) {
	fn := []string{"Resources", functionID}
	esm := append(slices.Clone(fn), "Properties", "Events", "TableStream", "Properties")
	tests := []struct {
		name   string
		schema string // "sam" or "resource"
		mutate func(t *testing.T, tmpl map[string]any)
	}{
		{"unknown function property", "sam", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Runtimes"] = "provided.al2023"
		}},
		{"unknown event source mapping property", "sam", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["BatchSizes"] = 100
		}},
		{"event type misspelt", "sam", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties", "Events", "TableStream")...)["Type"] = "DynamoDb"
		}},
		{"Stream missing from the event", "sam", func(t *testing.T, m map[string]any) {
			delete(at(t, m, esm...), "Stream")
		}},
		{"serverless resource type misspelt (needs the lookahead pattern)", "sam", func(t *testing.T, m map[string]any) {
			at(t, m, fn...)["Type"] = "AWS::Serverless::Functon"
		}},
		{"Tracing not one of its values", "sam", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Tracing"] = "Sometimes"
		}},
		{"Runtime a number", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Runtime"] = 42
		}},
		{"MemorySize under Lambda's minimum", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["MemorySize"] = 64
		}},
		{"BatchSize over the mapping's limit", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["BatchSize"] = 20000
		}},
		{"StartingPosition misspelt", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["StartingPosition"] = "NEWEST"
		}},
		{"unknown alarm property", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "HotKeyCriticalAlarm", "Properties")["TreatMissingDatas"] = "notBreaching"
		}},
		{"alarm with both MetricName and Metrics", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "HotKeyWarningAlarm", "Properties")["MetricName"] = "HotKeys"
		}},
		{"alarm period not a multiple of a minute", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "MalformedRecordsAlarm", "Properties")["Period"] = 90
		}},
		{"IAM Sid with a dash", "resource", func(t *testing.T, m map[string]any) {
			doc := at(t, m, "Resources", "HotKeysFunctionRole", "Properties", "AssumeRolePolicyDocument")
			doc["Statement"].([]any)[0].(map[string]any)["Sid"] = "Assume-Role"
		}},
		{"resource type nobody described", "resource", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources")["Bucket"] = map[string]any{"Type": "AWS::S3::Bucket"}
		}},
	}
	schemas := map[string]func() (*jsonschema.Schema, error){"sam": samSchema, "resource": resourceSchema}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := readTemplate(t)
			tt.mutate(t, broken)
			if err := validate(t, schemas[tt.schema], broken); err == nil {
				t.Errorf("the %s schema accepts a template with %s", tt.schema, tt.name)
			}
		})
	}
}

// TestTemplateParsingRefusesAmbiguousYAML checks the parser's own guards,
// which keep the tests reading the template the way CloudFormation does.
func TestTemplateParsingRefusesAmbiguousYAML(t *testing.T) {
	for _, doc := range []string{
		"A: 1\nA: 2\n",                 // duplicate key
		"Mode: off\n",                  // YAML 1.1 boolean
		"X: !Bogus y\n",                // unknown tag
		"X: !GetAtt NoAttribute\n",     // !GetAtt without .Attribute
		"B: &b {x: 1}\nC:\n  <<: *b\n", // merge key
	} {
		if _, err := parseTemplate([]byte(doc)); err == nil {
			t.Errorf("parseTemplate(%q) succeeded, want an error", doc)
		}
	}
	got, err := parseTemplate([]byte("A: !GetAtt Fn.Arn\nB: !Sub [\"${X}\", {X: !Ref Y}]\nC: 'off'\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"A": map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}},
		"B": map[string]any{"Fn::Sub": []any{"${X}", map[string]any{"X": map[string]any{"Ref": "Y"}}}},
		"C": "off",
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("parseTemplate = %s, want %s", g, w)
	}
}

// --- Outputs -------------------------------------------------------------

func TestTemplateOutputs(t *testing.T) {
	s := deploy(t, readTemplate(t), nil)
	outputs, err := s.eval(s.template["Outputs"])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"FunctionArn":        getAtt(functionID, "Arn"),
		"AlarmTopicArn":      ref("AlarmTopic"),
		"DeadLetterQueueUrl": ref("DeadLetterQueue"),
		"DashboardName":      ref("HotKeysDashboard"),
		"TableName":          testTable,
	}
	for name, w := range want {
		o, _ := outputs.(map[string]any)[name].(map[string]any)
		if got := o["Value"]; got != w {
			t.Errorf("output %s = %v, want %v", name, got, w)
		}
	}
	if ids := s.resources("AWS::CloudWatch::Dashboard"); len(ids) != 1 || ids[0] != "HotKeysDashboard" {
		t.Errorf("dashboards %v, want [HotKeysDashboard]", ids)
	}
	if strings.Contains(fmt.Sprint(outputs), "Salt") {
		t.Error("an output exposes the redaction salt")
	}
}
