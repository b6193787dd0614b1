package clientwatch

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A Query reads one partition: the one its key condition names with an
// equality on the partition key ("pk = :v", the name possibly a #name
// placeholder, the value always a :value placeholder), or, in the legacy
// form, KeyConditions[pk] with ComparisonOperator EQ. The page is charged
// to that key whatever it returns: COUNT, a projection without the key, no
// items at all. (AWS Developer Guide, "Key condition expressions for the
// Query operation":
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html)

// queryKey returns the partition key value the Query names for attribute pk.
func queryKey(in *dynamodb.QueryInput, pk string) (types.AttributeValue, bool) {
	if in.KeyConditionExpression != nil {
		return keyConditionValue(*in.KeyConditionExpression, pk, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	}
	c, ok := in.KeyConditions[pk]
	if !ok || c.ComparisonOperator != types.ComparisonOperatorEq || len(c.AttributeValueList) != 1 {
		return nil, false
	}
	return c.AttributeValueList[0], true
}

// keyConditionValue finds "pk = :v" (or ":v = pk") in a key condition
// expression and returns the value :v stands for. It allocates nothing.
func keyConditionValue(expr, pk string, names map[string]string, values map[string]types.AttributeValue) (types.AttributeValue, bool) {
	var prev, prev2 string // the two tokens before the current one
	for i := 0; i < len(expr); {
		tok, next := exprToken(expr, i)
		if tok == "" {
			break
		}
		if prev == "=" {
			var name, value string
			switch {
			case isValueRef(tok) && !isValueRef(prev2):
				name, value = prev2, tok
			case isValueRef(prev2) && !isValueRef(tok):
				name, value = tok, prev2
			}
			if value != "" && resolveName(name, names) == pk {
				v, ok := values[value]
				return v, ok && v != nil
			}
		}
		prev2, prev = prev, tok
		i = next
	}
	return nil, false
}

// exprToken returns the token of expr at or after i and where the next
// one may start: a name or #name, a :value, or one operator or
// punctuation mark ("<=", ">=", "<>" as one).
func exprToken(expr string, i int) (tok string, next int) {
	for i < len(expr) && (expr[i] == ' ' || expr[i] == '\t' || expr[i] == '\n' || expr[i] == '\r') {
		i++
	}
	if i >= len(expr) {
		return "", i
	}
	j := i
	switch c := expr[i]; {
	case c == '#' || c == ':' || isNameByte(c):
		j++
		for j < len(expr) && isNameByte(expr[j]) {
			j++
		}
	case (c == '<' || c == '>') && i+1 < len(expr) && (expr[i+1] == '=' || c == '<' && expr[i+1] == '>'):
		j += 2
	default:
		j++
	}
	return expr[i:j], j
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isValueRef(tok string) bool { return len(tok) > 1 && tok[0] == ':' }

// resolveName returns the attribute a name token stands for: a #name
// placeholder's, or the name itself; "" for what is not a name.
func resolveName(tok string, names map[string]string) string {
	switch {
	case len(tok) > 1 && tok[0] == '#':
		return names[tok]
	case tok == "" || !isNameByte(tok[0]):
		return ""
	}
	return tok
}
