package main

import (
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// State keys of a tumbling window, each holding what its comment says.
const (
	stateWindow  = "hotkeys.window"   // base64 of the table's detector.Window
	stateIndex   = "hotkeys.index."   // + 0, 1, ...: base64 of an index's detector.Window
	stateLastSeq = "hotkeys.last_seq" // highest sequence number counted in this window
)

// The tumbling-window state: the table's window and up to maxIndexes index
// windows, each base64 in a state key of its own, must stay under Lambda's
// cap of 1 MB per shard, or Lambda ends the window early.
//
// Their sizes: a window's encoding is its heavy-hitter keys (up to 2,049
// bytes each, DynamoDB's longest partition key plus a type byte), plus a
// count-min of Width × Depth varints, plus a HyperLogLog of at most 16,392
// bytes, plus at most about 650 bytes of names, counts and the shard's
// load. Without keys, the worst case (255-byte names, every cell a 10-byte
// varint) is 57.9 KB for the table (sketch.DefaultConfig: 16,392 + 40,960
// + ~500) and 27.3 KB per index (detector.DefaultIndexSketch: 16,392 + 10,240 + ~650):
// 603 KB for the table and 20 indexes, about 805 KB as base64 with the key
// names, under stateBudget. Each window also remembers the keys it
// announced or found saturated (detector.MaxWatchedKeys, 128 of at most 11
// bytes: 1.4 KB), 30 KB for 21 windows, 40 KB as base64: 845 KB at worst,
// still under it. With cells under 2^28 (4-byte varints) it is
// about 610 KB, leaving the keys at least 290 KB. The keys take what is left, and
// detector.MarshalWithin trims the lightest, honestly, when they would not
// fit: with keys of ordinary length (under about 200 bytes) it never needs
// to; with 2,048-byte keys it does (TestStateWorstCase).
const stateBudget = 900_000 // bytes of state keys and values, as Lambda counts them, of its 1 MB

// stateOf writes the windows into state, trimmed to fit stateBudget.
func stateOf(state map[string]string, table *detector.Window, indexes []*detector.Window, lastSeq []byte) error {
	ws := append([]*detector.Window{table}, indexes...)
	// What is not window encodings: the key names, the last sequence
	// number, and base64's padding (under 3 bytes a window); base64 takes
	// 4 bytes for every 3 of the rest.
	fixed := len(stateWindow) + len(stateLastSeq) + len(lastSeq)
	for i := range indexes {
		fixed += len(stateIndex + strconv.Itoa(i))
	}
	raw := (stateBudget - fixed - 3*len(ws)) * 3 / 4
	encs, err := detector.MarshalWithin(ws, raw)
	if err != nil {
		return err
	}
	state[stateWindow] = base64.StdEncoding.EncodeToString(encs[0])
	for i, b := range encs[1:] {
		state[stateIndex+strconv.Itoa(i)] = base64.StdEncoding.EncodeToString(b)
	}
	state[stateLastSeq] = string(lastSeq)
	return nil
}

// windowsFromState reads the windows stateOf wrote.
func windowsFromState(state map[string]string, cfg detector.Config) (*detector.Window, []*detector.Window, error) {
	table, err := windowFrom(state[stateWindow], cfg.Sketch)
	if err != nil {
		return nil, nil, err
	}
	var indexes []*detector.Window
	for i := 0; ; i++ {
		enc, ok := state[stateIndex+strconv.Itoa(i)]
		if !ok {
			break
		}
		if i >= maxIndexes {
			return nil, nil, fmt.Errorf("more than %d index windows", maxIndexes)
		}
		w, err := windowFrom(enc, cfg.IndexSketchConfig())
		if err != nil {
			return nil, nil, fmt.Errorf("index window %d: %w", i, err)
		}
		if w.Table() != table.Table() || w.Start() != table.Start() || w.End() != table.End() || w.Index() == "" {
			return nil, nil, fmt.Errorf("index window %d (%s/%s) does not belong to the table's window", i, w.Table(), w.Index())
		}
		indexes = append(indexes, w)
	}
	return table, indexes, nil
}

func windowFrom(enc string, cfg sketch.Config) (*detector.Window, error) {
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, err
	}
	return detector.UnmarshalWindow(raw, cfg)
}
