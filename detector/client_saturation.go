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

// clientSatKey is a key that reached a saturation level in some second of
// the window.
type clientSatKey struct {
	hash        uint64 // sketch.Hash of the typed key
	read, write uint32 // seconds at or above each level, the current one aside
}

// clientSaturation follows a ClientWindow's seconds.
type clientSaturation struct {
	readHalf, write uint64 // the levels: half RCU and WCU in one second
	sec             int64  // the latest second charged; before the window's start until the first
	keys            []clientSatKey
	ticks           []sketch.TickEntry
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
		w.countSecond(w.reads, s.readHalf, true)
		w.countSecond(w.writes, s.write, false)
	}
	s.sec = tick
}

// countSecond gives every key of sum at level or more in the current
// second one saturated second, of reads or of writes.
func (w *ClientWindow) countSecond(sum *sketch.Summary, level uint64, read bool) {
	if sum == nil {
		return
	}
	s := &w.sat
	s.ticks = sum.AppendTick(s.ticks[:0], s.sec, level)
	for i := range s.ticks {
		k := s.key(sketch.Hash(s.ticks[i].Key))
		switch {
		case k == nil: // past MaxWatchedKeys keys, a window's seconds go uncounted
		case read:
			k.read++
		default:
			k.write++
		}
	}
	clear(s.ticks) // keeps no key bytes of the summary alive
}

// key returns the record of the key of hash h, making one if there is
// room; nil if there is none.
func (s *clientSaturation) key(h uint64) *clientSatKey {
	for i := range s.keys {
		if s.keys[i].hash == h {
			return &s.keys[i]
		}
	}
	if len(s.keys) >= MaxWatchedKeys {
		return nil
	}
	s.keys = append(s.keys, clientSatKey{hash: h})
	return &s.keys[len(s.keys)-1]
}

// saturatedSeconds returns, by key hash, the seconds in which each key's
// reads and writes reached their levels, the current second included (it
// is over when the window is reported at its close).
func (w *ClientWindow) saturatedSeconds() map[uint64]clientSatKey {
	m := make(map[uint64]clientSatKey, len(w.sat.keys))
	for _, k := range w.sat.keys {
		m[k.hash] = k
	}
	if w.sat.sec < w.start {
		return m
	}
	for _, side := range []struct {
		sum   *sketch.Summary
		level uint64
		read  bool
	}{{w.reads, w.sat.readHalf, true}, {w.writes, w.sat.write, false}} {
		if side.sum == nil {
			continue
		}
		for _, e := range side.sum.AppendTick(nil, w.sat.sec, side.level) {
			h := sketch.Hash(e.Key)
			k := m[h]
			k.hash = h
			if side.read {
				k.read++
			} else {
				k.write++
			}
			m[h] = k
		}
	}
	return m
}
