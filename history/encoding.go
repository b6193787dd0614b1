package history

import (
	"cmp"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// MaxEncodedSize caps a summary's encoding so that its item (the encoding
// plus a few short attributes) stays within 16 KB: 16 WCU to write.
const MaxEncodedSize = 16*1024 - 512

// MaxRollupEncodedSize caps a rollup's encoding (MarshalRollup): DynamoDB's
// item limit is 400 KB (409,600 bytes, attribute names included), and the
// rollup's item adds a few short attributes.
const MaxRollupEncodedSize = 400_000

// maxDiagnosis caps a stored diagnosis, in bytes; longer ones are cut at a
// character boundary (a detector diagnosis is about 300 bytes).
const maxDiagnosis = 1024

// Versions of the encoding. Each summary has exactly one, the oldest that
// holds it, so that builds from before read every summary they could:
//
//   - 1: a table's window without internal errors, byte for byte as
//     before indexes existed;
//   - 2: adds what an index's window has (its name, never empty, and its
//     TTL WCU): an index's window without internal errors;
//   - 3: adds InternalErrors (never 0) to what version 2 holds, the index
//     name "" for a table's window: any window with internal errors;
//   - 4: holds everything: version 3's fields (InternalErrors may be 0),
//     Sources, the DistinctPartial flag, and the patterns versions 1 to 3
//     have no code for (constant_key): a rollup, or a shard's window
//     with such a key. Only a rollup (Sources > 0) may be larger than
//     MaxEncodedSize.
//   - 5: version 4 and each key's estimate (KeyFigures.WCU, stored as
//     its distance below the upper bound): a rollup some key of which
//     was not listed by every window merged into it, so that its
//     estimate is below its upper bound (see Estimate). Builds before it
//     skip such a rollup rather than take its upper bounds for estimates;
//   - 6: adds Duplicates (never 0) to what version 5 holds: a window or a
//     rollup that counted records delivered twice (Kinesis).
//
// A decoder refuses a version it does not know (ErrVersion), so a build
// from before version 3 skips a window with internal errors instead of
// reading it as complete, and one from before version 4 skips a window
// whose key pattern it would lose.
const (
	version1 = 1
	version2 = 2
	version3 = 3
	version4 = 4
	version5 = 5
	version6 = 6
)

// Counters: each version holds the first versionCounters[version] of
// report.Totals (in its encoding's order; version 1 the first five,
// version 2 TTLWCU too, 3 and 4 InternalErrors too), the first five before
// DistinctKeys and the ceiling, the rest after them. A counter Totals adds
// needs a new version here, and Version to write it where it is not 0.
const leadingCounters = 5

var versionCounters = [...]int{version1: leadingCounters, version2: 6, version3: 7, version4: 7, version5: 7, version6: 8}

// NewestVersion is the newest version this build writes; it reads every
// version from 1 up to it.
const NewestVersion = version6

// Version returns the version of the encoding MarshalBinary gives s: 6
// for a window or rollup that counted duplicates, 5
// for a rollup with a key whose estimate is below its upper bound, 4 for
// another rollup or a window with a pattern older versions cannot hold,
// else 3 for a window with internal errors, else 2 for an index's and 1
// for a table's. (A table's window has no TTLWCU: version 1 does not
// hold it.)
func (s *Summary) Version() int {
	switch {
	case s.Duplicates > 0:
		return version6
	case s.Sources > 0 && s.hasEstimates():
		return version5
	case s.Sources > 0 || s.DistinctPartial || s.hasNewPattern():
		return version4
	case s.InternalErrors > 0:
		return version3
	case s.Index != "":
		return version2
	}
	return version1
}

// hasEstimates says whether a key's estimate is below its upper bound.
func (s *Summary) hasEstimates() bool {
	for _, k := range s.Keys {
		if storedEstimate(k) < k.WCUUpper {
			return true
		}
	}
	return false
}

// storedEstimate is k's estimate as version 5 stores it: WCU within the
// bounds, the upper bound when unset.
func storedEstimate(k report.KeyReport) uint64 {
	if k.WCU == 0 || k.WCU > k.WCUUpper {
		return k.WCUUpper
	}
	return max(k.WCU, k.WCULower)
}

// hasNewPattern says whether a key's pattern has no code before version 4.
func (s *Summary) hasNewPattern() bool {
	for _, k := range s.Keys {
		if slices.Index(patterns, k.Pattern) >= oldPatterns {
			return true
		}
	}
	return false
}

// Errors. Every decoding error wraps ErrCorrupt or ErrVersion; one that
// ran out of input also wraps sketch.ErrTruncated.
var (
	ErrCorrupt  = errors.New("history: corrupt summary")
	ErrVersion  = errors.New("history: unknown summary version")
	ErrTooLarge = errors.New("history: summary too large even without keys")
)

// summaryFormat is the frame of a summary's encoding (package
// internal/frame): "hk", the version, the fields, a CRC-32C.
var summaryFormat = frame.Format{
	Name: "history", Magic: "hk", Oldest: version1, Newest: NewestVersion,
	Corrupt: ErrCorrupt, Version: ErrVersion,
}

var severities = []report.Severity{report.None, report.Warning, report.Critical}

// patterns are the codes of the key patterns: the first oldPatterns are
// those of versions 1 to 3 (which stored constant_key, unknown to them, as
// "": the pattern was lost), the rest version 4's.
var patterns = []report.Pattern{"", report.PatternSingleKey, report.PatternLowCardinality, report.PatternTimeBucket,
	report.PatternSingleItem, report.PatternShardedUneven, report.PatternShardedTooFew, report.PatternConstantKey}

const oldPatterns = 7

var (
	_ encoding.BinaryMarshaler   = (*Summary)(nil)
	_ encoding.BinaryUnmarshaler = (*Summary)(nil)
)

// MarshalBinary encodes the summary in at most MaxEncodedSize bytes: 'h',
// 'k', a version byte, the fields as varints and length-prefixed strings,
// the HyperLogLog deflated, and a CRC-32C of all of it.
//
// A summary too large to fit is trimmed, and its bounds stay honest: the
// lightest keys go first, flagged keys after them, and keys of at least 1
// % of the window last (see keepOrder); each dropped physical
// key raises OtherKeysWCUUpper to its upper bound, so it still bounds every
// key left out. Then, if need be, the HyperLogLog goes (DistinctKeys
// stays). The receiver is not changed; decoding the result gives the
// trimmed summary, with Trimmed set.
func (s *Summary) MarshalBinary() ([]byte, error) {
	return s.marshal(MaxEncodedSize, false)
}

// MarshalRollup encodes a rollup (Sources at least 1) as MarshalBinary
// does, in at most MaxRollupEncodedSize bytes, trimming the same way (it
// finds how many keys fit by bisection: a rollup may hold thousands).
func (s *Summary) MarshalRollup() ([]byte, error) {
	if s.Sources == 0 {
		return nil, fmt.Errorf("history: a rollup of %s without sources", Source(s.Table, s.Index))
	}
	return s.marshal(MaxRollupEncodedSize, true)
}

// marshal encodes s in at most limit bytes, dropping keys (in the reverse
// of keepOrder) and then the HyperLogLog until it fits. It tries
// every number of keys from all down, or, with bisect, finds the largest
// that fits in a logarithmic number of tries.
func (s *Summary) marshal(limit int, bisect bool) ([]byte, error) {
	hll, err := sketch.PackDistinct(s.Distinct)
	if err != nil {
		return nil, err
	}
	order := s.keepOrder()
	for _, withHLL := range []bool{true, false} {
		h := hll
		if !withHLL {
			h = nil
		}
		try := func(keep int) []byte {
			kept := slices.Clone(order[:keep])
			slices.Sort(kept) // back to heaviest first
			ceiling := s.OtherKeysWCUUpper
			for _, i := range order[keep:] {
				if len(s.Keys[i].Shards) == 0 {
					ceiling = max(ceiling, s.Keys[i].WCUUpper)
				}
			}
			return s.encode(s.versionOf(kept), kept, ceiling, keep < len(order) || s.Trimmed, h)
		}
		if !bisect {
			for keep := len(order); keep >= 0; keep-- {
				if b := try(keep); len(b) <= limit {
					return b, nil
				}
			}
			continue
		}
		if b := try(len(order)); len(b) <= limit {
			return b, nil
		}
		best := try(0)
		if len(best) > limit {
			continue
		}
		// try(lo) fits, try(hi) does not.
		lo, hi := 0, len(order)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if b := try(mid); len(b) <= limit {
				lo, best = mid, b
			} else {
				hi = mid
			}
		}
		return best, nil
	}
	return nil, fmt.Errorf("%w: table %q, shard %q, %d shard reports", ErrTooLarge, s.Table, s.Shard, len(s.Shards))
}

// keepOrder returns the indexes of s.Keys in the order they are kept when
// the encoding must shrink: first every key whose lower bound is at least
// 1 % of the window's WCU (Significant), then the flagged keys, then the
// rest, each group heaviest first (as s.Keys are). A heavy key that is
// not flagged thus outlives a light flagged one: whoever reads the
// summary, or a rollup of it, sees the same heavy keys as whoever reads
// the windows it was made of.
func (s *Summary) keepOrder() []int {
	order := make([]int, len(s.Keys))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		switch k := s.Keys[i]; {
		case Significant(k.WCULower, s.WCU):
			return 0
		case k.Severity != report.None:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank(a), rank(b)) })
	return order
}

// SignificantShare is the share of a window's WCU from which a key is kept
// whatever else a rollup or a trimmed summary drops: 1 %.
const SignificantShare = 0.01

// Significant says whether wcu is at least SignificantShare of total.
func Significant(wcu, total uint64) bool {
	return total > 0 && float64(wcu) >= SignificantShare*float64(total)
}

// versionOf returns the version s is written as when it keeps only the
// keys at indexes keys: Version, but 4 rather than 5 when no key kept has
// an estimate below its upper bound.
func (s *Summary) versionOf(keys []int) int {
	v := s.Version()
	if v != version5 {
		return v
	}
	for _, i := range keys {
		if storedEstimate(s.Keys[i]) < s.Keys[i].WCUUpper {
			return v
		}
	}
	return version4
}

// encode writes s as version (s.Version(); tests forge others).
//
// Long because it writes the format's fields in their order, one by one.
func (s *Summary) encode(version int, keys []int, ceiling uint64, trimmed bool, hll []byte) []byte {
	b := make([]byte, 0, 1024+len(hll))
	v2 := version >= version2 // versions 2 and 3 hold the index's fields
	b = summaryFormat.AppendHeader(b, byte(version))
	b = frame.AppendString(b, s.Table)
	if v2 {
		b = frame.AppendString(b, s.Index)
	}
	b = frame.AppendString(b, s.Shard)
	b = binary.AppendVarint(b, s.Start.Unix())
	b = binary.AppendVarint(b, s.End.Unix())
	b = s.AppendCounters(b, 0, leadingCounters)
	b = binary.AppendUvarint(b, s.DistinctKeys)
	b = binary.AppendUvarint(b, ceiling)
	b = s.AppendCounters(b, leadingCounters, versionCounters[version])
	if version >= version4 {
		b = binary.AppendUvarint(b, s.Sources)
	}
	var flags byte
	if s.WCUIsLowerBound {
		flags |= 1
	}
	if s.TerminatedEarly {
		flags |= 2
	}
	if trimmed {
		flags |= 4
	}
	if s.DistinctPartial {
		flags |= 8 // version 4 only: Version says so
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(s.Shards)))
	for _, sh := range s.Shards {
		b = frame.AppendString(b, sh.Shard)
		b = binary.AppendUvarint(b, sh.Records)
		b = binary.AppendUvarint(b, sh.WCU)
		b = binary.AppendUvarint(b, wholeRate(sh.PeakWCUPerSecond))
	}
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, i := range keys {
		k := s.Keys[i]
		b = frame.AppendString(b, k.Type)
		b = frame.AppendString(b, k.Key)
		b = binary.AppendUvarint(b, k.WCULower)
		b = binary.AppendUvarint(b, k.WCUUpper)
		if version >= version5 {
			b = binary.AppendUvarint(b, k.WCUUpper-storedEstimate(k))
		}
		b = binary.AppendUvarint(b, wholeRate(k.PeakWCUPerSecond))
		b = append(b, byte(max(0, slices.Index(severities, k.Severity))), byte(max(0, slices.Index(patterns, k.Pattern))))
		b = binary.AppendUvarint(b, uint64(max(0, k.RecommendedShards)))
		b = frame.AppendString(b, cut(k.Diagnosis, maxDiagnosis))
		b = binary.AppendUvarint(b, uint64(len(k.Shards)))
		for _, p := range k.Shards {
			b = frame.AppendString(b, p.Key)
			b = binary.AppendUvarint(b, p.WCU)
		}
	}
	b = frame.AppendString(b, string(hll))
	return frame.AppendChecksum(b, 0)
}

// UnmarshalBinary decodes a summary. It rejects truncated, corrupt,
// foreign and oversized input with an error wrapping ErrCorrupt or
// ErrVersion, and never panics; on error s is unchanged.
func (s *Summary) UnmarshalBinary(data []byte) error {
	version, r, err := summaryFormat.Open(data)
	if err != nil {
		return err
	}
	if limit := MaxEncodedSize; len(data) > limit && (version < version4 || len(data) > MaxRollupEncodedSize) {
		if version >= version4 {
			limit = MaxRollupEncodedSize
		}
		return fmt.Errorf("history: %d bytes, over %d: %w", len(data), limit, ErrCorrupt)
	}
	var out Summary
	readWindow(&r, int(version), &out)
	if r.Err() == nil && out.Sources == 0 && len(data) > MaxEncodedSize {
		r.Failf("a shard's window of %d bytes, over %d", len(data), MaxEncodedSize)
	}
	n := r.Count(2)
	for range n {
		out.Shards = append(out.Shards, report.ShardReport{Shard: r.Text(), Records: r.Uvarint(), WCU: r.Uvarint(), PeakWCUPerSecond: float64(r.Uvarint())})
	}
	readKeys(&r, int(version), &out)
	hll := r.Text()
	if r.Err() == nil && r.Len() != 0 {
		r.Failf("%d trailing bytes", r.Len())
	}
	if r.Err() == nil && !out.End.After(out.Start) {
		r.Failf("window end %s not after start %s", out.End, out.Start)
	}
	if r.Err() == nil && version >= version4 && out.Version() != int(version) {
		// One encoding per summary: what an older version holds is
		// written as that version.
		r.Failf("version %d holding a window of version %d", version, out.Version())
	}
	if r.Err() != nil {
		return r.Err()
	}
	if hll != "" {
		enc, err := sketch.UnpackDistinct([]byte(hll))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		out.Distinct = enc
	}
	*s = out
	return nil
}

// readWindow reads what a summary says of its window: names, times,
// counts and flags, as version holds them.
func readWindow(r *frame.Reader, version int, out *Summary) {
	v2 := version >= version2 // versions 2 and 3 hold the index's fields
	out.Table = r.Text()
	if v2 {
		// Version 3 may be a table's window; version 2 is an index's.
		if out.Index = r.Text(); out.Index == "" && version == version2 && r.Err() == nil {
			r.Failf("version 2 without an index")
		}
	}
	out.Shard = r.Text()
	start, end := r.Varint(), r.Varint()
	out.Start, out.End = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
	out.ReadCounters(r, 0, leadingCounters)
	out.DistinctKeys, out.OtherKeysWCUUpper = r.Uvarint(), r.Uvarint()
	out.ReadCounters(r, leadingCounters, versionCounters[version])
	// Without internal errors the window is written as version 1 or 2:
	// one encoding per summary, whose version is Version().
	if version == version3 && out.InternalErrors == 0 && r.Err() == nil {
		r.Failf("version 3 without internal errors")
	}
	if version >= version4 {
		out.Sources = r.Uvarint()
	}
	flags := r.Byte()
	out.WCUIsLowerBound, out.TerminatedEarly, out.Trimmed = flags&1 != 0, flags&2 != 0, flags&4 != 0
	out.DistinctPartial = flags&8 != 0
	if version >= version4 && flags > 15 || version < version4 && flags > 7 {
		r.Failf("unknown flags %#x", flags)
	}
}

// readKeys reads the keys, refusing a key listed twice.
func readKeys(r *frame.Reader, version int, out *Summary) {
	known := len(patterns)
	if version < version4 {
		known = oldPatterns
	}
	n := r.Count(8)
	seen := make(map[keyID]bool, n)
	if n > 0 {
		out.Keys = make([]report.KeyReport, 0, n)
	}
	for range n {
		k := report.KeyReport{KeyFigures: report.KeyFigures{Type: r.Text(), Key: r.Text(), WCULower: r.Uvarint(), WCUUpper: r.Uvarint()}}
		k.WCU = k.WCUUpper
		if version >= version5 {
			if below := r.Uvarint(); below <= k.WCUUpper-min(k.WCULower, k.WCUUpper) {
				k.WCU = k.WCUUpper - below
			} else {
				r.Failf("key estimate %d below its upper bound %d, under its lower bound %d", below, k.WCUUpper, k.WCULower)
			}
		}
		k.PeakWCUPerSecond = float64(r.Uvarint())
		sev, pat := int(r.Byte()), int(r.Byte())
		if sev >= len(severities) || pat >= known {
			r.Failf("severity %d or pattern %d unknown", sev, pat)
			return
		}
		k.Severity, k.Pattern = severities[sev], patterns[pat]
		k.RecommendedShards = int(min(r.Uvarint(), 1<<20))
		k.Diagnosis = r.Text()
		parts := r.Count(2)
		for range parts {
			k.Shards = append(k.Shards, report.ShardedKeyPart{Key: r.Text(), WCU: r.Uvarint()})
		}
		if k.WCULower > k.WCUUpper {
			r.Failf("key bounds [%d, %d] inverted", k.WCULower, k.WCUUpper)
		}
		// A key listed twice would be counted twice when merged.
		if id := (keyID{k.Type, k.Key, len(k.Shards) > 0}); seen[id] {
			r.Failf("key %q listed twice", k.Key)
		} else {
			seen[id] = true
		}
		out.Keys = append(out.Keys, k)
	}
}

// wholeRate stores a rate (WCU within one second: a whole number) as an
// integer.
func wholeRate(f float64) uint64 {
	if !(f > 0) {
		return 0
	}
	return uint64(min(math.Round(f), 1<<53))
}

// cut shortens s to at most n bytes at a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
