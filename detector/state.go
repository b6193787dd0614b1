package detector

import (
	"encoding"
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// A Window travels in the state in its binary encoding.
var _ encoding.BinaryMarshaler = (*Window)(nil)

// Keys of a WindowSet in Lambda's tumbling-window state, each holding the
// base64 of a window's encoding (MarshalBinary). A deploy meets the state
// the previous version wrote: change them only with windowVersion.
const (
	stateWindow = "hotkeys.window" // the table's window
	stateIndex  = "hotkeys.index." // + 0, 1, ...: an index's window
)

// MaxIndexes is the most index windows a set's state holds: DynamoDB's
// default quota of global secondary indexes per table, the most the Lambda
// analyses, and what StateBudget is reckoned for.
const MaxIndexes = 20

// StateBudget is the bytes of state keys and values, as Lambda counts them,
// that MarshalState keeps the state within, of Lambda's cap of 1 MB per
// shard (past which Lambda ends the window early).
//
// A set's state is the table's window and up to MaxIndexes index windows,
// each base64 in a state key of its own. Their sizes: a window's encoding
// is its heavy-hitter keys (up to 2,049 bytes each, DynamoDB's longest
// partition key plus a type byte), plus a count-min of Width × Depth
// varints, plus a HyperLogLog of at most 16,392 bytes, plus at most about
// 650 bytes of names, counts and the shard's load. Without keys, the worst
// case (255-byte names, every cell a 10-byte varint) is 57.9 KB for the
// table (sketch.DefaultConfig: 16,392 + 40,960 + ~500) and 27.3 KB per
// index (DefaultIndexSketch: 16,392 + 10,240 + ~650): 603 KB for the table
// and 20 indexes, about 805 KB as base64 with the key names, under
// StateBudget. Each window also remembers the keys it announced or found
// saturated (MaxWatchedKeys, 128 of at most 11 bytes: 1.4 KB), 30 KB for 21
// windows, 40 KB as base64: 845 KB at worst, still under it. With cells
// under 2^28 (4-byte varints) it is about 610 KB, leaving the keys at least
// 290 KB. The keys take what is left, and MarshalState trims the lightest,
// honestly (marshalWithin), when they would not fit: with keys of ordinary
// length (under about 200 bytes) it never needs to; with 2,048-byte keys it
// does (the Lambda's TestStateWorstCase).
const StateBudget = 900_000

// MarshalState writes the set's windows into state, Lambda's
// tumbling-window state, trimmed so that the whole of state, the keys the
// caller keeps there included (the Lambda's last sequence number), stays
// within StateBudget. A set whose table's window is not open writes
// nothing. It returns ErrBudget, wrapped, when the windows do not fit even
// without keys (see StateBudget: it cannot happen within MaxIndexes).
func (s *WindowSet) MarshalState(state map[string]string) error {
	ws := s.Windows()
	if ws == nil {
		return nil
	}
	// What is not window encodings: the caller's keys and values, the key
	// names, and base64's padding (under 3 bytes a window); base64 takes 4
	// bytes for every 3 of the rest.
	fixed := len(stateWindow)
	for k, v := range state {
		fixed += len(k) + len(v)
	}
	for i := range s.indexes {
		fixed += len(stateIndex + strconv.Itoa(i))
	}
	encs, err := marshalWithin(ws, (StateBudget-fixed-3*len(ws))*3/4)
	if err != nil {
		return err
	}
	state[stateWindow] = base64.StdEncoding.EncodeToString(encs[0])
	for i, b := range encs[1:] {
		state[stateIndex+strconv.Itoa(i)] = base64.StdEncoding.EncodeToString(b)
	}
	return nil
}

// UnmarshalState reads into s the windows MarshalState wrote into state,
// which replace s's, the set's table and span with them; what s counted
// while it knew no table goes into the table's window. A state without
// windows (a window's first batch) leaves s as it is, and so does an error: a state that cannot
// be read (written with another sketch configuration or encoding version,
// or corrupt), which wraps ErrCorruptWindow when a window's encoding is at
// fault.
func (s *WindowSet) UnmarshalState(state map[string]string) error {
	if state[stateWindow] == "" {
		return nil
	}
	table, err := windowFrom(state[stateWindow], s.cfg.Sketch)
	if err != nil {
		return err
	}
	var indexes []*Window
	for i := 0; ; i++ {
		enc, ok := state[stateIndex+strconv.Itoa(i)]
		if !ok {
			break
		}
		if i >= MaxIndexes {
			return fmt.Errorf("detector: more than %d index windows", MaxIndexes)
		}
		w, err := windowFrom(enc, s.cfg.IndexSketchConfig())
		if err != nil {
			return fmt.Errorf("index window %d: %w", i, err)
		}
		if w.table != table.table || w.start != table.start || w.end != table.end || w.index == "" {
			return fmt.Errorf("detector: index window %d (%s/%s) does not belong to the table's window", i, w.table, w.index)
		}
		indexes = append(indexes, w)
	}
	// The state carries what was announced, not the thresholds.
	table.Watch(s.cfg)
	for _, w := range indexes {
		w.Watch(s.cfg)
	}
	table.totals.Add(s.early)
	s.table, s.start, s.end = table.table, table.Start(), table.End()
	s.win, s.indexes, s.early = table, indexes, report.Totals{}
	return nil
}

func windowFrom(enc string, cfg sketch.Config) (*Window, error) {
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptWindow, err)
	}
	return UnmarshalWindow(raw, cfg)
}
