package cfn

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Condition returns the value of one of the template's conditions for this
// stack.
func (s *Stack) Condition(name string) (bool, error) { return s.condition(name, nil) }

// ConditionsOf returns, sorted, the conditions that decide v (a resource, an
// output, any part of a template): those a Condition key or an Fn::If names
// in it, those of the resources it refers to (whether they exist), and those
// these conditions refer to in turn. Two stacks on which these conditions
// agree render v alike, up to the parameter values it substitutes.
func ConditionsOf(template map[string]any, v any) ([]string, error) {
	seen := map[string]bool{}
	var walk func(v any) error
	add := func(name string) error {
		if seen[name] {
			return nil
		}
		conds, _ := template["Conditions"].(map[string]any)
		def, ok := conds[name]
		if !ok {
			return fmt.Errorf("no condition %s", name)
		}
		seen[name] = true
		return walk(def)
	}
	resources, _ := template["Resources"].(map[string]any)
	refersTo := func(id string) error {
		r, ok := resources[id].(map[string]any)
		if !ok {
			return nil // a parameter or a pseudo parameter
		}
		if c, ok := r["Condition"].(string); ok {
			return add(c)
		}
		return nil
	}
	walk = func(v any) error {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if err := visit(k, v[k], add, refersTo); err != nil {
					return err
				}
				if err := walk(v[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// visit handles the one key of a map that can name a condition or a
// resource: Condition (a resource's, or the condition function), Fn::If,
// Ref, Fn::GetAtt and Fn::Sub.
func visit(key string, arg any, condition, resource func(string) error) error {
	name, isString := arg.(string)
	if !isString {
		name, isString = firstString(arg)
	}
	switch {
	case !isString:
	case key == "Condition":
		if _, ok := arg.(string); ok { // an IAM statement's Condition is a map
			return condition(name)
		}
	case key == "Fn::If":
		return condition(name)
	case key == "Ref" || key == "Fn::GetAtt":
		return resource(name)
	case key == "Fn::Sub": // a string, or [string, variables]
		for _, m := range SubVariable.FindAllStringSubmatch(name, -1) {
			id, _, _ := strings.Cut(m[1], ".")
			if err := resource(id); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstString returns the first element of a list argument, when it is a
// string.
func firstString(arg any) (string, bool) {
	args, _ := arg.([]any)
	if len(args) == 0 {
		return "", false
	}
	s, ok := args[0].(string)
	return s, ok
}

// ParametersOf returns, sorted, the parameters that the named conditions
// (and the conditions they refer to) read.
func ParametersOf(template map[string]any, conditions []string) []string {
	params, _ := template["Parameters"].(map[string]any)
	conds, _ := template["Conditions"].(map[string]any)
	found := map[string]bool{}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				name, _ := e.(string)
				switch {
				case k == "Ref" && params[name] != nil:
					found[name] = true
				case k == "Condition" && name != "" && !seen[name]:
					seen[name] = true
					walk(conds[name])
				}
				walk(e)
			}
		}
	}
	for _, c := range conditions {
		seen[c] = true
		walk(conds[c])
	}
	return slices.Sorted(maps.Keys(found))
}

// Scenario is one way a stack can turn out: parameter values, and the
// values they give the conditions of interest.
type Scenario struct {
	Values     map[string]string
	Conditions map[string]bool
}

// String names a scenario by its conditions: "A=true B=false".
func (sc Scenario) String() string {
	var b strings.Builder
	for i, name := range slices.Sorted(maps.Keys(sc.Conditions)) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", name, sc.Conditions[name])
	}
	return b.String()
}

// maxCombinations bounds the parameter combinations Scenarios tries.
const maxCombinations = 1 << 12

// Scenarios returns one Scenario for every combination of the values of the
// named conditions that parameter values can reach, ordered by those
// values. It tries every combination of candidate values for the parameters
// the conditions read: a parameter's AllowedValues when it declares them,
// else its Default and the values samples gives for it. A parameter with
// neither AllowedValues nor samples is an error, so that a new condition on
// a free-form parameter cannot go untried. base gives the values of the
// other parameters (those without a default). Of the combinations that
// reach the same values, the first tried is kept.
func Scenarios(template map[string]any, base map[string]string, samples map[string][]string, conditions []string) ([]Scenario, error) {
	names := ParametersOf(template, conditions)
	candidates, combinations, err := candidateValues(template, names, samples, conditions)
	if err != nil {
		return nil, err
	}
	found := map[string]Scenario{}
	pick := make([]int, len(names))
	for range combinations {
		values := maps.Clone(base)
		if values == nil {
			values = map[string]string{}
		}
		for i, name := range names {
			values[name] = candidates[i][pick[i]]
		}
		s, err := NewStack(template, values)
		if err != nil {
			return nil, err
		}
		sc := Scenario{Values: values, Conditions: map[string]bool{}}
		for _, c := range conditions {
			if sc.Conditions[c], err = s.Condition(c); err != nil {
				return nil, err
			}
		}
		if _, dup := found[sc.String()]; !dup {
			found[sc.String()] = sc
		}
		// The next combination: an odometer over the candidates.
		for i := range pick {
			if pick[i]++; pick[i] < len(candidates[i]) {
				break
			}
			pick[i] = 0
		}
	}
	out := make([]Scenario, 0, len(found))
	for _, k := range slices.Sorted(maps.Keys(found)) {
		out = append(out, found[k])
	}
	return out, nil
}

// candidateValues returns the values Scenarios tries for each parameter of
// names: its AllowedValues, or else its default and its samples; and how
// many combinations they make, at most maxCombinations.
func candidateValues(template map[string]any, names []string, samples map[string][]string, conditions []string) ([][]string, int, error) {
	params, _ := template["Parameters"].(map[string]any)
	candidates := make([][]string, len(names))
	combinations := 1
	for i, name := range names {
		decl, _ := params[name].(map[string]any)
		if allowed, ok := decl["AllowedValues"].([]any); ok {
			for _, a := range allowed {
				candidates[i] = append(candidates[i], ScalarString(a))
			}
		} else {
			if len(samples[name]) == 0 {
				return nil, 0, fmt.Errorf("parameter %s, which conditions %v read, has no AllowedValues: give sample values for it", name, conditions)
			}
			if d, ok := decl["Default"]; ok {
				candidates[i] = append(candidates[i], ScalarString(d))
			}
			for _, v := range samples[name] {
				if !slices.Contains(candidates[i], v) {
					candidates[i] = append(candidates[i], v)
				}
			}
		}
		if combinations *= len(candidates[i]); combinations > maxCombinations {
			return nil, 0, fmt.Errorf("conditions %v read parameters %v: more than %d combinations of their values", conditions, names, maxCombinations)
		}
	}
	return candidates, combinations, nil
}
