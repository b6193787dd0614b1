package main

import (
	"encoding/json"
	"time"

	"github.com/hotkeys-dev/hotkeys/record"
)

// readEnvelope reads an event's envelope (the record.Event the decoder
// would have delivered) and counts its records with encoding/json, sharing
// no code with the decoder: for a batch whose decoding panicked before the
// decoder delivered the event (a bug of ours), which must still answer
// Lambda with the window's state and count what was lost. It fails when
// payload is not one event object.
func readEnvelope(payload []byte) (ev record.Event, records int, err error) {
	var e struct {
		Records []json.RawMessage `json:"Records"`
		Window  *struct {
			Start time.Time `json:"start"`
			End   time.Time `json:"end"`
		} `json:"window"`
		State                   map[string]string `json:"state"`
		ShardID                 string            `json:"shardId"`
		EventSourceARN          string            `json:"eventSourceARN"`
		IsFinalInvokeForWindow  bool              `json:"isFinalInvokeForWindow"`
		IsWindowTerminatedEarly bool              `json:"isWindowTerminatedEarly"`
	}
	if err := json.Unmarshal(payload, &e); err != nil {
		return record.Event{}, 0, err
	}
	ev = record.Event{State: e.State, ShardID: e.ShardID, EventSourceARN: e.EventSourceARN,
		IsFinalInvokeForWindow: e.IsFinalInvokeForWindow, IsWindowTerminatedEarly: e.IsWindowTerminatedEarly}
	if e.Window != nil {
		ev.WindowStart, ev.WindowEnd, ev.TimeWindow = e.Window.Start, e.Window.End, true
	}
	return ev, len(e.Records), nil
}
