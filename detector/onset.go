package detector

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Onsets inside a window. A window that watches (Watch) looks, at the end
// of every second of record time and whenever its caller asks (Onsets), at
// the keys whose weight counted in that second reached the critical rate.
// It announces each such key once per window: the first second in which
// what the key certainly wrote (the heavy hitters' count of that second,
// a lower bound) reached Config.CriticalWCUPerSecond. So an onset is never
// a false alarm. A key that entered the heavy hitters during the second
// has its earlier records of it left out, which only delays its onset.

// MaxWatchedKeys bounds the keys a window remembers in its state (the
// announced ones, and those that reached the saturation level): 128 keys
// of at most 11 bytes encoded (a hash, a flag, a count of seconds under
// 900), 1.4 KB of a tumbling window's state per window.
// A stream shard, about one partition, admits about one key per second at
// the critical rate, so a 15-minute window rarely needs more; past it, a
// key that crosses is not announced, and counted (OnsetsDropped).
const MaxWatchedKeys = 128

// watchedKey is a key that reached a watched level in some second of the
// window.
type watchedKey struct {
	hash      uint64 // sketch.Hash of the typed key
	announced bool
	saturated uint32 // seconds at or above the saturation level, the current one aside
}

// watch is what a watching window checks its seconds against.
type watch struct {
	on   bool // Watch was called
	cfg  Config
	crit uint64 // the critical rate as whole WCU in one second
	sat  uint64 // the saturation level, likewise
}

// levelOf returns the least whole number of WCU that reaches x (a rate per
// second), so that 800 stays 800 whatever x's rounding.
func levelOf(x float64) uint64 {
	return uint64(max(math.Ceil(x-1e-9), 1))
}

// Watch makes the window announce onsets (see Onsets) against cfg's
// critical rate, redacting and diagnosing keys as cfg's reports do. A
// WindowSet's windows watch, afresh after UnmarshalState (the state
// carries what was announced, not the configuration).
//
// A watching window also counts, for each key and each stream shard, the
// seconds in which its WCU reached cfg's saturation level (see
// Config.SaturationFraction): its report says which are saturated.
func (w *Window) Watch(cfg Config) {
	sat, _ := cfg.saturation()
	w.watch = watch{on: true, cfg: cfg, crit: levelOf(cfg.CriticalWCUPerSecond), sat: sat}
}

// nextSecond is called when a record of a later second than the window's
// current one comes: the current second is over.
func (w *Window) nextSecond(tick int64) {
	if w.watch.on && w.sec >= w.start {
		w.checkSecond(true)
	}
	w.sec = tick
}

// Onsets appends to dst the onsets found since the last call, and those of
// the current second so far, in the order they were found (by second),
// and forgets them. A watching window's caller calls it after each batch,
// so that an onset is announced with the batch that counted it.
func (w *Window) Onsets(dst []report.Onset) []report.Onset {
	if w.watch.on && w.sec >= w.start {
		w.checkSecond(false)
	}
	dst = append(dst, w.pending...)
	clear(w.pending)
	w.pending = w.pending[:0]
	return dst
}

// OnsetsDropped counts the onsets not announced because the window already
// remembered MaxWatchedKeys keys: the seconds, each key's counted apart,
// in which a key it could not remember reached the critical rate.
func (w *Window) OnsetsDropped() uint64 { return w.dropped }

// checkSecond announces the keys whose weight in the current second has
// reached the critical rate, unless announced before in the window. over
// says the second is over (a later one has begun); otherwise it is the
// second so far.
//
// A second that is over also counts, for each key that reached the
// saturation level in it, one saturated second.
func (w *Window) checkSecond(over bool) {
	crit, sat := w.watch.crit, w.watch.sat
	level := crit
	if over {
		level = min(crit, sat)
	}
	w.ticks = w.summary.AppendTick(w.ticks[:0], w.sec, level)
	for i := range w.ticks {
		e := &w.ticks[i]
		k := w.watchedKeys.get(e.Hash)
		if k != nil && over && e.Weight >= sat {
			k.saturated++
		}
		switch {
		case e.Weight < crit:
		case k == nil && over:
			w.dropped++
		case k != nil && !k.announced:
			k.announced = true
			w.pending = append(w.pending, w.onset(e, !over))
		}
	}
}

// saturatedSeconds returns, by key hash, the seconds in which each key's
// WCU reached the saturation level, the current second included (it is
// over when the window is reported at its close); nil for a window that
// does not watch.
func (w *Window) saturatedSeconds() map[uint64]int {
	if !w.watch.on {
		return nil
	}
	return w.watchedKeys.seconds(w.summary, w.sec, w.start, w.watch.sat)
}

// watchedKeys records the keys that reached a watched level in some second
// of a window, at most MaxWatchedKeys of them: a stream window's, and each
// side (reads, writes) of a client window's.
type watchedKeys []watchedKey

// find returns the record of the key of hash h; nil if there is none.
func (ks watchedKeys) find(h uint64) *watchedKey {
	for i := range ks {
		if ks[i].hash == h {
			return &ks[i]
		}
	}
	return nil
}

// get returns the record of the key of hash h, making one if there is
// room; nil if there is none.
func (ks *watchedKeys) get(h uint64) *watchedKey {
	if k := ks.find(h); k != nil {
		return k
	}
	if len(*ks) >= MaxWatchedKeys {
		return nil
	}
	*ks = append(*ks, watchedKey{hash: h})
	return &(*ks)[len(*ks)-1]
}

// seconds returns, by key hash, each key's saturated seconds, and one more
// for each key of sum at level or more in second sec when sec is one of
// the window's (sec >= start): the current second, over when the window
// is reported at its close.
func (ks watchedKeys) seconds(sum *sketch.Summary, sec, start int64, level uint64) map[uint64]int {
	m := map[uint64]int{}
	for _, k := range ks {
		if k.saturated > 0 {
			m[k.hash] = int(k.saturated)
		}
	}
	if sec >= start && sum != nil {
		for _, e := range sum.AppendTick(nil, sec, level) {
			m[e.Hash]++
		}
	}
	return m
}

// onset describes a key that crossed in the current second, judged and
// explained against the window so far.
func (w *Window) onset(e *sketch.TickEntry, soFar bool) report.Onset {
	cfg := w.watch.cfg
	j := judge{cfg: cfg, total: w.totals.WCU, seconds: float64(w.end - w.start), index: w.index}
	k := j.physical(e.Entry)
	j.explain(&k, e.Entry)
	w.judgeAsShard(j, &k, e.Entry)
	return report.Onset{
		Window:         report.Window{Table: w.table, Index: w.index, Start: w.Start(), End: w.End()},
		Second:         time.Unix(w.sec, 0).UTC(),
		SecondWCULower: e.Weight,
		SecondWCUUpper: e.Weight + (e.Upper - e.Lower),
		SecondSoFar:    soFar,
		Key:            k.KeyFigures,
	}
}

// judgeAsShard gives k, a key that crossed, the pattern, shard count and
// diagnosis of its logical key when it is one of the write shards of a
// key the window so far judges as sharded (too few, or uneven), as the
// window's report will: EVENTS#SHARD_0 is then sharded_too_few, not
// single_key. It reads the window's keys only for a key that looks like a
// shard, and onsets are rare.
func (w *Window) judgeAsShard(j judge, k *report.KeyReport, e sketch.Entry) {
	if ddb.KeyType(e.Key[0]) != ddb.String {
		return
	}
	if _, _, _, ok := shardSuffix(string(e.Key[1:])); !ok {
		return
	}
	entries := w.summary.Top(w.summary.Config().Counters)
	keys := make([]report.KeyReport, len(entries))
	for i, x := range entries {
		keys[i] = j.physical(x)
	}
	j.shardedKeys(entries, keys)
	for i := range entries {
		if string(entries[i].Key) == string(e.Key) && keys[i].Diagnosis != "" {
			k.Pattern, k.RecommendedShards, k.Diagnosis = keys[i].Pattern, keys[i].RecommendedShards, keys[i].Diagnosis
		}
	}
}

// mergeWatched adds other's watched keys into w's, within the bound.
func (w *Window) mergeWatched(other *Window) {
	for _, o := range other.watchedKeys {
		if k := w.watchedKeys.get(o.hash); k != nil {
			k.announced = k.announced || o.announced
			k.saturated += o.saturated
		}
	}
	w.dropped += other.dropped
	w.sec = max(w.sec, other.sec)
}

// Onsets appends to dst the onsets of every open window (see
// Window.Onsets), by second, then table, index and key, and forgets them.
// Call it after each batch of records, before Flush.
func (d *Detector) Onsets(dst []report.Onset) []report.Onset {
	n := len(dst)
	for _, s := range d.open {
		dst = s.appendOnsets(dst)
	}
	sortOnsets(dst[n:])
	return dst
}

// sortOnsets orders onsets by second, then table, index and key: the
// order they are announced in.
func sortOnsets(onsets []report.Onset) {
	slices.SortFunc(onsets, func(a, b report.Onset) int {
		return cmp.Or(a.Second.Compare(b.Second), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Index, b.Index), cmp.Compare(a.Key.Key, b.Key.Key))
	})
}

// Announced reports whether the window has announced key's onset: it
// remembers that (in its encoding too) until it closes.
func (w *Window) Announced(key ddb.Key) bool {
	k := w.watchedKeys.find(sketch.Hash(appendTypedKey(nil, key)))
	return k != nil && k.announced
}
