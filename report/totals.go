package report

import (
	"encoding/binary"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

// Totals are the counters of a stream window: what its records were and
// cost, exact, and what was counted beside them. They are declared here
// once, and every holder embeds them: Report (so its JSON is theirs, field
// for field, in this order), the client report's JSON (at zero but for
// WCU and InternalErrors), history.Summary, detector.Window and what each
// merges into. Totals add up (Add): a counter by sum, a flag by or.
//
// Adding a counter is one edit, in this file: its field (with its JSON
// name; omitempty keeps every JSON output as it was while it is 0), its
// pointer at the end of counters, and NumCounters one higher. Add, the
// reports' JSON, the conversions between window, report and summary, and
// the window's state (the Lambda's tumbling-window state,
// detector.Window.MarshalBinary) then carry it, the state without a new
// version: it says how many counters it holds, up to the last that is not
// 0 (Used), so its bytes change only for a window that counts the new one.
// The one other edit is history's: a stored summary holds the counters its
// version holds, and builds from before refuse a version they do not know,
// so a counter past the seventh needs a history version that holds it,
// written only for a window that counts it (history.Summary.Version);
// history's TestEveryCounterStored fails until it has one.
//
// The binary encoding (AppendCounters, ReadCounters) writes counters as
// uvarints, in the order of counters, which is not the order of the
// fields: it is the order history's versions 1 to 4 added them in (the
// first five, then TTLWCU, then InternalErrors), and new ones go at the
// end. Ranges of it let history's frozen layouts use it byte for byte.
// The flag is not in it: each encoding keeps WCUIsLowerBound in its own
// flags byte (bit 0), so a flag added here is an edit of each encoding.
type Totals struct {
	Records    uint64 `json:"records"`     // records analysed (malformed ones excluded)
	TTLDeletes uint64 `json:"ttl_deletes"` // of which TTL deletes (0 WCU)
	// TTLWCU is, for an index, the size in WCU of the entries TTL deletes
	// removed from it: DynamoDB does not bill them, and they are not in WCU.
	TTLWCU    uint64 `json:"ttl_wcu,omitempty"`
	Malformed uint64 `json:"malformed"` // records skipped as malformed
	// InternalErrors counts records lost to a bug in hotkeys (a panic
	// recovered while handling them), never the input's fault.
	InternalErrors uint64 `json:"internal_errors"`
	Late           uint64 `json:"late"` // records that came after their window had closed (not in records or wcu)
	// Duplicates counts records delivered again and counted once (by
	// eventID: Kinesis Data Streams may deliver a change record twice),
	// not in records or wcu.
	Duplicates uint64 `json:"duplicates,omitempty"`

	WCU             uint64 `json:"wcu"`                // exact sum of the analysed records' WCU
	WCUIsLowerBound bool   `json:"wcu_is_lower_bound"` // some record lacked the image needed to size it
}

// NumCounters is the number of Totals' counters: the length of its
// encoding.
const NumCounters = 8

// counters returns t's counters in the order of the binary encoding: add a
// new one at the end.
func (t *Totals) counters() [NumCounters]*uint64 {
	return [NumCounters]*uint64{&t.Records, &t.TTLDeletes, &t.Malformed, &t.Late, &t.WCU, &t.TTLWCU, &t.InternalErrors, &t.Duplicates}
}

// Add adds o's counters to t's; WCU is a lower bound if either's was.
func (t *Totals) Add(o Totals) {
	dst, src := t.counters(), o.counters()
	for i, p := range dst {
		*p += *src[i]
	}
	t.WCUIsLowerBound = t.WCUIsLowerBound || o.WCUIsLowerBound
}

// Used returns the number of counters up to the last that is not 0, in
// the encoding's order: all an encoding that says how many it holds must
// write. So a counter added at the end changes no byte of an encoding that
// does not use it.
func (t *Totals) Used() int {
	ps := t.counters()
	n := len(ps)
	for n > 0 && *ps[n-1] == 0 {
		n--
	}
	return n
}

// AppendCounters appends counters [from, to) of t (in the encoding's
// order, 0 ≤ from ≤ to ≤ NumCounters) to b, each as a uvarint
// (binary.AppendUvarint).
func (t *Totals) AppendCounters(b []byte, from, to int) []byte {
	ps := t.counters()
	for _, p := range ps[from:to] {
		b = binary.AppendUvarint(b, *p)
	}
	return b
}

// ReadCounters reads counters [from, to) that AppendCounters wrote, with
// r (the sticky reader of detector's and history's encodings, whose error
// the caller checks), into t. to may pass NumCounters: counters a later
// build added are read and dropped; the caller bounds to by what the input
// can hold (frame.Reader.Count). The counters outside [from, to) are left
// as they are. r is a concrete type: an interface would move every
// decoder's Reader to the heap.
func (t *Totals) ReadCounters(r *frame.Reader, from, to int) {
	ps := t.counters()
	for i := from; i < to; i++ {
		v := r.Uvarint()
		if i < len(ps) {
			*ps[i] = v
		}
	}
}
