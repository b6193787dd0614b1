package detector

import (
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Saturation on the client side: the stream side's rule (Config's
// SaturationFraction and SaturationSeconds), counted the stream side's way
// (checkSecond in onset.go), against both of DynamoDB's per-partition
// limits. When a charge of a later second than the window's current one
// comes, the current second is over: every key whose reads (or writes)
// counted in it reached the level gets one saturated second. A call that
// ends in a second already past only raises its key's peak, as a late
// record does on the stream side, so the seconds are a lower bound.

// clientSaturation follows a ClientWindow's seconds.
type clientSaturation struct {
	readHalf, write uint64 // the levels: half RCU and WCU in one second
	sec             int64  // the latest second charged; before the window's start until the first
	// reads and writes hold the seconds, the current one aside, each key
	// spent at or above each level: the stream side's record (onset.go).
	reads, writes watchedKeys
	ticks         []sketch.TickEntry
}

// Watch sets the levels the window counts saturated seconds against from
// cfg (its SaturationFraction of PartitionLimit and ReadPartitionLimit,
// the client defaults filled in); until it is called, a window counts
// against the defaults. Report judges the seconds against cfg's
// SaturationSeconds.
func (w *ClientWindow) Watch(cfg Config) {
	w.sat.readHalf, w.sat.write, _ = cfg.SaturationLevels()
}

// SaturationLevels returns what makes a client key saturated: its reads
// (in half RCU) or its writes (in WCU) within one second at these levels
// or more for seconds seconds of a window. They are SaturationFraction of
// ReadPartitionLimit and PartitionLimit, the client defaults filled in:
// the rule ClientWindow counts, and clientwatch announces (HotSaturated)
// as it happens.
func (c Config) SaturationLevels() (readHalf, write uint64, seconds int) {
	c = c.withClientDefaults()
	readHalf, seconds = c.readSaturation()
	write, _ = c.saturation()
	return readHalf, write, seconds
}

// nextSecond is called with each charge's second: when it is later than
// the current one, the current second is over.
func (w *ClientWindow) nextSecond(tick int64) {
	s := &w.sat
	if tick <= s.sec {
		return
	}
	if s.sec >= w.start {
		w.countSecond(&s.reads, w.reads, s.readHalf)
		w.countSecond(&s.writes, w.writes, s.write)
	}
	s.sec = tick
}

// countSecond gives every key of sum at level or more in the current
// second one saturated second in keys.
func (w *ClientWindow) countSecond(keys *watchedKeys, sum *sketch.Summary, level uint64) {
	if sum == nil {
		return
	}
	s := &w.sat
	s.ticks = sum.AppendTick(s.ticks[:0], s.sec, level)
	for i := range s.ticks {
		if k := keys.get(s.ticks[i].Hash); k != nil { // past MaxWatchedKeys keys, seconds go uncounted
			k.saturated++
		}
	}
	clear(s.ticks) // keeps no key bytes of the summary alive
}

// saturatedSeconds returns, by key hash, the seconds in which each key's
// reads and writes reached their levels, the current second included (it
// is over when the window is reported at its close).
func (w *ClientWindow) saturatedSeconds() (reads, writes map[uint64]int) {
	s := &w.sat
	return s.reads.seconds(w.reads, s.sec, w.start, s.readHalf), s.writes.seconds(w.writes, s.sec, w.start, s.write)
}
