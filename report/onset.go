package report

import "time"

// Onset announces a key inside its window, before the window closes: the
// first second in which what the key certainly wrote reached the critical
// rate. It is built from the window as it stood at that second, so its
// figures (share, pattern, diagnosis) are those known so far; the window's
// Report, at its close, has the final ones.
type Onset struct {
	Window
	// Second is the second of record time in which the key crossed.
	Second time.Time `json:"second"`
	// SecondWCULower is what the key certainly wrote within Second, of the
	// records counted when it was announced: never more than the truth,
	// so an onset is never a false alarm. SecondWCUUpper bounds the same
	// records' WCU from above: the key's records of Second before it
	// entered the heavy hitters, if any, are all that the lower bound may
	// leave out.
	SecondWCULower uint64 `json:"second_wcu_lower"`
	SecondWCUUpper uint64 `json:"second_wcu_upper"`
	// SecondSoFar is true when the batch that announced the key ended
	// within Second: the next batch may add to that second, so both
	// bounds are of the second so far.
	SecondSoFar bool `json:"second_so_far,omitempty"`
	// Key is the key's figures in the window so far: Severity is
	// Critical, Pattern and Diagnosis the pattern and fix so far.
	Key KeyFigures `json:"key"`
}
