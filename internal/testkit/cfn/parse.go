// Package cfn reads AWS CloudFormation (and SAM) templates for tests: it
// parses YAML with CloudFormation's short-form tags into the JSON form
// CloudFormation works on, and evaluates intrinsic functions for one set of
// parameter values, so that a test can check what a deployment gets rather
// than the template's text. It evaluates what template.yaml uses, and
// returns an error for anything else, never a guess.
package cfn

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse reads a CloudFormation (SAM) template written in YAML and
// returns its JSON form: maps, slices, strings, bools, nil, int64 and float64.
// The short-form tags (!Ref, !GetAtt, !Sub, ...) become the long forms that
// CloudFormation, the schemas and Stack know ({"Ref": x},
// {"Fn::GetAtt": [resource, attribute]}, {"Fn::Sub": ...}).
//
// It refuses what CloudFormation would read differently from yaml.v3: a
// duplicate key, a merge key, and a plain scalar such as off or yes, which
// YAML 1.1 parsers (CloudFormation's among them) take for a boolean.
func Parse(data []byte) (map[string]any, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	var more yaml.Node
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || dec.Decode(&more) != io.EOF {
		return nil, fmt.Errorf("template: want one YAML document")
	}
	v, err := fromNode(doc.Content[0])
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("template: top level is %T, want a mapping", v)
	}
	return m, nil
}

// shortTags maps each CloudFormation short-form tag to its long form.
var shortTags = map[string]string{
	"!Ref":          "Ref",
	"!Condition":    "Condition",
	"!GetAtt":       "Fn::GetAtt",
	"!Sub":          "Fn::Sub",
	"!Select":       "Fn::Select",
	"!Split":        "Fn::Split",
	"!Join":         "Fn::Join",
	"!If":           "Fn::If",
	"!Equals":       "Fn::Equals",
	"!Not":          "Fn::Not",
	"!And":          "Fn::And",
	"!Or":           "Fn::Or",
	"!FindInMap":    "Fn::FindInMap",
	"!Base64":       "Fn::Base64",
	"!Cidr":         "Fn::Cidr",
	"!GetAZs":       "Fn::GetAZs",
	"!ImportValue":  "Fn::ImportValue",
	"!Transform":    "Fn::Transform",
	"!Length":       "Fn::Length",
	"!ToJsonString": "Fn::ToJsonString",
}

// yaml11Booleans are the plain scalars that YAML 1.1 reads as booleans and
// YAML 1.2 (yaml.v3) as strings.
var yaml11Booleans = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true,
}

// fromNode converts a YAML node to plain Go values (maps, slices,
// scalars), with the short forms of intrinsic functions in their long form.
func fromNode(n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		return fromNode(n.Alias)
	}
	if n.Tag != "" && strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return fromShortTag(n)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return fromMapping(n)
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, fmt.Errorf("template line %d: unexpected YAML node kind %v", n.Line, n.Kind)
}

// fromShortTag reads a node tagged with an intrinsic function's short
// form (!Ref, !Sub, !GetAtt, ...) as the long form's one-key mapping.
func fromShortTag(n *yaml.Node) (any, error) {
	long, ok := shortTags[n.Tag]
	if !ok {
		return nil, fmt.Errorf("template line %d: unknown tag %s", n.Line, n.Tag)
	}
	var arg any
	switch {
	case n.Kind == yaml.ScalarNode && long == "Fn::GetAtt":
		resource, attribute, ok := strings.Cut(n.Value, ".")
		if !ok {
			return nil, fmt.Errorf("template line %d: !GetAtt %q: want Resource.Attribute", n.Line, n.Value)
		}
		arg = []any{resource, attribute}
	case n.Kind == yaml.ScalarNode:
		arg = n.Value
	default:
		c := *n
		c.Tag = ""
		v, err := fromNode(&c)
		if err != nil {
			return nil, err
		}
		arg = v
	}
	return map[string]any{long: arg}, nil
}

// fromMapping reads a mapping, refusing what CloudFormation refuses: keys
// that are not scalars, merge keys, and a key given twice.
func fromMapping(n *yaml.Node) (map[string]any, error) {
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("template line %d: mapping key is not a scalar", n.Line)
		}
		if k.Value == "<<" && k.Style == 0 {
			return nil, fmt.Errorf("template line %d: merge keys are not CloudFormation", n.Line)
		}
		if _, dup := m[k.Value]; dup {
			return nil, fmt.Errorf("template line %d: duplicate key %q", k.Line, k.Value)
		}
		v, err := fromNode(vn)
		if err != nil {
			return nil, err
		}
		m[k.Value] = v
	}
	return m, nil
}

func scalar(n *yaml.Node) (any, error) {
	plain := n.Style == 0
	if plain && yaml11Booleans[strings.ToLower(n.Value)] {
		return nil, fmt.Errorf("template line %d: plain %q is a boolean to YAML 1.1 and a string to YAML 1.2: quote it", n.Line, n.Value)
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		return strconv.ParseBool(strings.ToLower(n.Value))
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, fmt.Errorf("template line %d: %w", n.Line, err)
		}
		return i, nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, fmt.Errorf("template line %d: %w", n.Line, err)
		}
		return f, nil
	}
	// Strings, and timestamps, which CloudFormation keeps as written.
	return n.Value, nil
}
