// Package envconfig is what the hotkeys binaries share in reading their
// environment: the forms their variables' numbers and durations take, and
// the history table's variables, which the stream function (it stores
// each closed window) and the rollup function (it rolls them up) both
// read.
//
// Configuration is read only by the mains (lambda, lambda/rollup, cmd/...):
// they alone import this package (internal/testkit/docstest holds the
// rule), and its errors, as theirs, name the variable to fix. Each main
// reads every variable it takes into one struct of its own, in one place.
package envconfig

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hotkeys-dev/hotkeys/history/store"
)

// Seconds reads a duration as the functions' variables hold one: "60s",
// "5m" (time.ParseDuration), or a plain number of seconds, "60", as the
// template's parameters give it. ok is false for anything else.
func Seconds(v string) (d time.Duration, ok bool) {
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, true
	}
	d, err := time.ParseDuration(v)
	return d, err == nil
}

// Whole reads a whole number from lo to hi. ok is false for anything
// else.
func Whole(v string, lo, hi int) (n int, ok bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= lo && n <= hi
}

// DefaultRetentionDays is how many days a history item lives when
// HOTKEYS_HISTORY_RETENTION_DAYS is not set: the template's
// HistoryRetentionDays.
const DefaultRetentionDays = 30

// History is the history table's settings.
type History struct {
	// Table is the history table (HOTKEYS_HISTORY_TABLE); "" when none is
	// set.
	Table string
	// Retention is how long an item lives after its window ends
	// (HOTKEYS_HISTORY_RETENTION_DAYS): whole days, 1 to 3650
	// (DefaultRetentionDays).
	Retention time.Duration
	// WriteShards is how many write shards the shards' windows are stored
	// under (HOTKEYS_HISTORY_WRITE_SHARDS): 1 to store.MaxWriteShards
	// (store.DefaultWriteShards).
	WriteShards int
}

// HistoryFromEnv reads HOTKEYS_HISTORY_TABLE, HOTKEYS_HISTORY_RETENTION_DAYS
// and HOTKEYS_HISTORY_WRITE_SHARDS; an error names the variable. The table
// may be unset: whether that is an error is the caller's to say.
func HistoryFromEnv(getenv func(string) string) (History, error) {
	h := History{Table: getenv("HOTKEYS_HISTORY_TABLE"), Retention: DefaultRetentionDays * 24 * time.Hour, WriteShards: store.DefaultWriteShards}
	if v := getenv("HOTKEYS_HISTORY_RETENTION_DAYS"); v != "" {
		n, ok := Whole(v, 1, 3650)
		if !ok {
			return h, fmt.Errorf("HOTKEYS_HISTORY_RETENTION_DAYS=%q: want whole days, 1 to 3650", v)
		}
		h.Retention = time.Duration(n) * 24 * time.Hour
	}
	if v := getenv("HOTKEYS_HISTORY_WRITE_SHARDS"); v != "" {
		n, ok := Whole(v, 1, store.MaxWriteShards)
		if !ok {
			return h, fmt.Errorf("HOTKEYS_HISTORY_WRITE_SHARDS=%q: want a whole number, 1 to %d", v, store.MaxWriteShards)
		}
		h.WriteShards = n
	}
	return h, nil
}

// Open returns the history table h names, reached through api.
func (h History) Open(api store.API) (*store.Table, error) {
	return store.New(api, h.Table, store.Options{WriteShards: h.WriteShards, Retention: h.Retention})
}
