package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
)

// Where a parameter's value came from, for the header the invoke prints.
const (
	fromTemplate = "template default"
	fromLocal    = "local default"
	fromOverride = "parameter-overrides"
	fromEvent    = "the event's stream"
)

// param is one template parameter as this invoke sets it.
type param struct {
	name, value, from, why string
}

// Stand-ins for what exists only once the stack is deployed.
const (
	localAccount      = "123456789012"
	localHistoryTable = "hotkeys-history"
	localFunctionName = "hotkeys-HotKeysFunction-local"
)

// invocation is one prepared invoke: the event and the function's
// environment.
type invocation struct {
	o        options
	event    []byte
	params   []param
	env      map[string]string // template.yaml's Environment.Variables, evaluated
	paramOf  map[string]string // variable -> the parameter it is a Ref of
	timeout  string            // seconds
	memoryMB string
	region   string
	secret   *localSecret // with KeyRedaction=hash
}

// localSecret is the key-redaction secret the local Secrets Manager holds.
type localSecret struct {
	arn, value string
	random     bool
}

// prepare reads the event and the template, and checks every choice that
// can be checked before the function runs.
func prepare(o options) (*invocation, error) {
	if o.event == "" {
		return nil, errors.New("no event: give one with EVENT=events/<file>.json (make) or -event FILE; docs/events.md lists the samples")
	}
	event, err := os.ReadFile(o.event)
	if err != nil {
		return nil, fmt.Errorf("the event: %w", err)
	}
	if len(event) > rie.MaxPayloadBytes {
		return nil, fmt.Errorf("the event %s is %d bytes, over %d: Lambda refuses an invocation over 6 MB, and the event source mapping never sends a larger batch (the emulator would cut it at about 6,291,456 bytes and pass the rest on)",
			o.event, len(event), rie.MaxPayloadBytes)
	}
	if o.state != "" {
		if event, err = withState(event, o.state); err != nil {
			return nil, err
		}
	}
	overrides, err := parseOverrides(o.params)
	if err != nil {
		return nil, err
	}
	inv := &invocation{o: o, event: event}
	if err := inv.resolve(overrides); err != nil {
		return nil, err
	}
	return inv, nil
}

// parseOverrides reads --parameter-overrides as sam local invoke takes it:
// Name=Value pairs, or ParameterKey=Name,ParameterValue=Value, separated by
// spaces. A later value of a name wins.
func parseOverrides(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, tok := range strings.Fields(s) {
		name, value, ok := strings.Cut(tok, "=")
		if name == "ParameterKey" {
			k, v, ok2 := strings.Cut(value, ",ParameterValue=")
			name, value, ok = k, v, ok2
		}
		if !ok || name == "" {
			return nil, fmt.Errorf("PARAMS: %q: want Name=Value (a value with spaces cannot be given here)", tok)
		}
		out[name] = value
	}
	return out, nil
}

// resolve evaluates the template for the parameters: defaults, then the
// local defaults that keep the invoke off AWS, then the overrides; and
// StreamArn, which has no default, from the event.
func (inv *invocation) resolve(overrides map[string]string) error {
	raw, err := os.ReadFile(inv.o.template)
	if err != nil {
		return fmt.Errorf("the template: %w", err)
	}
	tmpl, err := cfn.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", inv.o.template, err)
	}
	decls, _ := tmpl["Parameters"].(map[string]any)
	names := slices.Sorted(maps.Keys(decls))
	for name := range overrides {
		if _, ok := decls[name]; !ok {
			return fmt.Errorf("PARAMS: %s is not a parameter of %s; its parameters are %s", name, inv.o.template, strings.Join(names, ", "))
		}
	}
	local := map[string]param{
		"MetricsMode":    {value: "emf", why: "no CloudWatch here: the metrics are the EMF lines below"},
		"NotifyTopicArn": {value: "off", why: "no SNS here: the onset log lines below name the key"},
	}
	if inv.o.dynamoDB == "" {
		local["IndexAnalysis"] = param{value: "off", why: "no DescribeTable without DYNAMODB"}
	}
	if v, ok := overrides["MetricsMode"]; ok && (v == "api" || v == "both") {
		return fmt.Errorf("PARAMS: MetricsMode=%s would call CloudWatch's PutMetricData, which make invoke never calls (no AWS account): use emf (its default here, the same metrics as EMF lines) or off, or sam local invoke with an account", v)
	}
	values := map[string]string{}
	for _, name := range names {
		p := param{name: name, from: fromTemplate}
		if d, ok := decls[name].(map[string]any)["Default"]; ok {
			p.value = cfn.ScalarString(d)
		}
		if l, ok := local[name]; ok {
			p.value, p.from, p.why = l.value, fromLocal, l.why
		}
		if v, ok := overrides[name]; ok {
			p.value, p.from, p.why = v, fromOverride, ""
		}
		if name == "StreamArn" && p.from == fromTemplate {
			p.value, p.from = streamOf(inv.event), fromEvent
		}
		if err := checkParam(name, p.value, decls[name]); err != nil {
			return fmt.Errorf("%s: %w", p.from, err)
		}
		values[name] = p.value
		inv.params = append(inv.params, p)
	}
	stack, err := cfn.NewStack(tmpl, values)
	if err != nil {
		return fmt.Errorf("%s: %w", inv.o.template, err)
	}
	return inv.environment(stack)
}

// placeholderStream stands for the stream when the event names none (a
// payload that is not a stream batch).
const placeholderStream = "arn:aws:dynamodb:us-east-1:" + localAccount + ":table/NoTable/stream/2026-01-01T00:00:00.000"

// streamOf returns the eventSourceARN of the event's first record.
func streamOf(event []byte) string {
	var ev struct {
		Records []struct {
			ARN string `json:"eventSourceARN"`
		}
	}
	if json.Unmarshal(event, &ev) == nil && len(ev.Records) > 0 && ev.Records[0].ARN != "" {
		return ev.Records[0].ARN
	}
	return placeholderStream
}

// checkParam applies the constraints CloudFormation checks at deploy time
// (sam local invoke does not): AllowedValues, AllowedPattern, MinLength,
// MaxLength, MinValue, MaxValue and, for a Number, that it is one.
func checkParam(name, v string, decl any) error {
	d, _ := decl.(map[string]any)
	bad := func(format string, args ...any) error {
		msg := fmt.Sprintf("%s=%q: %s", name, v, fmt.Sprintf(format, args...))
		if desc, ok := d["Description"].(string); ok {
			msg += " (" + name + ": " + firstSentence(desc) + ")"
		}
		return errors.New(msg)
	}
	if allowed, ok := d["AllowedValues"].([]any); ok {
		var vals []string
		for _, a := range allowed {
			vals = append(vals, cfn.ScalarString(a))
		}
		if !slices.Contains(vals, v) {
			return bad("want one of %s", strings.Join(vals, ", "))
		}
	}
	if pat, ok := d["AllowedPattern"].(string); ok {
		// CloudFormation's patterns are Java's; the template's are RE2 too.
		if re, err := regexp.Compile("^(?:" + pat + ")$"); err == nil && !re.MatchString(v) {
			if c, ok := d["ConstraintDescription"].(string); ok {
				return bad("%s", strings.Join(strings.Fields(c), " "))
			}
			return bad("does not match %s", pat)
		}
	}
	for _, lim := range []struct {
		key  string
		fail func(n float64) bool
		what string
	}{
		{"MinLength", func(n float64) bool { return float64(len(v)) < n }, "shorter than"},
		{"MaxLength", func(n float64) bool { return float64(len(v)) > n }, "longer than"},
	} {
		if n, ok := number(d[lim.key]); ok && lim.fail(n) {
			return bad("%s %g characters", lim.what, n)
		}
	}
	if d["Type"] != "Number" {
		return nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return bad("not a number")
	}
	if n, ok := number(d["MinValue"]); ok && x < n {
		return bad("under its MinValue %g", n)
	}
	if n, ok := number(d["MaxValue"]); ok && x > n {
		return bad("over its MaxValue %g", n)
	}
	return nil
}

// firstSentence returns the first sentence of a description, at most about
// 120 characters of it.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 120 {
		s = s[:strings.LastIndex(s[:120], " ")] + " …"
	}
	return s
}

// number reads a constraint of the template (MinValue, MaxLength, …).
func number(v any) (float64, bool) {
	if v == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(cfn.ScalarString(v), 64)
	return n, err == nil
}

// environment takes the function's environment, timeout and memory from the
// evaluated template, and puts local stand-ins for the resources that exist
// only once deployed.
func (inv *invocation) environment(stack *cfn.Stack) error {
	fn, err := stack.Resource(inv.o.function)
	if err != nil || fn == nil {
		return fmt.Errorf("%s: no function %s (%v)", inv.o.template, inv.o.function, err)
	}
	props, _ := fn["Properties"].(map[string]any)
	vars, _ := dig(props, "Environment", "Variables").(map[string]any)
	inv.env = map[string]string{}
	for k, v := range vars {
		inv.env[k] = cfn.ScalarString(v)
	}
	// Which variable is which parameter, from the template as written, so
	// that an error naming a variable can name what to override.
	inv.paramOf = map[string]string{}
	written, _ := dig(stack.Template(), "Resources", inv.o.function, "Properties", "Environment", "Variables").(map[string]any)
	for k, v := range written {
		if ref, ok := dig(v, "Ref").(string); ok {
			inv.paramOf[k] = ref
		}
	}
	inv.timeout, inv.memoryMB = "3", "128" // Lambda's defaults
	if v, ok := props["Timeout"]; ok {
		inv.timeout = cfn.ScalarString(v)
	}
	if v, ok := props["MemorySize"]; ok {
		inv.memoryMB = cfn.ScalarString(v)
	}
	if f := strings.Split(stack.Param("StreamArn"), ":"); len(f) > 3 && f[3] != "" {
		inv.region = f[3]
	} else {
		inv.region = "us-east-1"
	}
	for k, v := range inv.env {
		switch v {
		case cfn.Ref("KeyRedactionSecret"):
			inv.env[k] = "arn:aws:secretsmanager:" + inv.region + ":" + localAccount + ":secret:hotkeys-key-redaction-local0"
		case cfn.Ref("HistoryTable"):
			inv.env[k] = localHistoryTable
		case cfn.Ref("AlarmTopic"):
			// NotifyTopicArn=alarm-topic: a publish is answered
			// AccessDenied here, which the function logs and counts.
			inv.env[k] = "arn:aws:sns:" + inv.region + ":" + localAccount + ":hotkeys-alarms-local"
		default:
			if strings.HasPrefix(v, "ref(") || strings.HasPrefix(v, "getatt(") {
				return fmt.Errorf("%s gives %s the value %s, a resource that exists only once deployed, for which make invoke has no local stand-in", inv.o.template, k, v)
			}
		}
	}
	if arn := inv.env["HOTKEYS_KEY_REDACTION_SECRET_ARN"]; arn != "" && inv.env["HOTKEYS_KEY_REDACTION"] == "hash" {
		inv.secret = &localSecret{arn: arn, value: inv.o.redactionSecret}
		if !inv.o.redactionSecretWasSet {
			inv.secret.value, inv.secret.random = randomSecret(), true
		}
	}
	return nil
}

// dig walks nested maps.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// withState puts the state of a previous response into a tumbling-window
// event, as the event source mapping carries it from one invocation of a
// window to the next.
func withState(event []byte, file string) ([]byte, error) {
	prev, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("STATE: %w", err)
	}
	var resp struct {
		State *map[string]string `json:"state"`
	}
	if err := json.Unmarshal(prev, &resp); err != nil || resp.State == nil {
		return nil, fmt.Errorf("STATE=%s: not a tumbling-window response (a JSON object with a \"state\" object): %.120q", file, prev)
	}
	var ev map[string]json.RawMessage
	if err := json.Unmarshal(event, &ev); err != nil {
		return nil, fmt.Errorf("STATE: the event is not a JSON object: %w", err)
	}
	if _, ok := ev["window"]; !ok {
		return nil, errors.New("STATE: the event has no \"window\": state is carried between the batches of a tumbling window only (events/tumbling-window-*.json)")
	}
	if ev["state"], err = json.Marshal(*resp.State); err != nil {
		return nil, err
	}
	return json.Marshal(ev)
}
