package cfn

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Stack evaluates the intrinsic functions of a parsed template the way
// CloudFormation would for one set of parameter values, so that tests can
// check what a deployment actually gets (the table name cut out of the
// stream ARN, the threshold an alarm compares with, the Metrics Insights
// query a dashboard runs) rather than the template's text.
//
// What exists only after deployment stays symbolic: Ref of a resource is
// "ref(LogicalId)" and Fn::GetAtt is "getatt(LogicalId.Attribute)".
type Stack struct {
	template   map[string]any
	params     map[string]string
	conditions map[string]bool
	numbers    map[string]bool // parameters whose Ref yields a number (TypedNumbers)
}

// Pseudo-parameter values used by evaluations.
const (
	Region    = "eu-west-1"
	Account   = "123456789012"
	StackName = "hotkeys-test"
)

// noValue is what Ref AWS::NoValue evaluates to; evaluation drops it from
// the enclosing list or map, as CloudFormation does.
type noValueType struct{}

var noValue = noValueType{}

// Ref is what Ref of a resource evaluates to: a symbol, since the physical
// id exists only once the stack is deployed.
func Ref(id string) string { return "ref(" + id + ")" }

// GetAtt is what Fn::GetAtt evaluates to, for the same reason.
func GetAtt(id, attribute string) string { return "getatt(" + id + "." + attribute + ")" }

// NewStack resolves the parameters (defaults overridden by values) and the
// template's conditions.
func NewStack(template map[string]any, values map[string]string) (*Stack, error) {
	s := &Stack{template: template, params: map[string]string{}, conditions: map[string]bool{}}
	params, _ := template["Parameters"].(map[string]any)
	for name, p := range params {
		decl, _ := p.(map[string]any)
		if v, ok := values[name]; ok {
			s.params[name] = v
			continue
		}
		d, ok := decl["Default"]
		if !ok {
			return nil, fmt.Errorf("parameter %s has no default and no value", name)
		}
		s.params[name] = ScalarString(d)
	}
	for name := range values {
		if _, ok := params[name]; !ok {
			return nil, fmt.Errorf("no parameter %s", name)
		}
	}
	conds, _ := template["Conditions"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(conds)) {
		if _, err := s.condition(name, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ScalarString renders a YAML scalar as CloudFormation passes parameter
// values: as a string.
func ScalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

func (s *Stack) condition(name string, seen []string) (bool, error) {
	if v, ok := s.conditions[name]; ok {
		return v, nil
	}
	if slices.Contains(seen, name) {
		return false, fmt.Errorf("condition %s refers to itself", name)
	}
	conds, _ := s.template["Conditions"].(map[string]any)
	def, ok := conds[name]
	if !ok {
		return false, fmt.Errorf("no condition %s", name)
	}
	v, err := s.evalBool(def, append(seen, name))
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	s.conditions[name] = v
	return v, nil
}

func (s *Stack) evalBool(v any, seen []string) (bool, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false, fmt.Errorf("want a condition function, got %v", v)
	}
	for fn, arg := range m {
		args, _ := arg.([]any)
		switch fn {
		case "Condition":
			name, _ := arg.(string)
			return s.condition(name, seen)
		case "Fn::Equals":
			if len(args) != 2 {
				return false, fmt.Errorf("Fn::Equals wants 2 arguments")
			}
			a, err := s.evalString(args[0])
			if err != nil {
				return false, err
			}
			b, err := s.evalString(args[1])
			return a == b, err
		case "Fn::Not":
			if len(args) != 1 {
				return false, fmt.Errorf("Fn::Not wants 1 argument")
			}
			b, err := s.evalBool(args[0], seen)
			return !b, err
		case "Fn::And", "Fn::Or":
			if len(args) < 2 || len(args) > 10 {
				return false, fmt.Errorf("%s wants 2 to 10 arguments", fn)
			}
			and := fn == "Fn::And"
			for _, a := range args {
				b, err := s.evalBool(a, seen)
				if err != nil {
					return false, err
				}
				if b != and {
					return b, nil
				}
			}
			return and, nil
		}
		return false, fmt.Errorf("%s is not a condition function", fn)
	}
	panic("unreachable")
}

func (s *Stack) evalString(v any) (string, error) {
	e, err := s.Eval(v)
	if err != nil {
		return "", err
	}
	switch e := e.(type) {
	case string:
		return e, nil
	case int64, float64, bool:
		return ScalarString(e), nil
	}
	return "", fmt.Errorf("want a string, got %T %v", e, e)
}

// Eval returns v with every intrinsic function evaluated.
func (s *Stack) Eval(v any) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			ev, err := s.Eval(e)
			if err != nil {
				return nil, err
			}
			if ev != noValue {
				out = append(out, ev)
			}
		}
		return out, nil
	case map[string]any:
		if len(v) == 1 {
			for fn, arg := range v {
				if fn == "Ref" || strings.HasPrefix(fn, "Fn::") {
					r, err := s.intrinsic(fn, arg)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", fn, err)
					}
					return r, nil
				}
			}
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			ev, err := s.Eval(e)
			if err != nil {
				return nil, fmt.Errorf("%s.%w", k, err)
			}
			if ev != noValue {
				out[k] = ev
			}
		}
		return out, nil
	}
	return v, nil
}

func (s *Stack) intrinsic(fn string, arg any) (any, error) {
	args, _ := arg.([]any)
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return s.ref(name)
	case "Fn::GetAtt":
		if len(args) != 2 {
			return nil, fmt.Errorf("want [resource, attribute]")
		}
		id, _ := args[0].(string)
		attribute, _ := args[1].(string)
		if !s.HasResource(id) {
			return nil, fmt.Errorf("no resource %s", id)
		}
		return GetAtt(id, attribute), nil
	case "Fn::Sub":
		return s.sub(arg)
	case "Fn::Join":
		if len(args) != 2 {
			return nil, fmt.Errorf("want [delimiter, list]")
		}
		list, err := s.Eval(args[1])
		if err != nil {
			return nil, err
		}
		items, ok := list.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list, got %T", list)
		}
		parts := make([]string, len(items))
		for i, it := range items {
			if parts[i], err = s.evalString(it); err != nil {
				return nil, err
			}
		}
		sep, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("want a string delimiter, got %T", args[0])
		}
		return strings.Join(parts, sep), nil
	case "Fn::Split":
		if len(args) != 2 {
			return nil, fmt.Errorf("want [delimiter, string]")
		}
		str, err := s.evalString(args[1])
		if err != nil {
			return nil, err
		}
		sep, ok := args[0].(string)
		if !ok || sep == "" {
			return nil, fmt.Errorf("want a non-empty string delimiter, got %v", args[0])
		}
		var out []any
		for _, p := range strings.Split(str, sep) {
			out = append(out, p)
		}
		return out, nil
	case "Fn::Select":
		if len(args) != 2 {
			return nil, fmt.Errorf("want [index, list]")
		}
		idx, err := s.evalString(args[0])
		if err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(idx)
		if err != nil {
			return nil, err
		}
		list, err := s.Eval(args[1])
		if err != nil {
			return nil, err
		}
		items, ok := list.([]any)
		if !ok || i < 0 || i >= len(items) {
			return nil, fmt.Errorf("index %d out of %v", i, list)
		}
		return items[i], nil
	case "Fn::If":
		if len(args) != 3 {
			return nil, fmt.Errorf("want [condition, then, else]")
		}
		name, _ := args[0].(string)
		c, err := s.condition(name, nil)
		if err != nil {
			return nil, err
		}
		if c {
			return s.Eval(args[1])
		}
		return s.Eval(args[2])
	}
	return nil, fmt.Errorf("not supported by the test evaluator")
}

// HasResource reports whether the template declares a resource id, whatever
// its condition.
func (s *Stack) HasResource(id string) bool {
	res, _ := s.template["Resources"].(map[string]any)
	_, ok := res[id]
	return ok
}

func (s *Stack) ref(name string) (any, error) {
	switch name {
	case "AWS::Region":
		return Region, nil
	case "AWS::AccountId":
		return Account, nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::StackName":
		return StackName, nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::NoValue":
		return noValue, nil
	}
	if v, ok := s.params[name]; ok {
		if s.numbers[name] || (s.numbers != nil && s.paramType(name) == "Number") {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n, nil
			}
			return strconv.ParseFloat(v, 64)
		}
		return v, nil
	}
	if s.HasResource(name) {
		return Ref(name), nil
	}
	return nil, fmt.Errorf("%s is neither a parameter nor a resource", name)
}

// SubVariable matches a ${...} reference in an Fn::Sub string.
var SubVariable = regexp.MustCompile(`\$\{([^}]*)\}`)

func (s *Stack) sub(arg any) (any, error) {
	var text string
	vars := map[string]string{}
	switch a := arg.(type) {
	case string:
		text = a
	case []any:
		if len(a) != 2 {
			return nil, fmt.Errorf("want string or [string, variables]")
		}
		text, _ = a[0].(string)
		m, _ := a[1].(map[string]any)
		for k, v := range m {
			str, err := s.evalString(v)
			if err != nil {
				return nil, fmt.Errorf("variable %s: %w", k, err)
			}
			vars[k] = str
		}
	default:
		return nil, fmt.Errorf("want string or [string, variables]")
	}
	var firstErr error
	out := SubVariable.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		if strings.HasPrefix(name, "!") {
			return "${" + name[1:] + "}"
		}
		if v, ok := vars[name]; ok {
			return v
		}
		if id, attribute, ok := strings.Cut(name, "."); ok && s.HasResource(id) {
			return GetAtt(id, attribute)
		}
		v, err := s.ref(name)
		if err == nil {
			var str string
			if str, err = s.evalString(v); err == nil {
				return str
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("${%s}: %w", name, err)
		}
		return m
	})
	return out, firstErr
}

// Resources returns the logical IDs of the resources of a type, sorted.
func (s *Stack) Resources(typ string) []string {
	res, _ := s.template["Resources"].(map[string]any)
	var ids []string
	for id, r := range res {
		if m, _ := r.(map[string]any); m["Type"] == typ {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Resource returns a resource with its properties evaluated, or nil when it
// has a condition that is false.
func (s *Stack) Resource(id string) (map[string]any, error) {
	res, _ := s.template["Resources"].(map[string]any)
	r, ok := res[id].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no resource %s", id)
	}
	if c, ok := r["Condition"].(string); ok {
		if on, err := s.condition(c, nil); err != nil || !on {
			return nil, err
		}
	}
	e, err := s.Eval(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	return e.(map[string]any), nil
}

// Template returns the parsed template the stack evaluates, unevaluated.
func (s *Stack) Template() map[string]any { return s.template }

// Param returns a parameter's value for this stack: the value given to
// NewStack, or the parameter's default.
func (s *Stack) Param(name string) string { return s.params[name] }

// TypedNumbers returns a copy of s in which Ref of a parameter of Type
// Number, or of one of the named parameters (Strings whose AllowedPattern
// admits only numbers), yields an int64 or a float64: the number a resource
// property that takes one ends up with. CloudFormation passes every
// parameter value around as a string, a Number's included, and converts it
// where a property's type is a number. Schema validation needs the number;
// tests that compare rendered values need not.
func (s *Stack) TypedNumbers(params ...string) *Stack {
	c := *s
	c.numbers = map[string]bool{}
	for _, p := range params {
		c.numbers[p] = true
	}
	return &c
}

func (s *Stack) paramType(name string) string {
	params, _ := s.template["Parameters"].(map[string]any)
	decl, _ := params[name].(map[string]any)
	t, _ := decl["Type"].(string)
	return t
}

// Outputs returns the template's outputs as this stack has them: evaluated,
// without those whose Condition is false, as CloudFormation leaves them out.
func (s *Stack) Outputs() (map[string]any, error) {
	decl, _ := s.template["Outputs"].(map[string]any)
	out := map[string]any{}
	for name, o := range decl {
		m, _ := o.(map[string]any)
		if c, ok := m["Condition"].(string); ok {
			on, err := s.condition(c, nil)
			if err != nil {
				return nil, fmt.Errorf("output %s: %w", name, err)
			}
			if !on {
				continue
			}
		}
		e, err := s.Eval(o)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", name, err)
		}
		out[name] = e
	}
	return out, nil
}
