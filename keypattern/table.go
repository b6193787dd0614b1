package keypattern

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Limits on a Config: they bound a Table's memory, and what decoding any
// input can allocate.
const (
	MaxPatterns = 256
	MaxTopKeys  = 32
	MaxCache    = 1 << 16
)

// Errors returned, wrapped, by this package. Match them with errors.Is.
var (
	// ErrConfig: a Config outside the limits above.
	ErrConfig = errors.New("keypattern: invalid config")
	// ErrConfigMismatch: Merge of tables with different configs.
	ErrConfigMismatch = errors.New("keypattern: configs differ")
	// ErrVersion: an encoding of a version this package cannot read.
	ErrVersion = errors.New("keypattern: unsupported encoding version")
	// ErrCorrupt: an encoding that fails its checksum or describes an
	// impossible table. sketch.ErrTruncated also matches it when the input
	// is cut short.
	ErrCorrupt = errors.New("keypattern: corrupt encoding")
	// ErrBudget: Trim was given a budget that not even an empty table fits.
	ErrBudget = errors.New("keypattern: budget too small")
)

// Config sizes a Table. Start from DefaultConfig.
type Config struct {
	// Patterns is how many patterns are kept; the records of any other
	// pattern are counted, exactly, as "other".
	Patterns int
	// TopKeys is the number k of Space-Saving counters per pattern: its
	// heaviest keys' bounds are at most 1/k of its WCU apart.
	TopKeys int
	// Cache is the number of keys whose pattern is remembered (a power of
	// two); it is not encoded, and any size gives the same table.
	Cache int
}

// DefaultConfig keeps 64 patterns of 8 counters each and remembers the
// pattern of 4,096 keys (128 KB): a key seen again within them costs a
// tenth of a key scanned (docs/audit.md, "Speed").
func DefaultConfig() Config { return Config{Patterns: 64, TopKeys: 8, Cache: 4096} }

// Validate reports whether c is within the package's limits.
func (c Config) Validate() error {
	switch {
	case c.Patterns < 1 || c.Patterns > MaxPatterns:
		return fmt.Errorf("keypattern: Patterns = %d, want 1..%d: %w", c.Patterns, MaxPatterns, ErrConfig)
	case c.TopKeys < 1 || c.TopKeys > MaxTopKeys:
		return fmt.Errorf("keypattern: TopKeys = %d, want 1..%d: %w", c.TopKeys, MaxTopKeys, ErrConfig)
	case c.Cache < 1 || c.Cache > MaxCache || c.Cache&(c.Cache-1) != 0:
		return fmt.Errorf("keypattern: Cache = %d, want a power of two in 1..%d: %w", c.Cache, MaxCache, ErrConfig)
	}
	return nil
}

// Table learns the patterns of a stream's partition keys and sums up each
// pattern's records; see the package documentation. The zero value is an
// empty table with DefaultConfig. A Table is not safe for concurrent use.
type Table struct {
	cfg          Config
	records, wcu uint64
	// otherRecords and otherWCU count what no kept pattern holds.
	otherRecords, otherWCU uint64

	patterns []*pattern
	index    []int32 // open addressing on pattern hashes: pattern index + 1, 0 empty
	rules    prefixSet
	// values is derived from the patterns by settle: the literal values
	// each prefix holds, for a full table's check of whether a new key
	// would teach it something.
	values map[uint64]*valueSet

	cache []cacheEntry
	gen   uint32 // bumped whenever pattern indexes or rules change
	scan  scanner
}

// cacheEntry remembers what the scan of a key found, by the key's hash:
// its pattern (-1 for other) as of generation gen, its time part's value,
// and its <n> parts' most digits.
type cacheEntry struct {
	hash   uint64
	gen    uint32
	pat    int16 // < MaxPatterns
	slot   int8  // the key's top-keys counter when last counted, or -1
	digits uint8
	t      instant
}

// New returns an empty table sized by cfg.
func New(cfg Config) (*Table, error) {
	t := &Table{}
	if err := t.init(cfg); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Table) init(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	*t = Table{cfg: cfg, cache: make([]cacheEntry, cfg.Cache), gen: 1}
	t.reindex()
	return nil
}

func (t *Table) ready() {
	if t.cache == nil {
		_ = t.init(DefaultConfig())
	}
}

// Config returns the table's configuration.
func (t *Table) Config() Config {
	if t.cache == nil {
		return DefaultConfig()
	}
	return t.cfg
}

// Add counts one record: key is the record's partition key as the detector
// feeds it to sketch (the ddb key type's byte, then the canonical value),
// hash is sketch.Hash(key), wcu its write units and second its time in
// Unix seconds (0 if unknown). A key longer than sketch.MaxKeyLen counts
// under its first sketch.MaxKeyLen bytes, as in sketch (and is hashed
// again).
//
// A key among the last Config.Cache seen costs a cache lookup and its
// pattern's counters (about 150 instructions); any other key, a scan of
// its bytes too (about 600 to 1,200 for 13 to 41 bytes; docs/audit.md).
// Neither allocates. A key of a new pattern takes the slow path, which
// learns (see the package documentation) and allocates.
func (t *Table) Add(key []byte, hash, wcu uint64, second int64) {
	t.ready()
	if len(key) > sketch.MaxKeyLen {
		key = key[:sketch.MaxKeyLen]
		hash = sketch.Hash(key)
	}
	t.records++
	t.wcu = satAdd(t.wcu, wcu)
	c := &t.cache[hash&uint64(len(t.cache)-1)]
	hit := c.hash == hash && c.gen == t.gen
	if !hit {
		t.resolve(key, hash, c)
	}
	switch {
	case c.pat < 0:
		t.otherRecords++
		t.otherWCU = satAdd(t.otherWCU, wcu)
	case hit:
		t.patterns[c.pat].again(key, hash, wcu, second, c)
	default:
		t.patterns[c.pat].add(key, hash, wcu, second, c)
	}
}

// resolve finds key's pattern, learning if it is a new one, into c.
func (t *Table) resolve(key []byte, hash uint64, c *cacheEntry) {
	typ, parts := t.parts(key)
	h, digits := t.walk(typ, key, parts, nil)
	c.hash, c.t, c.digits = hash, t.scan.t, digits
	i := t.find(h)
	if i < 0 {
		i = t.learn(typ, key, parts)
	}
	c.pat = int16(i)
	c.gen = t.gen
}

// parts scans a typed key: a String key into its parts, any other whole.
// A key of an unknown type (or none) is taken as Binary.
func (t *Table) parts(key []byte) (byte, []part) {
	typ := byte(ddb.Binary)
	if len(key) > 0 {
		typ = key[0]
	}
	if typ == byte(ddb.String) {
		return typ, t.scan.scan(key, 1)
	}
	t.scan.t = instant{}
	p := &t.scan.parts[0]
	if typ == byte(ddb.Number) {
		*p = part{start: 1, end: int32(len(key)), class: Number}
		return typ, t.scan.parts[:1]
	}
	*p = part{start: int32(min(1, len(key))), end: int32(len(key)), class: Bytes}
	return byte(ddb.Binary), t.scan.parts[:1]
}

// walk computes the hash of key's pattern under the table's rules, and the
// most digits of its <n> parts. With toks not nil it also appends the
// pattern's tokens to *toks.
func (t *Table) walk(typ byte, key []byte, parts []part, toks *[]token) (uint64, uint8) {
	var digits uint8
	h := startHash(typ)
	for i := range parts {
		p := &parts[i]
		c := p.class
		var lh uint64
		switch c {
		case Number:
			digits = max(digits, numberDigits(typ, key[p.start:p.end]))
		case Literal:
			if t.rules.n != 0 && t.rules.has(t.prefix(i, h, typ, parts)) {
				c = Any
			} else {
				lh = partHash(key, p)
			}
		}
		if toks != nil {
			tok := token{sep: p.sep, class: c}
			if c == Literal {
				tok.lit = string(key[p.start:p.end])
			}
			*toks = append(*toks, tok)
		}
		h = tokenHash(h, p.sep, c, lh)
	}
	return finish(h, len(parts)), digits
}

// partHash is litHash of a literal part, from one word load when the key
// has eight bytes from the part's start.
func partHash(key []byte, p *part) uint64 {
	n := int(p.end - p.start)
	if n <= 8 && int(p.start)+8 <= len(key) {
		v := binary.LittleEndian.Uint64(key[p.start:]) & (1<<(8*n) - 1)
		if n == 8 {
			v = binary.LittleEndian.Uint64(key[p.start:])
		}
		return shortMix(n, v)
	}
	return litHash(key[p.start:p.end])
}

// prefix returns the prefix of a literal at position i, h being the hash
// of the parts before it.
func (t *Table) prefix(i int, h uint64, typ byte, parts []part) uint64 {
	if i > 0 {
		return innerPrefix(h, parts[i].sep)
	}
	next, nextClass := byte(0), Literal
	if len(parts) > 1 {
		next, nextClass = parts[1].sep, parts[1].class
	}
	return rootPrefix(typ, shape(parts[0].mask), next, nextClass)
}

// numberDigits counts the digits of a <n> part (all of it) or a Number
// key (but its sign and point), at most 255.
func numberDigits(typ byte, s []byte) uint8 {
	n := len(s)
	if typ == byte(ddb.Number) {
		n = 0
		for _, c := range s {
			if kinds[c] == kDigit {
				n++
			}
		}
	}
	return uint8(min(n, 255))
}

// find returns the index of the pattern of hash h, or -1.
func (t *Table) find(h uint64) int32 {
	mask := uint64(len(t.index) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch j := t.index[i]; {
		case j == 0:
			return -1
		case t.patterns[j-1].hash == h:
			return j - 1
		}
	}
}

// reindex rebuilds the index of the patterns, whose positions changed,
// and forgets every key's cached pattern.
func (t *Table) reindex() {
	n := 8
	for n < 4*max(len(t.patterns), t.cfg.Patterns+1) {
		n *= 2
	}
	if len(t.index) != n {
		t.index = make([]int32, n)
	} else {
		clear(t.index)
	}
	mask := uint64(n - 1)
	for k, p := range t.patterns {
		i := p.hash & mask
		for t.index[i] != 0 {
			i = (i + 1) & mask
		}
		t.index[i] = int32(k + 1)
	}
	t.gen++
	if t.gen == 0 {
		clear(t.cache)
		t.gen = 1
	}
}

// Records returns the number of records added.
func (t *Table) Records() uint64 { return t.records }

// WCU returns the WCU of the records added.
func (t *Table) WCU() uint64 { return t.wcu }

// Other returns the records and WCU that no kept pattern holds: those of
// patterns beyond Config.Patterns, or dropped by Trim. Both are exact.
func (t *Table) Other() (records, wcu uint64) { return t.otherRecords, t.otherWCU }

// Len returns the number of patterns kept.
func (t *Table) Len() int { return len(t.patterns) }

// Reset empties t, keeping its configuration.
func (t *Table) Reset() { _ = t.init(t.Config()) }

// Classify returns the pattern of one typed key on its own: its parts
// classed and every literal kept, since one key teaches nothing about
// which parts vary. Classify([]byte("SUSER#0b7c…")) is "USER#<uuid>".
func Classify(key []byte) string {
	var t Table
	typ, parts := t.parts(key)
	p := pattern{typ: typ}
	for _, pt := range parts {
		tok := token{sep: pt.sep, class: pt.class}
		if pt.class == Literal {
			tok.lit = string(key[pt.start:pt.end])
		}
		p.tokens = append(p.tokens, tok)
	}
	return p.String()
}
