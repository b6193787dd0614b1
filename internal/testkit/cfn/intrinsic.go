package cfn

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The intrinsic functions, as CloudFormation evaluates them: Eval walks a
// value, intrinsic evaluates one function, and the condition functions
// give the booleans Fn::If and a resource's Condition test.

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

// intrinsic evaluates the intrinsic function fn of argument arg: a flat
// dispatch, one case per function.
func (s *Stack) intrinsic(fn string, arg any) (any, error) {
	args, _ := arg.([]any)
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return s.ref(name)
	case "Fn::GetAtt":
		return s.getAtt(args)
	case "Fn::Sub":
		return s.sub(arg)
	case "Fn::Join":
		return s.join(args)
	case "Fn::Split":
		return s.split(args)
	case "Fn::Select":
		return s.selectItem(args)
	case "Fn::If":
		return s.ifThen(args)
	}
	return nil, fmt.Errorf("not supported by the test evaluator")
}

// getAtt evaluates Fn::GetAtt [resource, attribute] to its symbol.
func (s *Stack) getAtt(args []any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("want [resource, attribute]")
	}
	id, _ := args[0].(string)
	attribute, _ := args[1].(string)
	if !s.HasResource(id) {
		return nil, fmt.Errorf("no resource %s", id)
	}
	return GetAtt(id, attribute), nil
}

// join evaluates Fn::Join [delimiter, list].
func (s *Stack) join(args []any) (any, error) {
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
}

// split evaluates Fn::Split [delimiter, string].
func (s *Stack) split(args []any) (any, error) {
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
}

// selectItem evaluates Fn::Select [index, list].
func (s *Stack) selectItem(args []any) (any, error) {
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
}

// ifThen evaluates Fn::If [condition, then, else].
func (s *Stack) ifThen(args []any) (any, error) {
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
