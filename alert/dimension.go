package alert

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Dimension-value encoding. CloudWatch takes dimension values of 1 to 1,024
// ASCII characters, without control characters and not only whitespace.
// Partition keys are any UTF-8 string or binary of up to 2,048 bytes, so some
// must be encoded. The three forms below never overlap, so the mapping stays
// one-to-one (up to a 64-bit hash collision in the third form):
//
//   - the key itself, when it is 1–1,024 printable ASCII characters
//     (0x20–0x7E), not all spaces, and does not start with "b64:" or "sum:";
//   - "b64:" + the unpadded base64url of the key's bytes, when that fits;
//   - "sum:" + 16 hex digits of SHA-256(key) + ":" + as much of the key's
//     readable form (the key if printable, else its base64url) as fits in
//     1,024 characters.
const (
	// MaxDimensionValueLength is CloudWatch's limit on a dimension value.
	MaxDimensionValueLength = 1024

	encodedPrefix = "b64:"
	hashedPrefix  = "sum:"
	hashHexDigits = 16
)

// DimensionValue returns the CloudWatch dimension value that stands for a
// partition key (or any other string, such as a table name). Printable ASCII
// keys of 1–1,024 characters are kept as they are, except those that start
// with the reserved prefixes "b64:" or "sum:". Any other key becomes "b64:"
// followed by the unpadded base64url (RFC 4648 §5) of its UTF-8 bytes. When
// that is still longer than 1,024 characters, the value becomes "sum:", the
// first 16 hex digits of the SHA-256 of the key, ":", and the start of the
// key's readable form, cut at 1,024 characters in all; distinct keys then
// stay distinct unless their 64-bit hashes collide.
//
// The mapping is stable across processes and versions: alarms and
// dashboards that name a key keep working.
func DimensionValue(key string) string {
	if keepAsIs(key) {
		return key
	}
	if len(encodedPrefix)+base64.RawURLEncoding.EncodedLen(len(key)) <= MaxDimensionValueLength {
		return encodedPrefix + base64.RawURLEncoding.EncodeToString([]byte(key))
	}
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(MaxDimensionValueLength)
	b.WriteString(hashedPrefix)
	b.WriteString(hex.EncodeToString(sum[:hashHexDigits/2]))
	b.WriteByte(':')
	readable := key
	if !printableASCII(key) {
		readable = base64.RawURLEncoding.EncodeToString([]byte(key))
	}
	// A key with a reserved prefix may be short enough to fit whole.
	b.WriteString(readable[:min(len(readable), MaxDimensionValueLength-b.Len())])
	return b.String()
}

// keepAsIs reports whether a key is already a valid dimension value that
// cannot be mistaken for an encoded one.
func keepAsIs(key string) bool {
	return len(key) >= 1 && len(key) <= MaxDimensionValueLength &&
		printableASCII(key) && strings.Trim(key, " ") != "" &&
		!strings.HasPrefix(key, encodedPrefix) && !strings.HasPrefix(key, hashedPrefix)
}

// validDimensionValue reports whether CloudWatch accepts s as a dimension
// value: 1–1,024 printable ASCII characters, not all spaces.
func validDimensionValue(s string) bool {
	return len(s) >= 1 && len(s) <= MaxDimensionValueLength && printableASCII(s) && strings.Trim(s, " ") != ""
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
