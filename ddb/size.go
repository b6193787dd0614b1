package ddb

// The item-size rule: an item's size is the sum, over its attributes, of
// the UTF-8 bytes of the name plus the size of the value, where
//   - S is its UTF-8 bytes (after any escapes of its transport);
//   - N is Decimal.Size (see NumberSize);
//   - B is its raw bytes (not its base64);
//   - BOOL and NULL are BoolSize and NullSize;
//   - SS, NS and BS are the sum of their elements' sizes;
//   - L and M are ContainerOverhead, plus ElementOverhead per element,
//     plus the elements' sizes (for M, each with its name's UTF-8 bytes).
//
// Walkers of an item in any form (DynamoDB JSON in package record, the
// SDK's attribute values in package clientwatch) add these up as they go.
const (
	BoolSize          = 1 // a BOOL value
	NullSize          = 1 // a NULL value
	ContainerOverhead = 3 // an L or M value, besides its elements
	ElementOverhead   = 1 // each element of an L or M, besides its own size
)

// MaxNesting bounds how deep the walkers follow L and M values. DynamoDB
// allows 32 levels; twice that leaves room for any item it could hold,
// and a walker refuses anything deeper rather than recurse without end.
const MaxNesting = 64

// ContainerSize is the size of an L or M value of n elements whose own
// sizes (for M, with their names) add up to nested.
func ContainerSize(n, nested int) int { return ContainerOverhead + n*ElementOverhead + nested }
