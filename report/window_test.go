package report_test

import (
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// TestWindowStart: the window holding t starts at or before t, less than
// a window before it, on a multiple of the window in Unix time, in UTC;
// before 1970 too, and at a window's first and last second. A window
// under a second aligns to the second.
func TestWindowStart(t *testing.T) {
	for _, window := range []time.Duration{time.Second, 7 * time.Second, time.Minute, 90 * time.Second, 15 * time.Minute, time.Hour} {
		sec := int64(window / time.Second)
		for _, u := range []int64{-3*sec - 1, -sec, -1, 0, 1, sec - 1, sec, 1_795_000_000, 1_795_000_000 + sec - 1} {
			for _, t0 := range []time.Time{time.Unix(u, 0), time.Unix(u, 999_999_999).In(time.FixedZone("X", 3600))} {
				got := report.WindowStart(t0, window)
				if got.After(t0) || !t0.Before(got.Add(window)) || got.Unix()%sec != 0 || got.Location() != time.UTC || got.Nanosecond() != 0 {
					t.Errorf("WindowStart(%v, %s) = %v", t0, window, got)
				}
			}
		}
	}
	at := time.Unix(1_795_000_000, 600_000_000)
	if got, want := report.WindowStart(at, 500*time.Millisecond), time.Unix(1_795_000_000, 0).UTC(); !got.Equal(want) {
		t.Errorf("WindowStart(%v, 500ms) = %v, want %v", at, got, want)
	}
}
