package detector

import (
	"errors"
	"fmt"
	"slices"
)

// ErrBudget is wrapped by MarshalState when the windows do not fit even
// with every heavy-hitter key dropped.
var ErrBudget = errors.New("detector: windows do not fit the byte budget")

// entryOverhead is about what one heavy-hitter entry takes in a summary's
// encoding besides its key: count, overcount, tick, tick weight, peak,
// flags and item (see package sketch). It only guides how many keys to
// drop at once; the encodings are measured after each round.
const entryOverhead = 32

// marshalWithin encodes ws (MarshalBinary) so that their encodings take at
// most budget bytes together: a WindowSet's state (MarshalState), which
// Lambda caps at 1 MB, holds a table's window and its indexes' windows.
//
// When they do not fit, the heavy-hitter keys of lowest share of their own
// window's WCU go first, whichever window they are in, so every window
// keeps its keys down to about the same share. Dropping stays honest (see
// sketch.Summary.Trim): a window's floor rises to the largest upper bound
// it dropped, so its report's OtherKeysWCUUpper still bounds every key it
// does not list, and its report says Trimmed. Totals, peaks and distinct
// counts are untouched. The windows are trimmed in place.
//
// It returns ErrBudget, wrapped, if the windows do not fit with every key
// dropped: their count-min cells and HyperLogLogs alone exceed budget.
func marshalWithin(ws []*Window, budget int) ([][]byte, error) {
	out := make([][]byte, len(ws))
	size := 0
	for i, w := range ws {
		b, err := w.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out[i] = b
		size += len(b)
	}
	if size <= budget {
		return out, nil
	}
	cands, keep := trimCandidates(ws)
	for next := len(cands); size > budget; {
		if next == 0 {
			return nil, fmt.Errorf("%w: %d bytes with every key dropped, budget %d", ErrBudget, size, budget)
		}
		// Enough of the lightest to cover the excess by their keys' size,
		// and at least one; then measure again.
		excess := size - budget
		changed := map[int]bool{}
		for next > 0 && excess > 0 {
			next--
			c := cands[next]
			keep[c.window]--
			changed[c.window] = true
			excess -= c.bytes
		}
		for i := range changed {
			ws[i].summary.Trim(keep[i])
			ws[i].trimmed = true
			b, err := ws[i].MarshalBinary()
			if err != nil {
				return nil, err
			}
			size += len(b) - len(out[i])
			out[i] = b
		}
	}
	return out, nil
}

// trimCandidate is a tracked key of one of the windows.
type trimCandidate struct {
	share  float64 // of its window's WCU, by its upper bound
	window int     // index in ws
	bytes  int     // about what the key takes in the encoding
}

// trimCandidates lists every tracked key of ws, heaviest share first, so
// that the lightest are dropped from the end, and how many keys each
// window tracks.
func trimCandidates(ws []*Window) ([]trimCandidate, []int) {
	var cands []trimCandidate
	keep := make([]int, len(ws))
	for i, w := range ws {
		top := w.summary.Top(w.summary.Config().Counters)
		keep[i] = len(top)
		total := float64(max(w.summary.Total(), 1))
		for _, e := range top {
			cands = append(cands, trimCandidate{share: float64(e.Upper) / total, window: i, bytes: len(e.Key) + entryOverhead})
		}
	}
	// Within a window, shares fall in Top order, the order Trim keeps: a
	// window's lightest keys are always the ones dropped, and keep[i] is
	// all that Trim needs.
	slices.SortStableFunc(cands, func(a, b trimCandidate) int {
		switch {
		case a.share > b.share:
			return -1
		case a.share < b.share:
			return 1
		}
		return 0
	})
	return cands, keep
}
