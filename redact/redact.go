// Package redact replaces partition keys, which are often personal data
// (e-mail addresses, phone numbers, user names), with stable stand-ins that
// cannot be reversed without a secret.
//
// A stand-in is "h:" followed by the first 64 bits, in hex, of
// HMAC-SHA256(secret, type byte || canonical key bytes) (RFC 2104; Bellare,
// Canetti and Krawczyk, "Keying Hash Functions for Message Authentication",
// CRYPTO 1996). The keyed hash is what makes redaction survive a
// dictionary: without the secret, hashing every e-mail address or phone
// number of a country and matching the results is cheap, because the keys
// worth hiding have little entropy. So New refuses an empty or short secret,
// and the only way to hash without one is to ask for it by name, with
// NewUnsalted.
//
// This is the one implementation: the detector's reports, hence every
// metric, log line and alarm, the CLI's `hotkeys hash-key` and the Lambda
// all hash through a Hasher, so the same secret gives the same stand-ins
// everywhere.
package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
)

// Prefix starts every redacted key.
const Prefix = "h:"

// MinSecretLen is the shortest secret New accepts, in bytes. A short
// secret can be guessed together with the keys: 16 random bytes put that
// out of reach, and the template generates 64 characters.
const MinSecretLen = 16

// Mode says whether and how keys are redacted, as the CLI and the Lambda
// spell it.
type Mode string

// The redaction modes.
const (
	// None shows keys as they are.
	None Mode = "none"
	// Hash replaces every key with its keyed hash; it needs a secret.
	Hash Mode = "hash"
	// HashUnsalted hashes with no secret. Anyone can hash a list of
	// candidate keys and match the stand-ins, so it hides nothing from a
	// dictionary; it exists only for outputs whose readers may know the
	// keys anyway, and only the CLI offers it.
	HashUnsalted Mode = "hash-unsalted"
)

// Sentinel errors, one per kind.
var (
	// ErrMode: a redaction mode other than none, hash or hash-unsalted.
	ErrMode = errors.New("redact: unknown key redaction mode")
	// ErrNoSecret: hash without a secret.
	ErrNoSecret = errors.New("redact: key redaction needs a secret")
	// ErrShortSecret: a secret shorter than MinSecretLen bytes.
	ErrShortSecret = errors.New("redact: key redaction secret too short")
	// ErrUnusedSecret: a secret given with a mode that does not use it,
	// which would otherwise hide a mistake (hash meant, none typed).
	ErrUnusedSecret = errors.New("redact: key redaction secret given but not used")
)

// ParseMode reads a mode; "" is None.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return None, nil
	case None, Hash, HashUnsalted:
		return m, nil
	}
	return "", fmt.Errorf("%w %q: want none, hash or hash-unsalted", ErrMode, s)
}

// Hasher turns keys into their stand-ins. A nil *Hasher means no
// redaction. It is safe for concurrent use.
type Hasher struct {
	secret   []byte
	unsalted bool
}

// New returns a Hasher keyed by secret, which it copies. It fails with
// ErrNoSecret for an empty secret and ErrShortSecret for one shorter than
// MinSecretLen bytes.
func New(secret []byte) (*Hasher, error) {
	switch {
	case len(secret) == 0:
		return nil, ErrNoSecret
	case len(secret) < MinSecretLen:
		return nil, fmt.Errorf("%w: %d bytes, want at least %d", ErrShortSecret, len(secret), MinSecretLen)
	}
	return &Hasher{secret: append([]byte(nil), secret...)}, nil
}

// NewUnsalted returns a Hasher with no secret: its stand-ins can be
// reversed by anyone who hashes a list of candidate keys. Its hashes equal
// those of hotkeys releases that ran `hash` without a salt.
func NewUnsalted() *Hasher { return &Hasher{unsalted: true} }

// ForMode returns the Hasher a mode asks for: nil for None, New(secret) for
// Hash, NewUnsalted for HashUnsalted. A secret given with None or
// HashUnsalted is ErrUnusedSecret.
func ForMode(m Mode, secret []byte) (*Hasher, error) {
	switch m {
	case None, "":
		if len(secret) > 0 {
			return nil, fmt.Errorf("%w: key redaction is none", ErrUnusedSecret)
		}
		return nil, nil
	case Hash:
		return New(secret)
	case HashUnsalted:
		if len(secret) > 0 {
			return nil, fmt.Errorf("%w: hash-unsalted ignores it (did you mean hash?)", ErrUnusedSecret)
		}
		return NewUnsalted(), nil
	}
	return nil, fmt.Errorf("%w %q: want none, hash or hash-unsalted", ErrMode, string(m))
}

// Unsalted reports whether h hashes without a secret.
func (h *Hasher) Unsalted() bool { return h != nil && h.unsalted }

// Key returns the stand-in of a key of DynamoDB type typ ('S', 'N' or 'B')
// whose canonical bytes are value (S: UTF-8; N: the canonical decimal; B:
// the raw bytes). The type is hashed too, so S "1" and N 1 differ.
func (h *Hasher) Key(typ byte, value []byte) string {
	var m hash.Hash = hmac.New(sha256.New, h.secret)
	m.Write([]byte{typ})
	m.Write(value)
	var sum [sha256.Size]byte
	return Prefix + hex.EncodeToString(m.Sum(sum[:0])[:8])
}

// String names the kind of Hasher, never its secret. (Value receivers, so
// that a Hasher copied by value prints the same way.)
func (h Hasher) String() string {
	if h.unsalted {
		return "redact.Hasher(unsalted)"
	}
	return "redact.Hasher(keyed)"
}

// Format prints String for every verb, so that no %v, %+v or %#v of a
// configuration that holds a Hasher ever prints the secret. A nil *Hasher
// prints as <nil>.
func (h Hasher) Format(f fmt.State, _ rune) { fmt.Fprint(f, h.String()) }
