package sketch

import (
	"fmt"
	"math"

	"github.com/axiomhq/hyperloglog"
)

// HLLPrecision is the precision of every HyperLogLog of distinct keys in
// hotkeys: 2^14 registers, about 0.8 % standard error, 16 KB once dense,
// far less while sparse. Sketches merge only at equal precisions: every
// one made here, decoded (UnpackDistinct) or united (DistinctUnion) has
// this one.
const HLLPrecision = 14

// sparseInserts is how many keys from outside the heavy-hitter table a
// sparse HyperLogLog (one decoded from a small summary) takes before it is
// made dense. Sparse, it encodes a small window in a few KB; but it buffers
// new hashes and, every 164 of them, rewrites its whole sorted list, which
// allocates and, with a few thousand keys coming back again and again,
// costs hundreds of ns per Add. Dense, an insert is a register update.
// This bounds the sparse form's work to about 100 rewrites per decode, and
// leaves Add allocation-free after it.
const sparseInserts = 1 << 14

// Summary sums up a weighted stream of keys: the exact total weight, the
// heaviest keys with bounds (HeavyHitters, tightened by CountMin), an upper
// bound for any key (CountMin), and the number of distinct keys (exact up
// to exactKeys, then HyperLogLog). One Add updates all of them from one
// hash of the key.
//
// The parts work together: the count-min estimate tightens each tracked
// key's upper bound, and it gates the heavy-hitter table. A key from
// outside the table whose count-min bound does not exceed the smallest
// counter weighs no more than that counter already allows any untracked
// key, so it stays out rather than evict one (the table's invariants, and
// so its guarantees, hold either way). On the Zipf test streams this
// spares 97-99.6 % of evictions: the keys that stay are tracked longer,
// with tighter bounds, and Add is about twice as fast.
//
// Summaries of different records of a stream merge into a summary of all
// of them with the same guarantees, and encode to a few tens of KB.
//
// The zero value is an empty summary with DefaultConfig. A Summary is not
// safe for concurrent use.
type Summary struct {
	cfg   Config
	total uint64
	cm    CountMin
	hh    HeavyHitters
	hll   *hyperloglog.Sketch
	// While exact, seen holds the hash of every distinct key and hll is
	// empty; see exactKeys. A merge, an encoding or a decode ends it.
	seen  hashSet
	exact bool
	// sparseLeft counts down the inserts until the HyperLogLog is made
	// dense; see sparseInserts.
	sparseLeft int
}

// NewSummary returns an empty summary sized by cfg.
func NewSummary(cfg Config) (*Summary, error) {
	s := &Summary{}
	if err := s.init(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Summary) init(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := s.cm.init(cfg.Width, cfg.Depth); err != nil {
		return err
	}
	if err := s.hh.init(cfg.Counters); err != nil {
		return err
	}
	s.cfg = cfg
	s.total = 0
	s.hll, s.sparseLeft = newHLL(), sparseInserts
	s.seen.reset()
	s.exact = true
	return nil
}

func newHLL() *hyperloglog.Sketch {
	hll, err := hyperloglog.NewSketch(HLLPrecision, true)
	if err != nil {
		panic(err) // a constant precision within the library's range
	}
	return hll
}

// ready makes the zero value an empty summary with DefaultConfig.
func (s *Summary) ready() {
	if s.hll == nil {
		_ = s.init(DefaultConfig())
	}
}

// Config returns the summary's configuration.
func (s *Summary) Config() Config {
	if s.hll == nil {
		return DefaultConfig()
	}
	return s.cfg
}

// Add counts one record: weight for key at tick (its time in whole seconds),
// with item a non-zero hash of the record's item (its sort key), or 0.
//
// A weight of 0 only counts the key as seen, for Distinct. A key longer
// than MaxKeyLen counts under its first MaxKeyLen bytes. Weight beyond a
// total of 2^64-1 is dropped rather than wrap.
//
// The key is hashed once. Add makes no allocation in steady state: the set
// of the first exactKeys keys grows a few times, a sparse HyperLogLog
// allocates when it compacts (see sparseInserts), the first key over 48
// bytes gives the heavy-hitter counters their 64-byte key buffers, and a
// key over 64 bytes grows a counter's buffer once.
func (s *Summary) Add(key []byte, weight uint64, tick int64, item uint64) {
	if s.hll == nil {
		s.ready()
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h := Hash(key)
	weight = min(weight, math.MaxUint64-s.total)
	s.total += weight
	bound := uint64(math.MaxUint64)
	if weight != 0 {
		bound = s.cm.Add(h, weight)
	}
	// A tracked key was inserted into the HyperLogLog when it was first
	// seen (or came with a merge or decode), and inserting a hash twice
	// changes nothing, so skip it: the heaviest keys then cost no insert.
	// This is s.hh.add, spelled out so that a count, most adds, costs no
	// call into add, which saves its eight arguments on entry.
	if i := s.hh.find(h, key); i >= 0 {
		if weight != 0 {
			s.hh.count(i, weight, tick, item)
		}
		return
	}
	if weight != 0 {
		s.hh.insert(key, h, weight, tick, item, bound)
	}
	if s.exact {
		if s.seen.add(h); s.seen.len() >= exactKeys {
			s.densify()
			s.flushSeen()
		}
		return
	}
	s.hll.InsertHash(h)
	if s.sparseLeft > 0 {
		s.sparseLeft--
		if s.sparseLeft == 0 {
			s.densify()
		}
	}
}

// densify turns the HyperLogLog dense: merging a dense sketch into a sparse
// one is the library's way to convert it.
func (s *Summary) densify() {
	dense, err := hyperloglog.NewSketch(HLLPrecision, false)
	if err == nil {
		err = s.hll.Merge(dense)
	}
	if err != nil {
		panic(err) // equal, constant precisions
	}
	s.sparseLeft = 0
}

// flushSeen moves the exact set into the HyperLogLog, for good: the
// summary then counts distinct keys as the HyperLogLog does.
func (s *Summary) flushSeen() {
	if !s.exact {
		return
	}
	s.seen.each(s.hll.InsertHash)
	s.seen.reset()
	s.exact = false
}

// Total returns the exact total weight added.
func (s *Summary) Total() uint64 { return s.total }

// Distinct returns the number of distinct keys added: exact up to
// exactKeys (4,096) keys in a summary never merged, encoded or decoded;
// otherwise the HyperLogLog's estimate, nearly exact while it is sparse and
// within about 0.8 % (one standard error) once dense. A dense estimate
// takes about half a millisecond: call it per window, not per record.
func (s *Summary) Distinct() uint64 {
	if s.hll == nil {
		return 0
	}
	if s.exact {
		return uint64(s.seen.len())
	}
	return s.hll.Estimate()
}

// Top returns the n tracked keys with the largest Upper (ties: larger
// Lower, then smaller key), keys copied. With n ≥ Config.Counters it
// returns every tracked key, which includes every key heavier than
// Total/Counters. Upper is the smaller of the heavy-hitter and count-min
// bounds.
func (s *Summary) Top(n int) []Entry {
	if s.hll == nil {
		return nil
	}
	return s.hh.top(n, &s.cm)
}

// Trim keeps the n tracked keys with the largest upper bounds (Top's
// order) and drops the others, so that the summary encodes smaller; it
// returns how many it dropped. The guarantees stay honest rather than
// tight: Floor rises to the largest upper bound dropped, so it still bounds
// every key Top does not return, and every tracked key's bounds stay at
// most Floor apart. Totals, the count-min and distinct keys are untouched.
func (s *Summary) Trim(n int) int {
	s.ready()
	return s.hh.trim(n, &s.cm)
}

// Floor returns an upper bound on the weight of any key that Top does not
// return (with n ≥ Config.Counters): the heavy hitters' smallest counter
// once every counter is in use, 0 before (every key is then tracked), and
// never less than the largest upper bound a Trim dropped.
func (s *Summary) Floor() uint64 {
	if s.hll == nil {
		return 0
	}
	return s.hh.Floor()
}

// AppendDistinct appends the encoding of the summary's distinct-key sketch
// (axiomhq/hyperloglog's, precision 14) to b, so that distinct counts of
// different summaries can be stored (PackDistinct) and united later
// (DistinctUnion). The summary itself is left as it was: its exact set,
// if it still has one, is copied in.
func (s *Summary) AppendDistinct(b []byte) ([]byte, error) {
	s.ready()
	h := s.hll.Clone()
	if s.exact {
		s.seen.each(h.InsertHash)
	}
	b, err := h.AppendBinary(b)
	if err != nil {
		return b, fmt.Errorf("sketch: %w", err)
	}
	return b, nil
}

// Estimate returns bounds on any key's weight: lower ≤ true weight ≤ upper.
// For a tracked key they are its entry's; for any other key lower is 0 and
// upper the smaller of the count-min estimate and the heavy hitters' Floor.
func (s *Summary) Estimate(key []byte) (lower, upper uint64) {
	if s.hll == nil {
		return 0, 0
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h := Hash(key)
	cm := s.cm.Estimate(h)
	if e, ok := s.hh.Lookup(key, h); ok {
		return e.Lower, min(e.Upper, cm)
	}
	return 0, min(cm, s.hh.Floor())
}

// Lookup returns the entry of a tracked key, with Upper tightened as in
// Top. Its Key is key itself, not a copy.
func (s *Summary) Lookup(key []byte) (Entry, bool) {
	if s.hll == nil {
		return Entry{}, false
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h := Hash(key)
	e, ok := s.hh.Lookup(key, h)
	if ok {
		e.Upper = min(e.Upper, s.cm.Estimate(h))
	}
	return e, ok
}

// Merge adds other into s, so that s summarises both streams: totals add,
// count-min cells add, HyperLogLogs take the union, and heavy hitters merge
// as described on HeavyHitters. The records the two summarised must be
// different ones (a key may appear in both). Configs must be equal. On
// error s is unchanged.
func (s *Summary) Merge(other *Summary) error {
	s.ready()
	other.ready()
	if s.cfg != other.cfg {
		return fmt.Errorf("sketch: cannot merge config %+v into %+v: %w", other.cfg, s.cfg, ErrConfigMismatch)
	}
	if other.total > math.MaxUint64-s.total {
		return fmt.Errorf("sketch: merge of totals %d and %d: %w", s.total, other.total, ErrOverflow)
	}
	if other == s {
		other = s.clone()
	}
	if err := s.hh.Merge(&other.hh); err != nil {
		return err
	}
	if err := s.cm.Merge(&other.cm); err != nil {
		return err
	}
	// other's exact set goes into s's HyperLogLog, leaving other as it was.
	s.flushSeen()
	other.seen.each(s.hll.InsertHash)
	if err := s.hll.Merge(other.hll); err != nil {
		return fmt.Errorf("sketch: %w", err)
	}
	s.total += other.total
	return nil
}

func (s *Summary) clone() *Summary {
	c := &Summary{cfg: s.cfg, total: s.total, hll: s.hll.Clone(), seen: s.seen.clone(), exact: s.exact, sparseLeft: s.sparseLeft}
	c.cm = CountMin{width: s.cm.width, depth: s.cm.depth, cells: append([]uint64(nil), s.cm.cells...)}
	c.hh = *s.hh.clone()
	return c
}

// Reset empties s, keeping its config and most of its memory. It counts
// distinct keys exactly again, so that a small window encodes small.
func (s *Summary) Reset() {
	if s.hll == nil {
		s.ready()
		return
	}
	s.total = 0
	s.cm.Reset()
	s.hh.Reset()
	s.hll, s.sparseLeft = newHLL(), sparseInserts
	s.seen.reset()
	s.exact = true
}
