package cfn

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testTemplate = `
Parameters:
  Name: {Type: String, Default: orders}
  Size: {Type: Number, Default: 128}
  Ratio: {Type: Number, Default: 0.25}
  Count: {Type: String, Default: "7", AllowedPattern: "^[0-9]+$"}
  Email: {Type: String, Default: ""}
  Arn: {Type: String}
Conditions:
  HasEmail: !Not [!Equals [!Ref Email, ""]]
  Big: !Equals [!Ref Size, "1024"]
  Both: !And [!Condition HasEmail, !Condition Big]
  Either: !Or [!Condition HasEmail, !Condition Big]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      MemorySize: !Ref Size
      Ratio: !Ref Ratio
      Count: !Ref Count
      Name: !Sub ${Name}-fn
      Escaped: !Sub ${!Literal}-${AWS::Region}
      Vars: !Sub ["${A}/${Fn.Arn}", {A: !Ref Name}]
      Table: !Select [1, !Split ["/", !Ref Arn]]
      Joined: !Join [":", [a, !Ref Name, !Ref AWS::AccountId]]
      Role: !GetAtt Role.Arn
      Queue: !Ref Role
      Maybe: !If [HasEmail, !Ref Email, !Ref AWS::NoValue]
      List: [a, !If [Big, b, !Ref AWS::NoValue], c]
  Role:
    Type: AWS::IAM::Role
  Sub:
    Type: AWS::SNS::Subscription
    Condition: HasEmail
    Properties:
      Endpoint: !Ref Email
`

func stack(t *testing.T, values map[string]string) *Stack {
	t.Helper()
	tmpl, err := Parse([]byte(testTemplate))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStack(tmpl, values)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStackEvaluatesResources(t *testing.T) {
	s := stack(t, map[string]string{"Arn": "arn:aws:dynamodb:r:a:table/Orders/stream/x"})
	got, err := s.Resource("Fn")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"Type": "AWS::Serverless::Function",
		"Properties": map[string]any{
			"MemorySize": "128",
			"Ratio":      "0.25",
			"Count":      "7",
			"Name":       "orders-fn",
			"Escaped":    "${Literal}-" + Region,
			"Vars":       "orders/" + GetAtt("Fn", "Arn"),
			"Table":      "Orders",
			"Joined":     "a:orders:" + Account,
			"Role":       GetAtt("Role", "Arn"),
			"Queue":      Ref("Role"),
			"List":       []any{"a", "c"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resource(Fn) (-want +got):\n%s", diff)
	}
	if r, err := s.Resource("Sub"); err != nil || r != nil {
		t.Errorf("Resource(Sub) = %v, %v; want nil: its condition is false", r, err)
	}
	if got := s.Resources("AWS::IAM::Role"); !cmp.Equal(got, []string{"Role"}) {
		t.Errorf("Resources(AWS::IAM::Role) = %v", got)
	}
	if s.Param("Name") != "orders" || !s.HasResource("Sub") || s.HasResource("Nope") {
		t.Error("Param or HasResource disagrees with the template")
	}
}

func TestStackConditions(t *testing.T) {
	s := stack(t, map[string]string{"Arn": "x/y", "Email": "a@example.com", "Size": "1024"})
	got, err := s.Resource("Fn")
	if err != nil {
		t.Fatal(err)
	}
	p := got["Properties"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"Maybe": "a@example.com", "List": []any{"a", "b", "c"}},
		map[string]any{"Maybe": p["Maybe"], "List": p["List"]}); diff != "" {
		t.Errorf("conditional values (-want +got):\n%s", diff)
	}
	sub, err := s.Resource("Sub")
	if err != nil || sub == nil {
		t.Fatalf("Resource(Sub) = %v, %v; want it created", sub, err)
	}
	for name, want := range map[string]bool{"HasEmail": true, "Big": true, "Both": true, "Either": true} {
		if got, err := s.condition(name, nil); err != nil || got != want {
			t.Errorf("condition %s = %v, %v; want %v", name, got, err, want)
		}
	}
}

func TestStackTypedNumbers(t *testing.T) {
	for _, tc := range []struct {
		named []string
		count any
	}{
		{nil, "7"},                    // a String stays one unless named
		{[]string{"Count"}, int64(7)}, // named: a number, as the property gets it
	} {
		s := stack(t, map[string]string{"Arn": "x/y"}).TypedNumbers(tc.named...)
		got, err := s.Resource("Fn")
		if err != nil {
			t.Fatal(err)
		}
		p := got["Properties"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"MemorySize": int64(128), "Ratio": 0.25, "Name": "orders-fn", "Count": tc.count},
			map[string]any{"MemorySize": p["MemorySize"], "Ratio": p["Ratio"], "Name": p["Name"], "Count": p["Count"]}); diff != "" {
			t.Errorf("TypedNumbers(%v) (-want +got):\n%s", tc.named, diff)
		}
	}
}

func TestStackErrors(t *testing.T) {
	parse := func(doc string) map[string]any {
		m, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name, doc string
		values    map[string]string
		resource  string // evaluated when set
		want      string // in the error
	}{
		{"parameter without a value", "Parameters:\n  P: {Type: String}\n", nil, "", "no default and no value"},
		{"value for no parameter", "Parameters: {}\n", map[string]string{"Q": "1"}, "", "no parameter Q"},
		{"condition refers to itself", "Conditions:\n  A: !Condition A\n", nil, "", "refers to itself"},
		{"Ref of nothing", "Resources:\n  R:\n    Type: T\n    Properties: {X: !Ref Nope}\n", nil, "R", "neither a parameter nor a resource"},
		{"GetAtt of nothing", "Resources:\n  R:\n    Type: T\n    Properties: {X: !GetAtt Nope.Arn}\n", nil, "R", "no resource Nope"},
		{"Select out of range", "Resources:\n  R:\n    Type: T\n    Properties: {X: !Select [3, [a]]}\n", nil, "R", "out of"},
		{"Join with a list delimiter", "Resources:\n  R:\n    Type: T\n    Properties: {X: !Join [[a], [b]]}\n", nil, "R", "delimiter"},
		{"unsupported function", "Resources:\n  R:\n    Type: T\n    Properties: {X: {Fn::Base64: a}}\n", nil, "R", "not supported"},
		{"Sub of an unknown name", "Resources:\n  R:\n    Type: T\n    Properties: {X: !Sub '${Nope}'}\n", nil, "R", "${Nope}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewStack(parse(tt.doc), tt.values)
			if err == nil && tt.resource != "" {
				_, err = s.Resource(tt.resource)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
