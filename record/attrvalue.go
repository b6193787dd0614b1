package record

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The aws-sdk-go-v2 form of an attribute value: the same rules as the JSON
// decoder's (sizeTagged, sizeList, sizeMembers, NumberSize and
// appendCanonical), applied to the SDK's types, for code that sees items as
// the SDK hands them over (the client-side detector) rather than as JSON.

// AttributeValueItemSize returns the size in bytes DynamoDB charges for an
// item given as SDK attribute values: the same figure ItemSize gives for
// the item's DynamoDB JSON. It fails, wrapping ErrAttributeValue or the
// number errors NumberSize returns, for a value DynamoDB could not store.
func AttributeValueItemSize(item map[string]types.AttributeValue) (int, error) {
	size := 0
	for name, v := range item {
		n, err := attributeValueSize(v, 0)
		if err != nil {
			return 0, err
		}
		size += len(name) + n
	}
	return size, nil
}

// AttributeValueSize returns the size in bytes of one attribute value by
// DynamoDB's rules (its name not included).
func AttributeValueSize(v types.AttributeValue) (int, error) {
	return attributeValueSize(v, 0)
}

func attributeValueSize(v types.AttributeValue, depth int) (int, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value), nil
	case *types.AttributeValueMemberN:
		return NumberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value), nil
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1, nil
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n, nil
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			m, err := NumberSize(s)
			if err != nil {
				return 0, err
			}
			n += m
		}
		return n, nil
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n, nil
	case *types.AttributeValueMemberL:
		if depth >= maxNesting {
			return 0, ErrTooDeep
		}
		n := 3
		for _, e := range v.Value {
			m, err := attributeValueSize(e, depth+1)
			if err != nil {
				return 0, err
			}
			n += 1 + m
		}
		return n, nil
	case *types.AttributeValueMemberM:
		if depth >= maxNesting {
			return 0, ErrTooDeep
		}
		n := 3
		for name, e := range v.Value {
			m, err := attributeValueSize(e, depth+1)
			if err != nil {
				return 0, err
			}
			n += 1 + len(name) + m
		}
		return n, nil
	}
	return 0, fmt.Errorf("%w: %T", ErrAttributeValue, v)
}

// AppendAttributeValueKey appends a key attribute's value in the canonical
// form of Key (S as its bytes, N as its canonical decimal, B as its raw
// bytes) and returns its type. It fails, wrapping ErrKey, for a value that
// is not S, N or B, and as CanonicalNumber does for a bad number. It makes
// no allocation when dst has room.
func AppendAttributeValueKey(dst []byte, v types.AttributeValue) ([]byte, KeyType, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return append(dst, v.Value...), String, nil
	case *types.AttributeValueMemberN:
		num, err := parseNumber(v.Value)
		if err != nil {
			return dst, Number, fmt.Errorf("%w %q", err, v.Value)
		}
		return appendCanonical(dst, v.Value, &num), Number, nil
	case *types.AttributeValueMemberB:
		return append(dst, v.Value...), Binary, nil
	}
	return dst, 0, fmt.Errorf("%w: %T", ErrKey, v)
}
