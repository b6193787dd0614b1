package keypattern

import (
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Verdict is what a pattern's figures say of its key design.
type Verdict string

// The verdicts, a closed set; Judge returns the first that applies, in
// this order. The names report already has are report's.
const (
	// SingleKey: every part is literal, so the pattern is one key, one
	// partition, whatever the traffic (OPS_LOG, BRAND_INDEX). On an index,
	// the caller reports it as report.PatternConstantKey.
	SingleKey = Verdict(report.PatternSingleKey)
	// TimeBucket: the only variable part is a time part, its keys are
	// written again and again, and the newest (or the current) value takes
	// most of the writes: one key at a time takes them (OPS_LOG#<date>).
	TimeBucket = Verdict(report.PatternTimeBucket)
	// DominantKey: one key takes most of the pattern's WCU, over enough
	// records to say so (THREAT#<brand> with one brand under attack).
	DominantKey = Verdict(report.PatternDominantKey)
	// LowCardinality: few distinct keys, written again and again, and no
	// variable part that could take many values (STATUS#<*>, SHARD_<n>
	// with ten shards).
	LowCardinality = Verdict(report.PatternLowCardinality)
	// Healthy: none of the above.
	Healthy = Verdict(report.PatternHealthy)
)

// Hazard reports whether v is one of the hazardous verdicts.
func (v Verdict) Hazard() bool { return v != Healthy && v != "" }

// Thresholds are the numbers Judge decides by. Start from
// DefaultThresholds; the package documentation says why each is what it
// is.
type Thresholds struct {
	// LowCardinality: fewer distinct keys than this are few.
	LowCardinality uint64
	// Repeats: records per distinct key before few keys are evidence of
	// a small key space (and before a time part's keys count as buckets):
	// a stream that never repeats a key has shown none of its key space's
	// size.
	Repeats float64
	// DominantShare: the lower bound of the heaviest key's share of the
	// pattern's WCU at which it dominates.
	DominantShare float64
	// DominantRecords and OpenDominantRecords: the records a pattern
	// needs before a dominant key is called, for a pattern whose variable
	// parts can take few values and for an open one (Open).
	DominantRecords, OpenDominantRecords uint64
	// TimeBucketShare: the share of the pattern's WCU that the newest (or
	// the current) time value must take to make it a bucket.
	TimeBucketShare float64
	// ShortNumber: a <n> part of at most this many digits can take few
	// values (ten shards, SHARD_0..SHARD_9); a longer one is an
	// identifier, open by design.
	ShortNumber int
}

// DefaultThresholds: under 100 distinct keys is low cardinality, with at
// least 2 records per key; a key dominates at half the pattern's WCU or
// more, after 10 records (100 for an open pattern); a time bucket takes
// half the WCU or more; a <n> of 1 or 2 digits can take few values.
func DefaultThresholds() Thresholds {
	return Thresholds{
		LowCardinality: 100, Repeats: 2,
		DominantShare: 0.5, DominantRecords: 10, OpenDominantRecords: 100,
		TimeBucketShare: 0.5, ShortNumber: 2,
	}
}

// Judge returns the verdict on a pattern's figures: the first that
// applies of SingleKey, TimeBucket, DominantKey, LowCardinality, and
// Healthy otherwise. It is a pure function of its arguments.
func Judge(f *Figures, th Thresholds) Verdict {
	open := th.Open(f)
	switch {
	case len(f.Vars) == 0:
		return SingleKey
	case len(f.Vars) == 1 && f.Vars[0].timed() && th.TimeBucket(f):
		return TimeBucket
	case th.dominant(f, open):
		return DominantKey
	case !open && f.Distinct < th.LowCardinality && th.repeated(f):
		return LowCardinality
	}
	return Healthy
}

// Open reports whether one of f's variable parts can take many values by
// design: a <uuid>, <id>, <hex>, <email> or <bytes>; a <n> longer than
// ShortNumber digits; a <datetime> that is a record's own timestamp (to
// the second). A pattern that is open is never of low cardinality: its
// few keys so far are too little traffic, not a small key space. <*>,
// <date>, short numbers and <datetime> buckets can take few values.
func (th Thresholds) Open(f *Figures) bool {
	for _, c := range f.Vars {
		switch c {
		case UUID, ID, Hex, Email, Bytes:
			return true
		case Number:
			if f.MaxDigits > th.ShortNumber {
				return true
			}
		case DateTime:
			if f.TimeResolution > 0 && f.TimeResolution < time.Minute {
				return true
			}
		}
	}
	return false
}

// TimeBucket reports whether f's time part is a bucket: its keys are
// written Repeats times each or more, and the newest or the current value
// took at least TimeBucketShare of the WCU. (The verdict TimeBucket also
// needs every other part literal: then one key takes those writes.)
func (th Thresholds) TimeBucket(f *Figures) bool {
	if f.TimeResolution == 0 || f.WCU == 0 || !th.repeated(f) {
		return false
	}
	need := th.TimeBucketShare * float64(f.WCU)
	return float64(f.NewestWCU) >= need || float64(f.CurrentWCU) >= need
}

func (th Thresholds) repeated(f *Figures) bool {
	return f.Distinct > 0 && float64(f.Records) >= th.Repeats*float64(f.Distinct)
}

func (th Thresholds) dominant(f *Figures, open bool) bool {
	need := th.DominantRecords
	if open {
		need = th.OpenDominantRecords
	}
	lower, _ := f.TopShare()
	return f.Records >= need && f.WCU > 0 && lower >= th.DominantShare
}
