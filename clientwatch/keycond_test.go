package clientwatch

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestQueryKey(t *testing.T) {
	v := &types.AttributeValueMemberS{Value: "v"}
	other := &types.AttributeValueMemberS{Value: "other"}
	values := map[string]types.AttributeValue{":v": v, ":o": other, ":a": other, ":b": other}
	names := map[string]string{"#p": "pk", "#s": "sk", "#x": "x"}
	for _, tc := range []struct {
		expr string
		want types.AttributeValue // nil: no key
	}{
		{"pk = :v", v},
		{"pk=:v", v},
		{":v = pk", v},
		{"#p = :v", v},
		{"(#p = :v) AND (#s > :o)", v},
		{"sk = :o AND pk = :v", v},
		{"pk = :v AND sk BETWEEN :a AND :b", v},
		{"begins_with(sk, :o) AND pk = :v", v},
		{"pk = :v AND begins_with(#s, :o)", v},
		{"  pk\t=\n:v  ", v},
		{"sk = :v", nil},
		{"#x = :v", nil},       // a placeholder for another attribute
		{"#q = :v", nil},       // a placeholder without a name
		{"pk = :missing", nil}, // a value without a definition
		{"pk <= :v", nil},
		{"pk <> :v", nil},
		{"pkx = :v", nil},
		{"a.pk = :v", nil},
		{":o = :v", nil},
		{"", nil},
		{"=", nil},
		{"pk =", nil},
	} {
		got, ok := queryKey(&dynamodb.QueryInput{KeyConditionExpression: &tc.expr, ExpressionAttributeNames: names, ExpressionAttributeValues: values}, "pk")
		if ok != (tc.want != nil) || ok && got != tc.want {
			t.Errorf("%q: %v %v, want %v", tc.expr, got, ok, tc.want)
		}
	}
	for _, tc := range []struct {
		cond types.Condition
		want types.AttributeValue
	}{
		{types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{v}}, v},
		{types.Condition{ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{v}}, nil},
		{types.Condition{ComparisonOperator: types.ComparisonOperatorEq}, nil},
	} {
		got, ok := queryKey(&dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": tc.cond}}, "pk")
		if ok != (tc.want != nil) || ok && got != tc.want {
			t.Errorf("KeyConditions %+v: %v %v, want %v", tc.cond, got, ok, tc.want)
		}
	}
}

// FuzzKeyCondition: any expression is read without a panic or an
// allocation beyond the scan, and a key found is one of the values given.
func FuzzKeyCondition(f *testing.F) {
	f.Add("#p = :v AND sk BETWEEN :a AND :b")
	f.Add("begins_with(sk, :o) and :v=pk")
	values := map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "v"}}
	f.Fuzz(func(t *testing.T, expr string) {
		got, ok := keyConditionValue(expr, "pk", map[string]string{"#p": "pk"}, values)
		if ok && got != values[":v"] {
			t.Fatalf("%q: %v", expr, got)
		}
	})
}

func TestKeyConditionAllocatesNothing(t *testing.T) {
	values := map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "v"}}
	names := map[string]string{"#p": "pk"}
	if n := testing.AllocsPerRun(100, func() {
		_, _ = keyConditionValue("(#p = :v) AND sk BETWEEN :a AND :b", "pk", names, values)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
