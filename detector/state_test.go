package detector

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fedSet is a set of table Logs with two index windows and some records.
func fedSet(t *testing.T, cfg Config) *WindowSet {
	t.Helper()
	set := NewWindowSet(cfg, "", t0, t0.Add(time.Minute))
	for i := range 50 {
		r := withIndex(rec("Logs", fmt.Sprintf("K%d", i%5), "", 1, t0.Add(time.Duration(i)*time.Second)), "GSI1", "OPS_LOG", 1, "", 0)
		if i%2 == 0 {
			r = withIndex(r, "GSI2", fmt.Sprintf("L%d", i%3), 1, "", 0)
		}
		if err := set.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	set.AddMalformed("")
	return set
}

// TestWindowSetState: a set goes through Lambda's state under the keys a
// deployed function reads (hotkeys.window, hotkeys.index.N, beside the
// caller's), and comes back with the same reports, its table and its span.
func TestWindowSetState(t *testing.T) {
	cfg := DefaultConfig()
	set := fedSet(t, cfg)
	state := map[string]string{"hotkeys.last_seq": "12345"}
	if err := set.MarshalState(state); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(state))
	if want := []string{"hotkeys.index.0", "hotkeys.index.1", "hotkeys.last_seq", "hotkeys.window"}; !slices.Equal(keys, want) {
		t.Errorf("state keys %v, want %v", keys, want)
	}
	back := NewWindowSet(cfg, "", time.Unix(0, 0), time.Unix(1, 0))
	if err := back.UnmarshalState(state); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(set.Reports(), back.Reports()); diff != "" {
		t.Errorf("reports after the state (-before +after):\n%s", diff)
	}
	// It goes on where it stopped: the same index windows, over the span.
	r := withIndex(rec("Logs", "K0", "", 1, t0.Add(59*time.Second)), "GSI2", "L0", 1, "", 0)
	if err := back.Add(r); err != nil {
		t.Fatal(err)
	}
	if ws := back.Windows(); len(ws) != 3 || ws[2].Index() != "GSI2" || ws[2].Records() != 26 || !ws[0].End().Equal(t0.Add(time.Minute)) {
		t.Errorf("after one more record: %d windows, the last %s with %d records", len(ws), ws[2].Index(), ws[2].Records())
	}

	// A set with no window writes nothing, and a state with none leaves a
	// set as it is.
	empty := map[string]string{}
	if err := NewWindowSet(cfg, "", t0, t0.Add(time.Minute)).MarshalState(empty); err != nil || len(empty) != 0 {
		t.Errorf("an empty set wrote %v (%v)", empty, err)
	}
	if err := back.UnmarshalState(empty); err != nil || len(back.Windows()) != 3 {
		t.Errorf("an empty state: %v, %d windows", err, len(back.Windows()))
	}
}

// TestWindowSetStateBudget: the caller's keys count against StateBudget:
// the windows are trimmed to fit beside them, honestly, and refused when
// they cannot fit at all.
func TestWindowSetStateBudget(t *testing.T) {
	cfg := DefaultConfig()
	whole := map[string]string{}
	if err := fedSet(t, cfg).MarshalState(whole); err != nil {
		t.Fatal(err)
	}
	size := func(state map[string]string) (n int) {
		for k, v := range state {
			n += len(k) + len(v)
		}
		return n
	}
	// Leave the windows 100 bytes less than they take.
	pad := StateBudget - size(whole) + 100 - len("pad")
	state := map[string]string{"pad": strings.Repeat("x", pad)}
	set := fedSet(t, cfg)
	if err := set.MarshalState(state); err != nil {
		t.Fatal(err)
	}
	if n := size(state); n > StateBudget {
		t.Errorf("state of %d bytes, budget %d", n, StateBudget)
	}
	if reps := set.Reports(); !reps[0].Trimmed {
		t.Error("the table's window, the heaviest in keys, was not trimmed")
	}
	state = map[string]string{"pad": strings.Repeat("x", StateBudget)}
	if err := fedSet(t, cfg).MarshalState(state); !errors.Is(err, ErrBudget) {
		t.Errorf("no room at all: %v, want ErrBudget", err)
	}
}

// TestWindowSetUnreadableState: a state that cannot be read is refused, and
// the set is left as it was, so the Lambda restarts the window from it.
func TestWindowSetUnreadableState(t *testing.T) {
	cfg := DefaultConfig()
	good := map[string]string{}
	if err := fedSet(t, cfg).MarshalState(good); err != nil {
		t.Fatal(err)
	}
	other := NewWindowSet(cfg, "Other", t0, t0.Add(time.Minute))
	other.AddMalformed("")
	otherState := map[string]string{}
	if err := other.MarshalState(otherState); err != nil {
		t.Fatal(err)
	}
	foreignIndex, err := NewIndexWindow(cfg.IndexSketchConfig(), "Other", "GSI1", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := foreignIndex.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	with := func(k, v string) map[string]string {
		s := maps.Clone(good)
		s[k] = v
		return s
	}
	tooMany := maps.Clone(good)
	for i := range MaxIndexes + 1 {
		tooMany[fmt.Sprintf("hotkeys.index.%d", i)] = good["hotkeys.index.0"]
	}
	smaller := cfg
	smaller.Sketch.Width /= 2
	for _, tc := range []struct {
		name  string
		cfg   Config
		state map[string]string
		want  error
	}{
		{"not base64", cfg, with("hotkeys.window", "%%%"), ErrCorruptWindow},
		{"not a window", cfg, with("hotkeys.window", base64.StdEncoding.EncodeToString([]byte("window"))), ErrCorruptWindow},
		{"an index window of another table", cfg, with("hotkeys.index.1", base64.StdEncoding.EncodeToString(foreign)), nil},
		{"a table window as an index's", cfg, with("hotkeys.index.1", otherState["hotkeys.window"]), ErrCorruptWindow},
		{"more index windows than MaxIndexes", cfg, tooMany, nil},
		{"another sketch configuration", smaller, good, ErrCorruptWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := NewWindowSet(tc.cfg, "Logs", t0, t0.Add(time.Minute))
			set.AddMalformed("")
			err := set.UnmarshalState(tc.state)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err %v, want one wrapping %v", err, tc.want)
			}
			if ws := set.Windows(); len(ws) != 1 || ws[0].Records() != 0 || set.Reports()[0].Malformed != 1 {
				t.Errorf("the set changed: %d windows", len(ws))
			}
		})
	}
}
