package detector

import (
	"unsafe"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// SaturatedSeconds counts, for at most MaxWatchedKeys keys, the seconds in
// which each key's units reached a level: the stream window's record of
// saturation (watchedKeys), for a window that keeps its own summaries and
// seconds. The client engine (package clientwatch/clientwindow) keeps one
// for reads and one for writes. The zero value is empty and ready to use.
type SaturatedSeconds struct{ keys watchedKeys }

// Count gives every key of sum whose units in second sec reached level one
// saturated second; past MaxWatchedKeys keys, seconds go uncounted, a
// lower bound. Call it once per second, when the second is over. ticks is
// scratch space, returned for the next call, cleared so that it keeps no
// key bytes of sum alive.
func (s *SaturatedSeconds) Count(sum *sketch.Summary, sec int64, level uint64, ticks []sketch.TickEntry) []sketch.TickEntry {
	ticks = sum.AppendTick(ticks[:0], sec, level)
	for i := range ticks {
		if k := s.keys.get(ticks[i].Hash); k != nil {
			k.saturated++
		}
	}
	clear(ticks)
	return ticks
}

// Seconds returns, by key hash (sketch.Hash of the typed key), each key's
// saturated seconds, and one more for each key of sum at level or more in
// second sec when sec is one of the window's (sec >= start): the current
// second, over when the window is reported at its close.
func (s *SaturatedSeconds) Seconds(sum *sketch.Summary, sec, start int64, level uint64) map[uint64]int {
	return s.keys.seconds(sum, sec, start, level)
}

// MaxBytes bounds the heap a SaturatedSeconds holds.
func (*SaturatedSeconds) MaxBytes() int {
	return MaxWatchedKeys * int(unsafe.Sizeof(watchedKey{}))
}
