package detector

import (
	"errors"
	"testing"
)

// TestMarshalWithin: windows that fit are encoded as they are; a budget
// a little short trims only the lightest keys, and says so; one below what
// the windows take without any key is refused with ErrBudget.
func TestMarshalWithin(t *testing.T) {
	w := testWindow(t)
	full, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	keys := len(w.summary.Top(w.summary.Config().Counters))
	encs, err := marshalWithin([]*Window{w}, len(full))
	if err != nil || len(encs[0]) != len(full) || w.trimmed || len(w.summary.Top(keys)) != keys {
		t.Fatalf("a window that fits: %d bytes of %d, trimmed %v, err %v", len(encs[0]), len(full), w.trimmed, err)
	}
	encs, err = marshalWithin([]*Window{w}, len(full)-1)
	if err != nil || len(encs[0]) > len(full)-1 || !w.trimmed || !w.Report(DefaultConfig()).Trimmed {
		t.Fatalf("one byte short: %d bytes, trimmed %v, err %v", len(encs[0]), w.trimmed, err)
	}
	if left := len(w.summary.Top(keys)); left == 0 || left >= keys {
		t.Errorf("one byte short: %d of %d keys left; want only the lightest dropped", left, keys)
	}
	if _, err := marshalWithin([]*Window{testWindow(t)}, 100); !errors.Is(err, ErrBudget) {
		t.Errorf("a budget of 100 bytes: %v, want ErrBudget", err)
	}
}
