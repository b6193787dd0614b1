package clientwatch

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
)

// HotKeyReason says what made a key hot, as HotKeyEvent reports it.
type HotKeyReason string

// The reasons a key is announced, each at most once per key and window.
const (
	// HotReads: the key's RCU within one second reached
	// Detector.CriticalRCUPerSecond (2,400 by default, 80 % of DynamoDB's
	// 3,000 RCU/s per partition).
	HotReads HotKeyReason = "reads"
	// HotWrites: its WCU within one second reached
	// Detector.CriticalWCUPerSecond (800 by default, of 1,000 WCU/s).
	HotWrites HotKeyReason = "writes"
	// HotSaturated: its reads or writes stayed at 90 % or more of the
	// partition's limit for SaturatedSeconds (3) seconds of the window
	// (Detector.SaturationFraction and SaturationSeconds; the window's
	// report counts the same seconds): pinned at the limit, it is most
	// likely being throttled.
	HotSaturated HotKeyReason = "saturated"
	// HotThrottled: DynamoDB throttled a call on it.
	HotThrottled HotKeyReason = "throttled"
)

// SaturatedSeconds is how many seconds of a window a key must spend at 90 %
// or more of a partition's limit to be announced HotSaturated, by default
// (Detector.SaturationSeconds sets it).
const SaturatedSeconds = detector.DefaultSaturationSeconds

// HotKeyEvent announces a key that just went hot, within the second it
// did: Options.OnHotKey receives it off the request path.
type HotKeyEvent struct {
	Table string
	Index string // the global secondary index whose key it is; "" for the table's
	// Key is the partition key as reports show it: S as is, N canonical,
	// B base64; a keyed hash when the detector redacts keys.
	Key    string
	Reason HotKeyReason
	// Second is the second (of the Watcher's clock) the key crossed in.
	Second time.Time
	// RCU and WCU are at least what the key consumed within that second
	// when it crossed (for HotSaturated, in its latest second at 90 %);
	// 0 for HotThrottled.
	RCU float64
	WCU uint64
}

// Bounds of the hot-key announcements: a window keeps the state of at
// most maxHotKeys keys (those that reached a rate or 90 % of a limit), of
// which it follows at most maxSaturating second by second; at most
// hotQueue announcements wait for OnHotKey. Past any of them
// announcements are dropped and counted (Failures.HotKeysDropped), never
// a call blocked.
const (
	maxHotKeys    = 256
	maxSaturating = 64
	hotQueue      = 64
)

// hotWatch finds the keys to announce as the calls are recorded (under
// Watcher.mu) and queues the announcements; Run hands them to OnHotKey.
type hotWatch struct {
	fn     func(HotKeyEvent)
	cfg    detector.Config
	events chan HotKeyEvent
	lost   atomic.Uint64

	readAt, writeAt   uint64 // the rates, in half RCU and WCU per second
	satRead, satWrite uint64 // the saturation levels (90 % of the partition's limits), likewise
	satSecs           int    // the seconds at them that make a key saturated
	wins              map[windowKey]*hotWindow
	buf               []byte // a typed key, under Watcher.mu
}

// hotWindow holds, for one window, the keys near a rate or a limit.
type hotWindow struct {
	cw        *clientwindow.Window
	keys      map[string]*hotKey // by typed key
	following int                // keys followed for saturation
}

// hotKey is what one key has announced, and, once it reached 90 % of a
// limit, its units in its latest second and the seconds they reached it.
type hotKey struct {
	announced           uint8 // a bit per reason (reasonBit)
	following           bool
	tick                int64
	rcuHalf, wcu        uint64
	readSecs, writeSecs int
}

func reasonBit(r HotKeyReason) uint8 {
	switch r {
	case HotReads:
		return 1
	case HotWrites:
		return 2
	case HotSaturated:
		return 4
	}
	return 8
}

func newHotWatch(fn func(HotKeyEvent), cfg detector.Config) *hotWatch {
	satRead, satWrite, satSecs := clientwindow.SaturationLevels(cfg)
	readAt, writeAt := clientwindow.CriticalLevels(cfg)
	return &hotWatch{
		fn:       fn,
		cfg:      cfg,
		events:   make(chan HotKeyEvent, hotQueue),
		readAt:   readAt,
		writeAt:  writeAt,
		satRead:  satRead,
		satWrite: satWrite,
		satSecs:  satSecs,
		wins:     map[windowKey]*hotWindow{},
	}
}

// forget drops the state of a window that closed.
func (h *hotWatch) forget(k windowKey) { delete(h.wins, k) }

// key returns the state of key in window cw of k (nil past maxHotKeys),
// afresh when cw is a new window.
func (h *hotWatch) key(k windowKey, cw *clientwindow.Window, key ddb.Key) (*hotWindow, *hotKey) {
	hw := h.wins[k]
	if hw == nil {
		hw = &hotWindow{keys: map[string]*hotKey{}}
		h.wins[k] = hw
	}
	if hw.cw != cw {
		hw.cw, hw.following = cw, 0
		clear(hw.keys)
	}
	h.buf = append(append(h.buf[:0], byte(key.Type)), key.Value...)
	hk := hw.keys[string(h.buf)]
	if hk == nil {
		if len(hw.keys) >= maxHotKeys {
			h.lost.Add(1)
			return hw, nil
		}
		hk = &hotKey{}
		hw.keys[string(h.buf)] = hk
	}
	return hw, hk
}

// charged looks at key of window cw of k just after a call charged it
// rcuHalf and wcu at t: has it crossed a rate, or reached 90 % of a limit
// in a third second?
func (h *hotWatch) charged(k windowKey, cw *clientwindow.Window, key ddb.Key, t time.Time, rcuHalf, wcu uint64) {
	if rcuHalf == 0 && wcu == 0 {
		return
	}
	rp, wp := cw.KeyPeaks(key)
	if rp < min(h.readAt, h.satRead) && wp < min(h.writeAt, h.satWrite) {
		return // most calls: nothing near a rate
	}
	hw, hk := h.key(k, cw, key)
	if hk == nil {
		return
	}
	tick := t.Unix()
	if rcuHalf > 0 && rp >= h.readAt {
		h.announce(k, hk, key, HotReads, tick, rp, 0)
	}
	if wcu > 0 && wp >= h.writeAt {
		h.announce(k, hk, key, HotWrites, tick, 0, wp)
	}
	switch {
	case hk.following:
		switch {
		case tick < hk.tick:
			return // a call that ended in a second already past: left out, a lower bound
		case tick > hk.tick:
			hk.tick, hk.rcuHalf, hk.wcu = tick, 0, 0
		}
		r0, w0 := hk.rcuHalf, hk.wcu
		hk.rcuHalf += rcuHalf
		hk.wcu += wcu
		hk.readSecs += b2i(r0 < h.satRead && hk.rcuHalf >= h.satRead)
		hk.writeSecs += b2i(w0 < h.satWrite && hk.wcu >= h.satWrite)
	case (rp >= h.satRead || wp >= h.satWrite) && hw.following < maxSaturating:
		// Its second so far: the whole peak if this charge made it reach
		// the limit (then the peak is this second's), else this charge.
		hk.following, hk.tick = true, tick
		hw.following++
		hk.rcuHalf, hk.wcu = rcuHalf, wcu
		if rp >= h.satRead && rp-rcuHalf < h.satRead {
			hk.rcuHalf = rp
		}
		if wp >= h.satWrite && wp-wcu < h.satWrite {
			hk.wcu = wp
		}
		hk.readSecs, hk.writeSecs = b2i(hk.rcuHalf >= h.satRead), b2i(hk.wcu >= h.satWrite)
	default:
		return
	}
	if hk.readSecs >= h.satSecs || hk.writeSecs >= h.satSecs {
		var r, w uint64
		if hk.readSecs >= h.satSecs {
			r = hk.rcuHalf
		}
		if hk.writeSecs >= h.satSecs {
			w = hk.wcu
		}
		h.announce(k, hk, key, HotSaturated, tick, r, w)
	}
}

// throttled announces key of window cw of k throttled at t.
func (h *hotWatch) throttled(k windowKey, cw *clientwindow.Window, key ddb.Key, t time.Time) {
	if _, hk := h.key(k, cw, key); hk != nil {
		h.announce(k, hk, key, HotThrottled, t.Unix(), 0, 0)
	}
}

// announce queues one announcement of key for reason, unless it was made
// in this window already; it never blocks.
func (h *hotWatch) announce(k windowKey, hk *hotKey, key ddb.Key, reason HotKeyReason, tick int64, rcuHalf, wcu uint64) {
	bit := reasonBit(reason)
	if hk.announced&bit != 0 {
		return
	}
	hk.announced |= bit
	ev := HotKeyEvent{Table: k.table, Index: k.index, Key: detector.DisplayKey(h.cfg, key), Reason: reason,
		Second: time.Unix(tick, 0).UTC(), RCU: float64(rcuHalf) / 2, WCU: wcu}
	select {
	case h.events <- ev:
	default:
		h.lost.Add(1)
	}
}

// deliver hands the announcements to OnHotKey until ctx ends, then those
// still queued. A panic in OnHotKey is logged, and the next one delivered.
func (h *hotWatch) deliver(ctx context.Context, log *slog.Logger) {
	for {
		select {
		case ev := <-h.events:
			h.call(ev, log)
		case <-ctx.Done():
			for {
				select {
				case ev := <-h.events:
					h.call(ev, log)
				default:
					return
				}
			}
		}
	}
}

func (h *hotWatch) call(ev HotKeyEvent, log *slog.Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.LogAttrs(context.Background(), slog.LevelError, "clientwatch: OnHotKey panicked",
				slog.String("table", ev.Table), slog.String("reason", string(ev.Reason)), slog.String("panic", fmt.Sprint(r)))
		}
	}()
	h.fn(ev)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
