package ddb

// KeyType is the DynamoDB scalar type of a key attribute: 'S', 'N' or 'B'.
type KeyType byte

// The key attribute types DynamoDB allows.
const (
	String KeyType = 'S'
	Number KeyType = 'N'
	Binary KeyType = 'B'
)

// DynamoDB's limits on keys, in bytes: a key attribute's (and an index's)
// name in UTF-8, and a partition key's value (S in UTF-8, B raw).
const (
	MaxKeyNameBytes      = 255
	MaxPartitionKeyBytes = 2048
)

// Key is a key attribute's value in canonical form, so that two values
// DynamoDB treats as the same key are byte-for-byte equal:
//   - S: the UTF-8 bytes of the string (any escapes of its transport
//     resolved);
//   - N: the canonical decimal ("10", "10.0", "1e1" and "+10" are all "10";
//     no exponent, no leading or trailing zeros, "-" only for negatives;
//     see CanonicalNumber);
//   - B: the raw bytes (not base64).
//
// Value may alias memory its producer reuses (a decoder's scratch): the
// producer says how long it stays valid. Copy it to keep it.
type Key struct {
	Type  KeyType // 0 when the key is absent
	Value []byte
}

// Present reports whether the key was there.
func (k Key) Present() bool { return k.Type != 0 }
