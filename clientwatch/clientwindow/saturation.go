package clientwindow

import (
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Saturation on the client side: the stream side's rule
// (detector.Config's SaturationFraction and SaturationSeconds, through
// SaturationLevel), counted the stream side's way
// (detector.SaturatedSeconds), against both of DynamoDB's per-partition
// limits. When a charge of a later second than the window's current one
// comes, the current second is over: every key whose reads (or writes)
// counted in it reached the level gets one saturated second. A call that
// ends in a second already past only raises its key's peak, as a late
// record does on the stream side, so the seconds are a lower bound.

// saturation follows a Window's seconds.
type saturation struct {
	readHalf, write uint64 // the levels: half RCU and WCU in one second
	sec             int64  // the latest second charged; before the window's start until the first
	// reads and writes hold the seconds, the current one aside, each key
	// spent at or above each level.
	reads, writes detector.SaturatedSeconds
	ticks         []sketch.TickEntry
}

// Watch sets the levels the window counts saturated seconds against from
// cfg (its SaturationFraction of PartitionLimit and ReadPartitionLimit,
// the client defaults filled in); until it is called, a window counts
// against the defaults. Report judges the seconds against cfg's
// SaturationSeconds.
func (w *Window) Watch(cfg detector.Config) {
	w.sat.readHalf, w.sat.write, _ = SaturationLevels(cfg)
}

// SaturationLevels returns what makes a client key saturated under cfg:
// its reads (in half RCU) or its writes (in WCU) within one second at
// these levels or more for seconds seconds of a window. They are
// SaturationFraction of ReadPartitionLimit and PartitionLimit, the client
// defaults filled in: the rule Window counts, and clientwatch announces
// (HotSaturated) as it happens.
func SaturationLevels(cfg detector.Config) (readHalf, write uint64, seconds int) {
	cfg = withDefaults(cfg)
	readHalf, seconds = cfg.SaturationLevel(2 * cfg.ReadPartitionLimit)
	write, _ = cfg.SaturationLevel(cfg.PartitionLimit)
	return readHalf, write, seconds
}

// nextSecond is called with each charge's second: when it is later than
// the current one, the current second is over.
func (w *Window) nextSecond(tick int64) {
	s := &w.sat
	if tick <= s.sec {
		return
	}
	if s.sec >= w.start {
		if w.reads != nil {
			s.ticks = s.reads.Count(w.reads, s.sec, s.readHalf, s.ticks)
		}
		if w.writes != nil {
			s.ticks = s.writes.Count(w.writes, s.sec, s.write, s.ticks)
		}
	}
	s.sec = tick
}

// saturatedSeconds returns, by key hash, the seconds in which each key's
// reads and writes reached their levels, the current second included (it
// is over when the window is reported at its close).
func (w *Window) saturatedSeconds() (reads, writes map[uint64]int) {
	s := &w.sat
	return s.reads.Seconds(w.reads, s.sec, w.start, s.readHalf), s.writes.Seconds(w.writes, s.sec, w.start, s.write)
}
