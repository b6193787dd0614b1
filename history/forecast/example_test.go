package forecast_test

import (
	"fmt"
	"math"
	"time"

	"github.com/hotkeys-dev/hotkeys/history/forecast"
)

// Six weeks of a key's daily peaks, growing 3 % a day from 200 WCU/s with
// some wobble, forecast against the 1,000 WCU/s partition limit: its
// trend, 200 × 1.03^(41 + k), reaches 1,000 at k = 14 days after the last.
func Example() {
	s := forecast.Series{Table: "Orders", Key: "CART#checkout", Type: "S"}
	start := forecast.DateOf(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))
	for i := range 42 {
		peak := 200 * math.Pow(1.03, float64(i)) * (1 + 0.08*math.Sin(2.1*float64(i)))
		s.Days = append(s.Days, forecast.Day{Date: start + forecast.Date(i), Peak: peak, Lower: peak, Upper: peak})
	}
	r, err := forecast.Forecast(s, forecast.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: peak %.0f WCU/s on %s, the limit at %.2f× it, growing %.1f %% a day\n",
		r.Key, r.PeakWCUPerSecond, r.LastDay, r.Headroom, 100**r.GrowthPerDay)
	fmt.Printf("reaches the limit in %d days (%d–%d), on %s\n", *r.DaysToLimit, *r.DaysToLimitLow, *r.DaysToLimitHigh, r.LimitDate)
	// Output:
	// CART#checkout: peak 621 WCU/s on 2026-11-11, the limit at 1.61× it, growing 3.0 % a day
	// reaches the limit in 14 days (13–15), on 2026-11-25
}
