package cfn

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLongForms(t *testing.T) {
	tests := []struct {
		name, doc string
		want      map[string]any
	}{
		{"scalars keep their YAML types", "A: 1\nB: 1.5\nC: true\nD: ~\nE: text\nF: 'off'\n",
			map[string]any{"A": int64(1), "B": 1.5, "C": true, "D": nil, "E": "text", "F": "off"}},
		{"GetAtt splits at the first dot", "A: !GetAtt Fn.Arn\nB: !GetAtt Q.Attr.Sub\n",
			map[string]any{"A": map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}}, "B": map[string]any{"Fn::GetAtt": []any{"Q", "Attr.Sub"}}}},
		{"Sub with variables", "B: !Sub [\"${X}\", {X: !Ref Y}]\n",
			map[string]any{"B": map[string]any{"Fn::Sub": []any{"${X}", map[string]any{"X": map[string]any{"Ref": "Y"}}}}}},
		{"condition functions nest", "C: !And [!Equals [a, b], !Not [!Condition D]]\n",
			map[string]any{"C": map[string]any{"Fn::And": []any{
				map[string]any{"Fn::Equals": []any{"a", "b"}},
				map[string]any{"Fn::Not": []any{map[string]any{"Condition": "D"}}},
			}}}},
		{"If, Join, Select, Split", "I: !If [C, !Join [',', [a, b]], !Select [0, !Split ['/', 'x/y']]]\n",
			map[string]any{"I": map[string]any{"Fn::If": []any{"C",
				map[string]any{"Fn::Join": []any{",", []any{"a", "b"}}},
				map[string]any{"Fn::Select": []any{int64(0), map[string]any{"Fn::Split": []any{"/", "x/y"}}}},
			}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

// TestParseRefusesAmbiguousYAML checks the guards that keep the tests
// reading a template the way CloudFormation does.
func TestParseRefusesAmbiguousYAML(t *testing.T) {
	for _, doc := range []string{
		"A: 1\nA: 2\n",                 // duplicate key
		"Mode: off\n",                  // YAML 1.1 boolean
		"Mode: yes\n",                  // YAML 1.1 boolean
		"X: !Bogus y\n",                // unknown tag
		"X: !GetAtt NoAttribute\n",     // !GetAtt without .Attribute
		"B: &b {x: 1}\nC:\n  <<: *b\n", // merge key
		"- a\n- b\n",                   // not a map
		"A: 1\n---\nB: 2\n",            // two documents
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", doc)
		}
	}
}
