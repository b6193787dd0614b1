package cfn

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
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

// HasResource reports whether the template declares a resource id, whatever
// its condition.
func (s *Stack) HasResource(id string) bool {
	res, _ := s.template["Resources"].(map[string]any)
	_, ok := res[id]
	return ok
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
