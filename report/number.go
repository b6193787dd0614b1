package report

import (
	"math"
	"strconv"
)

// Numbers are written one way in every report for people, prose and
// tables alike: whole numbers with thousands separators, "1,000 WCU/s".

// Count writes n with thousands separators: 18,359.
func Count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Rate writes x rounded to a whole number, with thousands separators:
// 1,000 for a WCU/s figure of 999.6. A negative or non-finite x (which no
// report holds) is written by strconv.
func Rate(x float64) string {
	r := math.Round(x)
	if !(r >= 0 && r < 1e19) {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return Count(uint64(r))
}
