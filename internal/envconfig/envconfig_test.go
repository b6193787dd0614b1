package envconfig

import (
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/history/store"
)

func TestSeconds(t *testing.T) {
	for v, want := range map[string]time.Duration{"60": time.Minute, "60s": time.Minute, "5m": 5 * time.Minute, "0": 0, "1500ms": 1500 * time.Millisecond, "-1": -time.Second} {
		if d, ok := Seconds(v); !ok || d != want {
			t.Errorf("Seconds(%q) = %s, %v; want %s", v, d, ok, want)
		}
	}
	for _, v := range []string{"", "soon", "1.5", "60 s"} {
		if d, ok := Seconds(v); ok {
			t.Errorf("Seconds(%q) = %s, accepted", v, d)
		}
	}
}

func TestWhole(t *testing.T) {
	for _, c := range []struct {
		v      string
		n      int
		wantOK bool
	}{{"1", 1, true}, {"100", 100, true}, {"0", 0, false}, {"101", 101, false}, {"1.5", 0, false}, {"x", 0, false}, {"", 0, false}} {
		if n, ok := Whole(c.v, 1, 100); ok != c.wantOK || (ok && n != c.n) {
			t.Errorf("Whole(%q, 1, 100) = %d, %v; want %d, %v", c.v, n, ok, c.n, c.wantOK)
		}
	}
}

// TestHistoryFromEnv: the defaults, the bounds, and errors that name the
// variable, as both functions say them.
func TestHistoryFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	h, err := HistoryFromEnv(env(nil))
	if err != nil || h != (History{Retention: 30 * 24 * time.Hour, WriteShards: store.DefaultWriteShards}) {
		t.Errorf("defaults: %+v, %v", h, err)
	}
	h, err = HistoryFromEnv(env(map[string]string{"HOTKEYS_HISTORY_TABLE": "H", "HOTKEYS_HISTORY_RETENTION_DAYS": "3650", "HOTKEYS_HISTORY_WRITE_SHARDS": "1024"}))
	if err != nil || h != (History{Table: "H", Retention: 3650 * 24 * time.Hour, WriteShards: 1024}) {
		t.Errorf("set: %+v, %v", h, err)
	}
	for _, c := range []struct{ name, v, want string }{
		{"HOTKEYS_HISTORY_RETENTION_DAYS", "0", `HOTKEYS_HISTORY_RETENTION_DAYS="0": want whole days, 1 to 3650`},
		{"HOTKEYS_HISTORY_RETENTION_DAYS", "3651", `HOTKEYS_HISTORY_RETENTION_DAYS="3651": want whole days, 1 to 3650`},
		{"HOTKEYS_HISTORY_RETENTION_DAYS", "30d", `HOTKEYS_HISTORY_RETENTION_DAYS="30d": want whole days, 1 to 3650`},
		{"HOTKEYS_HISTORY_WRITE_SHARDS", "0", `HOTKEYS_HISTORY_WRITE_SHARDS="0": want a whole number, 1 to 1024`},
		{"HOTKEYS_HISTORY_WRITE_SHARDS", "1025", `HOTKEYS_HISTORY_WRITE_SHARDS="1025": want a whole number, 1 to 1024`},
		{"HOTKEYS_HISTORY_WRITE_SHARDS", "1.5", `HOTKEYS_HISTORY_WRITE_SHARDS="1.5": want a whole number, 1 to 1024`},
	} {
		if _, err := HistoryFromEnv(env(map[string]string{c.name: c.v})); err == nil || err.Error() != c.want {
			t.Errorf("%s=%q: %v, want %q", c.name, c.v, err, c.want)
		}
	}
}

// TestOpen: the table the settings name, as store.New checks it.
func TestOpen(t *testing.T) {
	table, err := History{Table: "H", Retention: time.Hour, WriteShards: 8}.Open(nil)
	if err != nil || table.Name() != "H" || table.Retention() != time.Hour || table.WriteShards() != 8 {
		t.Errorf("%+v, %v", table, err)
	}
	if _, err := (History{}).Open(nil); err == nil {
		t.Error("a table without a name opened")
	}
}
