package templatetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/awslabs/goformation/v7/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// The resource schemas come from a module, github.com/awslabs/goformation/v7
// (schema.SamSchema): CloudFormation's resource specification for every
// AWS:: type plus SAM's own resources, as JSON Schema draft-04. Each
// resource is checked against the definition of its Type, as CloudFormation
// would deploy it (intrinsic functions evaluated, for several parameter
// sets), so an error names the resource and the property.

const schemaURL = "file:///goformation/sam.schema.json"

// samPassThrough lists what goformation v7.14.9's SAM definitions predate:
// properties SAM passes straight through to a CloudFormation resource that
// the same schema describes in full. Each is added to the SAM definition
// with the schema of the CloudFormation property it becomes, so nothing
// here is written by hand. TestSAMPassThroughIsStillMissing fails once
// goformation catches up, so that this list only ever shrinks.
var samPassThrough = []struct {
	samDefinition, cfnDefinition, property string
	inProperties                           bool // SAM's definition nests its properties under "Properties"
}{
	{"AWS::Serverless::Function", "AWS::Lambda::Function", "LoggingConfig", true},
	{"AWS::Serverless::Function.DynamoDBEvent", "AWS::Lambda::EventSourceMapping", "TumblingWindowInSeconds", false},
	{"AWS::Serverless::Function.DynamoDBEvent", "AWS::Lambda::EventSourceMapping", "FunctionResponseTypes", false},
	{"AWS::Serverless::Function.DynamoDBEvent", "AWS::Lambda::EventSourceMapping", "FilterCriteria", false},
}

// propertiesOf returns the "properties" map of a definition: its own for a
// property type, the one under "Properties" for a resource.
func propertiesOf(defs map[string]any, name string, inProperties bool) (map[string]any, error) {
	d, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no definition %s", name)
	}
	if inProperties {
		p, _ := d["properties"].(map[string]any)
		d, ok = p["Properties"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("definition %s has no Properties", name)
		}
	}
	props, ok := d["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("definition %s has no properties", name)
	}
	return props, nil
}

// scheduleV2 is the SAM event type goformation v7.14.9 predates whole:
// ScheduleV2, which SAM turns into an AWS::Scheduler::Schedule whose
// target is the function. Its definition is built from that resource's
// CloudFormation definition (the schedule's properties, and the target's
// that SAM lifts to the event), plus SAM's own OmitName and
// PermissionsBoundary. TestSAMScheduleV2IsStillMissing fails once
// goformation has it.
var scheduleV2 = struct {
	definition       string
	schedule, target []string
}{
	definition: "AWS::Serverless::Function.ScheduleV2Event",
	schedule:   []string{"Description", "EndDate", "FlexibleTimeWindow", "GroupName", "KmsKeyArn", "Name", "ScheduleExpression", "ScheduleExpressionTimezone", "StartDate", "State"},
	target:     []string{"DeadLetterConfig", "Input", "RetryPolicy", "RoleArn"},
}

// addScheduleV2 adds scheduleV2's definition and makes it one of the event
// sources a function takes.
func addScheduleV2(defs map[string]any) error {
	schedule, err := propertiesOf(defs, "AWS::Scheduler::Schedule", true)
	if err != nil {
		return err
	}
	target, err := propertiesOf(defs, "AWS::Scheduler::Schedule.Target", false)
	if err != nil {
		return err
	}
	props := map[string]any{
		"OmitName":            map[string]any{"type": "boolean"},
		"PermissionsBoundary": map[string]any{"type": "string"},
	}
	for from, names := range map[string][]string{"schedule": scheduleV2.schedule, "target": scheduleV2.target} {
		src := map[string]map[string]any{"schedule": schedule, "target": target}[from]
		for _, name := range names {
			p, ok := src[name]
			if !ok {
				return fmt.Errorf("AWS::Scheduler::Schedule's %s has no property %s", from, name)
			}
			props[name] = p
		}
	}
	defs[scheduleV2.definition] = map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": []any{"ScheduleExpression"}}
	source, err := propertiesOf(defs, "AWS::Serverless::Function.EventSource", false)
	if err != nil {
		return err
	}
	p, _ := source["Properties"].(map[string]any)
	anyOf, ok := p["anyOf"].([]any)
	if !ok {
		return errors.New("goformation's EventSource has no anyOf of event types")
	}
	p["anyOf"] = append(anyOf, map[string]any{"$ref": "#/definitions/" + scheduleV2.definition})
	return nil
}

func samDefinitions() (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(schema.SamSchema), &doc); err != nil {
		return nil, fmt.Errorf("goformation's SAM schema: %w", err)
	}
	defs, ok := doc["definitions"].(map[string]any)
	if !ok {
		return nil, errors.New("goformation's SAM schema has no definitions")
	}
	return defs, nil
}

// compiler holds goformation's SAM schema, with the pass-through properties
// added, compiled one definition at a time as resources need them.
type compiler struct {
	mu    sync.Mutex
	c     *jsonschema.Compiler
	defs  map[string]any
	cache map[string]*jsonschema.Schema
}

var resourceSchemas = sync.OnceValues(func() (*compiler, error) {
	defs, err := samDefinitions()
	if err != nil {
		return nil, err
	}
	for _, p := range samPassThrough {
		sam, err := propertiesOf(defs, p.samDefinition, p.inProperties)
		if err != nil {
			return nil, err
		}
		cfnProps, err := propertiesOf(defs, p.cfnDefinition, true)
		if err != nil {
			return nil, err
		}
		s, ok := cfnProps[p.property]
		if !ok {
			return nil, fmt.Errorf("%s has no property %s to pass through", p.cfnDefinition, p.property)
		}
		sam[p.property] = s
	}
	if err := addScheduleV2(defs); err != nil {
		return nil, err
	}
	// goformation's $id is the draft-04 meta-schema's own URL; the document
	// is a draft-04 schema, not the meta-schema.
	doc := map[string]any{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": defs}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return &compiler{c: c, defs: defs, cache: map[string]*jsonschema.Schema{}}, nil
})

// definition returns the compiled schema of a resource type, or an error
// when the schema knows no such type.
func (c *compiler) definition(typ string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.cache[typ]; ok {
		return s, nil
	}
	if _, ok := c.defs[typ]; !ok {
		return nil, fmt.Errorf("no resource type %s exists", typ)
	}
	s, err := c.c.Compile(schemaURL + "#/definitions/" + strings.ReplaceAll(typ, "/", "~1"))
	if err != nil {
		return nil, err
	}
	c.cache[typ] = s
	return s, nil
}

// validateResources checks every resource a stack creates against its
// type's schema and returns the errors, one per resource.
func validateResources(t *testing.T, s *cfn.Stack) []error {
	t.Helper()
	c, err := resourceSchemas()
	if err != nil {
		t.Fatal(err)
	}
	s = s.TypedNumbers(numberValuedParameters(s.Template())...)
	res, _ := s.Template()["Resources"].(map[string]any)
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(res)) {
		r, err := s.Resource(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r == nil {
			continue // its condition is false for these parameters
		}
		typ, _ := r["Type"].(string)
		sch, err := c.definition(typ)
		if err == nil {
			err = validateValue(sch, r)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
		}
	}
	return errs
}

func validateValue(sch *jsonschema.Schema, v any) error {
	// Round-trip through JSON so that the instance holds JSON types only.
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%s", clip(fmt.Sprintf("%#v", ve), 30))
		}
		return err
	}
	return nil
}

// clip keeps the first n lines of a validation error: an anyOf over every
// event type explains itself at great length.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-n)
}

func TestTemplateMatchesResourceSchemas(t *testing.T) {
	tmpl := readTemplate(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			for _, err := range validateResources(t, deploy(t, tmpl, v.params)) {
				t.Error(err)
			}
			for _, err := range stricterChecks(deploy(t, tmpl, v.params)) {
				t.Error(err)
			}
		})
	}
}

// TestSAMPassThroughIsStillMissing keeps samPassThrough honest: each entry
// must still be missing from goformation's SAM definition, or it is no
// longer needed.
func TestSAMPassThroughIsStillMissing(t *testing.T) {
	defs, err := samDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range samPassThrough {
		props, err := propertiesOf(defs, p.samDefinition, p.inProperties)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := props[p.property]; ok {
			t.Errorf("goformation's %s now has %s: drop it from samPassThrough", p.samDefinition, p.property)
		}
	}
}

// TestSAMScheduleV2IsStillMissing keeps scheduleV2 honest: goformation must
// still lack it, or it is no longer needed.
func TestSAMScheduleV2IsStillMissing(t *testing.T) {
	var doc struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(schema.SamSchema), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Definitions[scheduleV2.definition]; ok || strings.Contains(schema.SamSchema, "ScheduleV2") {
		t.Errorf("goformation's SAM schema now has %s: drop scheduleV2", scheduleV2.definition)
	}
}

// --- Stricter than the schema ----------------------------------------------

// The generated schemas type every property but bound none, and know no
// enumerations. These checks cover what template.yaml sets where a wrong
// value would deploy and then misbehave, from the Lambda, CloudWatch and IAM
// references.
var (
	sidPattern       = regexp.MustCompile(`^[A-Za-z0-9]*$`)
	eventTypes       = []string{"ScheduleV2"} // the rollup function's; the stream function's mappings are resources
	startingPosition = []string{"LATEST", "TRIM_HORIZON"}
	tracingModes     = []string{"Active", "PassThrough"}
	responseTypes    = []string{"ReportBatchItemFailures"}
)

// stricterChecks returns what the stack's resources get wrong beyond the
// schema.
func stricterChecks(s *cfn.Stack) []error {
	s = s.TypedNumbers(numberValuedParameters(s.Template())...)
	var errs []error
	bad := func(id, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{id}, args...)...))
	}
	for _, id := range s.Resources("AWS::Serverless::Function") {
		r, err := s.Resource(id)
		if err != nil || r == nil {
			continue
		}
		p := properties(r)
		if m, ok := number(p["MemorySize"]); ok && (m < 128 || m > 10240) {
			bad(id, "MemorySize %v outside Lambda's 128-10240 MB", m)
		}
		if tr, ok := p["Tracing"]; ok && !slices.Contains(tracingModes, fmt.Sprint(tr)) {
			bad(id, "Tracing %v, want one of %v", tr, tracingModes)
		}
		events, _ := p["Events"].(map[string]any)
		for name, e := range events {
			ev, _ := e.(map[string]any)
			if !slices.Contains(eventTypes, fmt.Sprint(ev["Type"])) {
				bad(id, "event %s has Type %v, want one of %v", name, ev["Type"], eventTypes)
			}
			ep, _ := ev["Properties"].(map[string]any)
			if ev["Type"] == "ScheduleV2" {
				for _, err := range scheduleChecks(ep) {
					bad(id, "event %s: %v", name, err)
				}
				continue
			}
			for _, err := range mappingChecks(ep) {
				bad(id, "event %s: %v", name, err)
			}
		}
	}
	for _, id := range s.Resources("AWS::Lambda::EventSourceMapping") {
		if r, err := s.Resource(id); err == nil && r != nil {
			for _, err := range mappingChecks(properties(r)) {
				bad(id, "%v", err)
			}
		}
	}
	for _, id := range s.Resources("AWS::CloudWatch::Alarm") {
		r, err := s.Resource(id)
		if err != nil || r == nil {
			continue
		}
		p := properties(r)
		_, single := p["MetricName"]
		_, math := p["Metrics"]
		if single == math {
			bad(id, "an alarm needs exactly one of MetricName and Metrics")
		}
		if per, ok := number(p["Period"]); ok && !validPeriod(per) {
			bad(id, "Period %v: CloudWatch takes 10, 20, 30 or a multiple of 60", per)
		}
		// As a dashboard widget (TestTemplateDashboardWidgets), an alarm's
		// GetMetricData runs at most one Metrics Insights query.
		queries := 0
		metrics, _ := p["Metrics"].([]any)
		for _, m := range metrics {
			m, _ := m.(map[string]any)
			if expr, _ := m["Expression"].(string); strings.HasPrefix(strings.ToUpper(strings.TrimSpace(expr)), "SELECT") {
				queries++
			}
		}
		if queries > 1 {
			bad(id, "%d Metrics Insights queries: an alarm runs one", queries)
		}
	}
	for _, st := range allStatements(s) {
		if sid, ok := st.m["Sid"]; ok && !sidPattern.MatchString(fmt.Sprint(sid)) {
			bad(st.where, "IAM Sid %q: only letters and digits are allowed", sid)
		}
	}
	return errs
}

// mappingChecks returns what a stream event source mapping (a resource, or
// a SAM event's properties) gets wrong beyond the schema.
func mappingChecks(p map[string]any) []error {
	var errs []error
	if b, ok := number(p["BatchSize"]); ok && (b < 1 || b > 10000) {
		errs = append(errs, fmt.Errorf("BatchSize %v outside a stream mapping's 1-10000", b))
	}
	if sp := fmt.Sprint(p["StartingPosition"]); !slices.Contains(startingPosition, sp) {
		errs = append(errs, fmt.Errorf("StartingPosition %s, want one of %v", sp, startingPosition))
	}
	if w, ok := number(p["TumblingWindowInSeconds"]); ok && (w < 0 || w > 900) {
		errs = append(errs, fmt.Errorf("TumblingWindowInSeconds %v outside 0-900", w))
	}
	rts, _ := p["FunctionResponseTypes"].([]any)
	for _, rt := range rts {
		if !slices.Contains(responseTypes, fmt.Sprint(rt)) {
			errs = append(errs, fmt.Errorf("FunctionResponseTypes has %v, want one of %v", rt, responseTypes))
		}
	}
	return errs
}

// scheduleExpression is what EventBridge Scheduler takes for a recurring
// schedule: rate(n unit) or a six-field cron(...).
var scheduleExpression = regexp.MustCompile(`^(rate\([1-9][0-9]* (minute|minutes|hour|hours|day|days)\)|cron\(\S+ \S+ \S+ \S+ \S+ \S+\))$`)

// scheduleChecks returns what a ScheduleV2 event gets wrong beyond the
// schema: its expression, its retry bounds (Scheduler's RetryPolicy:
// MaximumEventAgeInSeconds 60 to 86,400, MaximumRetryAttempts 0 to 185),
// the name SAM would give it otherwise (two stacks in one account would
// collide), and an Input that must be JSON.
func scheduleChecks(ep map[string]any) []error {
	var errs []error
	if e := fmt.Sprint(ep["ScheduleExpression"]); !scheduleExpression.MatchString(e) {
		errs = append(errs, fmt.Errorf("ScheduleExpression %q is neither rate(n unit) nor a six-field cron(...)", e))
	}
	if rp, ok := ep["RetryPolicy"].(map[string]any); ok {
		if a, ok := number(rp["MaximumEventAgeInSeconds"]); ok && (a < 60 || a > 86400) {
			errs = append(errs, fmt.Errorf("RetryPolicy.MaximumEventAgeInSeconds %v outside 60-86400", a))
		}
		if n, ok := number(rp["MaximumRetryAttempts"]); ok && (n < 0 || n > 185) {
			errs = append(errs, fmt.Errorf("RetryPolicy.MaximumRetryAttempts %v outside 0-185", n))
		}
	}
	if _, named := ep["Name"]; ep["OmitName"] != true && !named {
		errs = append(errs, errors.New("neither Name nor OmitName: true; SAM names the schedule after the event, the same in every stack"))
	}
	if in, ok := ep["Input"].(string); ok && !json.Valid([]byte(in)) {
		errs = append(errs, fmt.Errorf("Input %q is not JSON", in))
	}
	return errs
}

func validPeriod(p float64) bool {
	return p == 10 || p == 20 || p == 30 || (p >= 60 && math.Mod(p, 60) == 0)
}

// number reads a property that must be a number once parameters are typed.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
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
// each broken copy of the template must be rejected, by the schema where it
// can tell, else by the stricter checks. The "by" column records which one
// catches it, so a schema that stops catching something fails the test
// rather than passing it to a check that may not exist.
func TestTemplateValidationRejectsBrokenCopies(t *testing.T) {
	fn := []string{"Resources", functionID}
	esm := []string{"Resources", "TableStreamMapping", "Properties"}
	tests := []struct {
		name   string
		by     string // "schema" or "stricter"
		mutate func(t *testing.T, tmpl map[string]any)
	}{
		{"unknown function property", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Runtimes"] = "provided.al2023"
		}},
		{"unknown event source mapping property", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["BatchSizes"] = 100
		}},
		{"FunctionName missing from the mapping", "schema", func(t *testing.T, m map[string]any) {
			delete(at(t, m, esm...), "FunctionName")
		}},
		{"serverless resource type misspelt", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, fn...)["Type"] = "AWS::Serverless::Functon"
		}},
		{"Runtime a number", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Runtime"] = 42
		}},
		{"TumblingWindowInSeconds a string", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["TumblingWindowInSeconds"] = "sixty"
		}},
		{"LoggingConfig property misspelt", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties", "LoggingConfig")...)["LogFormats"] = "Text"
		}},
		{"unknown alarm property", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "HotKeyCriticalAlarm", "Properties")["TreatMissingDatas"] = "notBreaching"
		}},
		{"queue property misspelt", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "DeadLetterQueue", "Properties")["MessageRetentionPeriods"] = 60
		}},
		{"CloudFormation resource type misspelt", "schema", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources")["Bucket"] = map[string]any{"Type": "AWS::S3::Buckett"}
		}},
		{"event type misspelt", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Events"] = map[string]any{"EveryMinute": map[string]any{
				"Type": "Schedulev2", "Properties": map[string]any{"ScheduleExpression": "rate(1 minute)"}}}
		}},
		{"Tracing not one of its values", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["Tracing"] = "Sometimes"
		}},
		{"MemorySize under Lambda's minimum", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, append(fn, "Properties")...)["MemorySize"] = int64(64)
		}},
		{"BatchSize over the mapping's limit", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["BatchSize"] = int64(20000)
		}},
		{"StartingPosition misspelt", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["StartingPosition"] = "NEWEST"
		}},
		{"tumbling window over 15 minutes", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, esm...)["TumblingWindowInSeconds"] = int64(901)
		}},
		{"alarm with both MetricName and Metrics", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "HotKeyWarningAlarm", "Properties")["MetricName"] = "HotKeys"
		}},
		{"alarm with two Metrics Insights queries", "stricter", func(t *testing.T, m map[string]any) {
			p := at(t, m, "Resources", "HotKeyByKeyAlarm", "Properties")
			q := maps.Clone(p["Metrics"].([]any)[0].(map[string]any))
			q["Id"], q["ReturnData"] = "again", false
			p["Metrics"] = append(p["Metrics"].([]any), q)
		}},
		{"alarm period not a multiple of a minute", "stricter", func(t *testing.T, m map[string]any) {
			at(t, m, "Resources", "MalformedRecordsAlarm", "Properties")["Period"] = int64(90)
		}},
		{"IAM Sid with a dash", "stricter", func(t *testing.T, m map[string]any) {
			doc := at(t, m, "Resources", "HotKeysFunctionRole", "Properties", "AssumeRolePolicyDocument")
			doc["Statement"].([]any)[0].(map[string]any)["Sid"] = "Assume-Role"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := readTemplate(t)
			tt.mutate(t, broken)
			s := deploy(t, broken, nil)
			schemaErrs, stricterErrs := validateResources(t, s), stricterChecks(s)
			switch {
			case tt.by == "schema" && len(schemaErrs) == 0:
				t.Errorf("the schema accepts a template with %s (stricter checks: %v)", tt.name, stricterErrs)
			case tt.by == "stricter" && len(schemaErrs) > 0:
				t.Errorf("the schema now catches %s: move it to the schema's cases, and drop the stricter check if nothing else needs it: %v", tt.name, schemaErrs)
			case tt.by == "stricter" && len(stricterErrs) == 0:
				t.Errorf("nothing rejects a template with %s", tt.name)
			}
		})
	}
}

// allStatements returns every policy statement of every resource the stack
// creates.
func allStatements(s *cfn.Stack) []policyStatement {
	var out []policyStatement
	for _, id := range slices.Sorted(maps.Keys(s.Template()["Resources"].(map[string]any))) {
		if r, err := s.Resource(id); err == nil && r != nil {
			out = append(out, statements(id, r)...)
		}
	}
	return out
}
