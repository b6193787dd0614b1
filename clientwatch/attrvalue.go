package clientwatch

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// Items as the SDK hands them over: their size and their keys by ddb's
// rules, the same rules the stream decoder applies to DynamoDB JSON.

var (
	errAttributeValue = errors.New("clientwatch: not an attribute value DynamoDB could store")
	errNotKey         = errors.New("clientwatch: a key attribute is S, N or B")
)

// itemSize returns the size in bytes DynamoDB charges for an item given as
// SDK attribute values: the figure record.ItemSize gives for the item's
// DynamoDB JSON. It fails for a value DynamoDB could not store.
func itemSize(item map[string]types.AttributeValue) (int, error) {
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

// attributeValueSize returns the size of one attribute value at depth (its
// name not included). Its cases are the types of a value, one each.
func attributeValueSize(v types.AttributeValue, depth int) (int, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value), nil
	case *types.AttributeValueMemberN:
		return ddb.NumberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return ddb.BoolSize, nil
	case *types.AttributeValueMemberNULL:
		return ddb.NullSize, nil
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n, nil
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			m, err := ddb.NumberSize(s)
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
		return listSize(v.Value, depth)
	case *types.AttributeValueMemberM:
		return mapSize(v.Value, depth)
	}
	return 0, fmt.Errorf("%w: %T", errAttributeValue, v)
}

// listSize is the size of an L value of elems at depth.
func listSize(elems []types.AttributeValue, depth int) (int, error) {
	if depth >= ddb.MaxNesting {
		return 0, fmt.Errorf("%w: nested deeper than %d", errAttributeValue, ddb.MaxNesting)
	}
	nested := 0
	for _, e := range elems {
		m, err := attributeValueSize(e, depth+1)
		if err != nil {
			return 0, err
		}
		nested += m
	}
	return ddb.ContainerSize(len(elems), nested), nil
}

// mapSize is the size of an M value of members at depth.
func mapSize(members map[string]types.AttributeValue, depth int) (int, error) {
	if depth >= ddb.MaxNesting {
		return 0, fmt.Errorf("%w: nested deeper than %d", errAttributeValue, ddb.MaxNesting)
	}
	nested := 0
	for name, e := range members {
		m, err := attributeValueSize(e, depth+1)
		if err != nil {
			return 0, err
		}
		nested += len(name) + m
	}
	return ddb.ContainerSize(len(members), nested), nil
}

// sizeOf is an item's size, for estimating and apportioning: 0 for an
// item DynamoDB could not have stored (it refused the call).
func sizeOf(item map[string]types.AttributeValue) int {
	n, err := itemSize(item)
	if err != nil {
		return 0
	}
	return n
}

// appendKey appends a key attribute's value in the canonical form of
// ddb.Key (S as its bytes, N as its canonical decimal, B as its raw bytes)
// and returns its type. It fails for a value that is not S, N or B, or a
// bad number. It makes no allocation when dst has room.
func appendKey(dst []byte, v types.AttributeValue) ([]byte, ddb.KeyType, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return append(dst, v.Value...), ddb.String, nil
	case *types.AttributeValueMemberN:
		out, _, err := ddb.AppendCanonical(dst, v.Value)
		if err != nil {
			return dst, ddb.Number, fmt.Errorf("%w %q", err, v.Value)
		}
		return out, ddb.Number, nil
	case *types.AttributeValueMemberB:
		return append(dst, v.Value...), ddb.Binary, nil
	}
	return dst, 0, fmt.Errorf("%w: %T", errNotKey, v)
}
