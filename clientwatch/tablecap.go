package clientwatch

import (
	"context"
	"log/slog"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
)

// tableCap bounds the windows a Watcher holds. Every open window may grow
// to clientwindow.MaxBytes (for the longest key seen so far); so may
// each of the Queue closed windows waiting for Run, and the one Run is
// reporting. A table new to the watcher gets a window only if that many
// windows, its own included, stay within MaxMemory, and the open ones
// within MaxTables. It is used under Watcher.mu.
type tableCap struct {
	maxTables  int
	maxMemory  int64
	queue      int
	longestKey int // the longest typed key seen, in bytes

	warned  time.Time // when the last warning was logged
	refused uint64    // calls refused since
}

// warnEvery spaces the warnings about tables past the cap.
const warnEvery = time.Minute

// admit reports whether table k may have a window of its own now (at t).
func (c *tableCap) admit(w *Watcher, k windowKey, t time.Time) bool {
	open := len(w.windows)
	if w.windows[windowKey{table: OtherTables}] != nil {
		open--
	}
	if open < c.maxTables && int64(open+2+c.queue)*c.windowBytes(w) <= c.maxMemory {
		return true
	}
	c.refused++
	if c.warned.IsZero() || t.Sub(c.warned) >= warnEvery {
		w.log.LogAttrs(context.Background(), slog.LevelWarn, "clientwatch: a table is past the cap on tables and memory; its calls count as unattributed in the window of "+OtherTables,
			slog.String("table", k.table), slog.String("index", k.index), slog.Int("tables", open),
			slog.Int("max_tables", c.maxTables), slog.Int64("max_memory", c.maxMemory), slog.Uint64("calls_refused", c.refused))
		c.warned, c.refused = t, 0
	}
	return false
}

func (c *tableCap) windowBytes(w *Watcher) int64 {
	return int64(clientwindow.MaxBytes(w.cfg.Sketch, c.longestKey))
}

// sawKey notes a key's length (typed: one byte more than its value).
func (c *tableCap) sawKey(n int) {
	if n+1 > c.longestKey {
		c.longestKey = n + 1
	}
}
