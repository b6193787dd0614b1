package forecast

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

// checkConsistent fails t unless r holds together: every figure finite,
// low ≤ estimate ≤ high (null counting as beyond the horizon), each day
// within the horizon, the date the estimate's, a growing key's range
// present where its estimate is.
func checkConsistent(t *testing.T, r Result, horizon int) {
	t.Helper()
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(r.Headroom) || !finite(r.PeakWCUPerSecond) || r.Headroom <= 0 ||
		(r.GrowthPerDay != nil && !finite(*r.GrowthPerDay)) || (r.Shape != nil && !(*r.Shape >= 0 && *r.Shape <= 1)) {
		t.Fatalf("a figure out of range: %s", show(r))
	}
	est, low, high := days(r.DaysToLimit, horizon), days(r.DaysToLimitLow, horizon), days(r.DaysToLimitHigh, horizon)
	if low > est || est > high || low < 0 || high > horizon+1 {
		t.Fatalf("range out of order: %s", show(r))
	}
	if (r.LimitDate == nil) != (r.DaysToLimit == nil) || (r.LimitDate != nil && *r.LimitDate != r.LastDay+Date(est)) {
		t.Fatalf("limit date %v for %d days after %s", r.LimitDate, est, r.LastDay)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if lo, e, hi, ok := r.Projected(horizon); ok && !(finite(lo) && finite(hi) && lo <= e && e <= hi && lo >= 0) {
		t.Fatalf("projected peak %v ≤ %v ≤ %v", lo, e, hi)
	}
}

// show prints a result in full for a failure.
func show(r Result) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// FuzzForecast: any series, any options, never a panic, never NaN or
// Inf, the range in order; input it refuses, it refuses with a sentinel.
// Each 8 bytes of data make a day: 2 of date step, 2 of peak (a float16's
// exponent range and more), 2 each of the bounds' distance.
func FuzzForecast(f *testing.F) {
	f.Add([]byte{}, uint16(1000), uint8(90), uint8(7))
	seed := gen{peak: halfOnWeekends(exponential(200, 0.03)), end: 42, noise: 0.1, spike: 5, spikeAt: 20}.series(1)
	var b []byte
	for i, d := range seed.Days {
		b = binary.LittleEndian.AppendUint16(b, uint16(min(i, 1)))
		b = binary.LittleEndian.AppendUint16(b, uint16(d.Peak*10))
		b = append(b, 0, 0, 0, 0)
	}
	f.Add(b, uint16(1000), uint8(90), uint8(7))
	f.Add([]byte("\x01\x00\xff\xff\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\xff\xff\x00\x00\x00\x00\x00\x00\x01\x00\xff\xff\xff\xff"), uint16(1), uint8(1), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, lim uint16, horizon, minDays uint8) {
		s := Series{Table: "T", Key: "K"}
		date := Date(20000)
		for ; len(data) >= 8; data = data[8:] {
			date += Date(binary.LittleEndian.Uint16(data))
			peak := fuzzValue(binary.LittleEndian.Uint16(data[2:]))
			s.Days = append(s.Days, Day{Date: date, Peak: peak,
				Lower: peak * float64(data[4]) / 255, Upper: peak * (1 + float64(data[5])) * (1 + float64(data[6])*float64(data[7])/16)})
		}
		opt := Options{PartitionLimit: float64(lim) / 4, Horizon: int(horizon), MinDays: int(minDays)}
		r, err := Forecast(s, opt)
		if err != nil {
			if !errors.Is(err, ErrSeries) && !errors.Is(err, ErrOptions) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		checkConsistent(t, r, cmp.Or(int(horizon), DefaultHorizon))
	})
}

// fuzzValue spreads 16 bits over 0 and 1e-6 to 1e12, a fifth of them
// round numbers, so that ties and zeros are common.
func fuzzValue(u uint16) float64 {
	switch {
	case u == 0:
		return 0
	case u%5 == 0:
		return float64(u % 100)
	}
	return min(math.Pow(10, float64(u)/65535*18-6), MaxPeak)
}
