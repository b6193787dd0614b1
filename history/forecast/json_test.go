package forecast

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/golden"
)

// TestJSON pins the object `hotkeys forecast --format json` prints per
// key (issue 31): the fields it must carry, numbers or null, and a limit
// date as YYYY-MM-DD or null; the whole of four results against
// testdata/results.jsonl.
func TestJSON(t *testing.T) {
	growing := gen{peak: halfOnWeekends(exponential(200, 0.03)), end: 42, noise: 0.05}.series(1)
	flat := gen{peak: daily(linear(500, 0)), end: 42}.series(1)
	past := gen{peak: daily(exponential(330, 0.03)), end: 42}.series(1)
	few := gen{peak: daily(exponential(50, 0.05)), first: 38, end: 42}.series(1)
	few.Index = "GSI1"
	var out bytes.Buffer
	for _, s := range []Series{growing, flat, past, few} {
		r, err := Forecast(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"table", "key", "days_observed", "peak_wcu_per_second", "headroom"} {
			if _, ok := fields[f]; !ok {
				t.Errorf("no %q in %s", f, b)
			}
		}
		for _, f := range []string{"growth_per_day", "days_to_limit", "days_to_limit_low", "days_to_limit_high"} {
			if v, ok := fields[f]; !ok {
				t.Errorf("no %q in %s", f, b)
			} else if _, isNumber := v.(float64); v != nil && !isNumber {
				t.Errorf("%q is %v, neither a number nor null", f, v)
			}
		}
		if v, ok := fields["limit_date"]; !ok || (v != nil && len(v.(string)) != len("2006-01-02")) {
			t.Errorf("limit_date %v in %s", v, b)
		}
		if _, ok := fields["index"]; ok != (s.Index != "") {
			t.Errorf("index present: %v, for index %q", ok, s.Index)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	golden.Equal(t, filepath.Join("testdata", "results.jsonl"), out.Bytes())
}

func TestDate(t *testing.T) {
	for _, tt := range []struct {
		at   string
		want Date
		text string
	}{
		{"1970-01-01T00:00:00Z", 0, "1970-01-01"},
		{"1970-01-01T23:59:59Z", 0, "1970-01-01"},
		{"1969-12-31T23:00:00Z", -1, "1969-12-31"},
		{"2026-11-28T12:00:00+09:00", 20785, "2026-11-28"},
		{"2026-11-28T01:00:00+09:00", 20784, "2026-11-27"},
	} {
		at, err := time.Parse(time.RFC3339, tt.at)
		if err != nil {
			t.Fatal(err)
		}
		d := DateOf(at)
		if d != tt.want || d.String() != tt.text {
			t.Errorf("DateOf(%s) = %d %s, want %d %s", tt.at, d, d, tt.want, tt.text)
		}
		var back Date
		if err := back.UnmarshalText([]byte(tt.text)); err != nil || back != d {
			t.Errorf("%s read back as %d (%v)", tt.text, back, err)
		}
	}
	var d Date
	if err := d.UnmarshalText([]byte("28/11/2026")); err == nil {
		t.Error("28/11/2026 read as a date")
	}
}
