package sketch

import (
	"errors"
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

// Limits on a Config. They bound the memory of a Summary, and therefore what
// decoding any input can allocate, to under 1 MB whatever the input says
// (the count-min's cells are most of it), plus keys longer than 64 bytes,
// which take no more than the input holds.
const (
	MaxCounters = 1024    // heavy-hitter counters
	MaxWidth    = 1 << 15 // count-min columns
	MaxDepth    = 8       // count-min rows
	MaxCells    = 1 << 16 // count-min cells, Width × Depth
)

// MaxKeyLen is the longest key a Summary tells apart: DynamoDB's limit on a
// partition key, 2,048 bytes, plus one byte for a tag the caller prefixes
// (the detector's key type, so that "1" the string and 1 the number stay
// apart). Every key DynamoDB accepts is thus kept whole; a longer key is
// counted under its first MaxKeyLen bytes.
const MaxKeyLen = 1 + ddb.MaxPartitionKeyBytes

// Errors returned, wrapped, by this package. Match them with errors.Is.
var (
	// ErrConfig: a Config is outside the limits above.
	ErrConfig = errors.New("sketch: invalid config")
	// ErrConfigMismatch: Merge of summaries with different configs.
	ErrConfigMismatch = errors.New("sketch: configs differ")
	// ErrOverflow: Merge would take the total weight past 2^64-1.
	ErrOverflow = errors.New("sketch: total weight overflows uint64")
	// ErrVersion: an encoding of a version this package cannot read.
	ErrVersion = errors.New("sketch: unsupported encoding version")
	// ErrCorrupt: an encoding that fails its checksum or describes an
	// impossible state. ErrTruncated and ErrTooLarge also match it.
	ErrCorrupt = errors.New("sketch: corrupt encoding")
	// ErrTruncated: an encoding that ends before its lengths say it does.
	// It is the truncation error of every hotkeys encoding (package
	// internal/frame's): the detector's window state and history's
	// summaries wrap it too, and its text has no "sketch:" prefix.
	ErrTruncated = frame.ErrTruncated
	// ErrTooLarge: an encoding, or a length inside one, beyond the limits.
	ErrTooLarge = errors.New("sketch: encoding exceeds limits")
)

// Config sizes a Summary. Start from DefaultConfig.
type Config struct {
	// Counters is the number k of heavy-hitter counters. No key whose
	// weight exceeds W/k (W: total weight) can be missing from Top, and
	// every tracked key's bounds are at most W/k apart.
	Counters int
	// Width is the number of count-min columns: estimates exceed the truth
	// by at most e/Width × W with probability at least 1 - e^-Depth.
	Width int
	// Depth is the number of count-min rows.
	Depth int
}

// DefaultConfig serves a 1 % share threshold with room to spare (k = 256,
// so W/k ≈ 0.39 % of W) and keeps an encoded Summary under 56 KB at a
// million distinct 64-byte keys: 16 KB of HyperLogLog, about 12 KB of
// count-min cells and at most about 22 KB of heavy-hitter entries.
func DefaultConfig() Config {
	return Config{Counters: 256, Width: 1024, Depth: 4}
}

// Validate reports whether c is within the package's limits.
func (c Config) Validate() error {
	switch {
	case c.Counters < 1 || c.Counters > MaxCounters:
		return fmt.Errorf("sketch: Counters = %d, want 1..%d: %w", c.Counters, MaxCounters, ErrConfig)
	case c.Width < 1 || c.Width > MaxWidth:
		return fmt.Errorf("sketch: Width = %d, want 1..%d: %w", c.Width, MaxWidth, ErrConfig)
	case c.Depth < 1 || c.Depth > MaxDepth:
		return fmt.Errorf("sketch: Depth = %d, want 1..%d: %w", c.Depth, MaxDepth, ErrConfig)
	case c.Width*c.Depth > MaxCells:
		return fmt.Errorf("sketch: Width × Depth = %d, want at most %d: %w", c.Width*c.Depth, MaxCells, ErrConfig)
	}
	return nil
}

// Hash is the one hash of a key that every part of a Summary derives its
// positions from: XXH3-64 with the default secret and seed 0. XXH3's output
// is fixed by its specification, so summaries persisted by one process and
// version merge correctly with those of another (hash/maphash, seeded per
// process, would not).
func Hash(key []byte) uint64 { return xxh3.Hash(key) }
