package forecast

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkForecast forecasts one key: 42 noisy days with a weekly cycle.
// BenchmarkLeastSquares is the textbook baseline on the same key.
func BenchmarkForecast(b *testing.B) {
	s := growing(rand.New(rand.NewPCG(1, 1)), false, true, 0, 42).series(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Forecast(s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLeastSquares(b *testing.B) {
	s := growing(rand.New(rand.NewPCG(1, 1)), false, true, 0, 42).series(1)
	b.ReportAllocs()
	for b.Loop() {
		leastSquaresLog(s)
	}
}
