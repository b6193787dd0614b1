package detector

import (
	"errors"
	"testing"
	"time"
)

func testWindow(t testing.TB) *Window {
	cfg := DefaultConfig()
	w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		r := rec("Orders", "k"+string(rune('a'+i%7)), "", uint64(1+i%3), t0.Add(time.Duration(i%60)*time.Second))
		r.Shard = "shardId-1"
		w.Add(r)
	}
	w.AddMalformed(3)
	return w
}

func TestWindowRoundTrip(t *testing.T) {
	w := testWindow(t)
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	got, err := UnmarshalWindow(b, cfg.Sketch)
	if err != nil {
		t.Fatal(err)
	}
	a, c := w.Report(cfg), got.Report(cfg)
	if a.WCU != c.WCU || a.Records != c.Records || a.Malformed != 3 || c.Malformed != 3 ||
		len(a.TopKeys) != len(c.TopKeys) || a.Shards[0] != c.Shards[0] {
		t.Errorf("round trip changed the report:\n%+v\n%+v", a, c)
	}
	for i := range a.TopKeys {
		if a.TopKeys[i].Key != c.TopKeys[i].Key || a.TopKeys[i].WCU != c.TopKeys[i].WCU {
			t.Errorf("top key %d: %+v vs %+v", i, a.TopKeys[i], c.TopKeys[i])
		}
	}
}

func TestUnmarshalWindowRejectsDamage(t *testing.T) {
	b, err := testWindow(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig().Sketch
	cases := map[string][]byte{
		"empty":     nil,
		"truncated": b[:len(b)/2],
		"flipped":   append(append([]byte{}, b[:10]...), append([]byte{b[10] ^ 0x40}, b[11:]...)...),
		"version":   func() []byte { c := append([]byte{}, b...); c[0] = 99; return c }(),
	}
	for name, in := range cases {
		if _, err := UnmarshalWindow(in, cfg); !errors.Is(err, ErrCorruptWindow) {
			t.Errorf("%s: err = %v, want ErrCorruptWindow", name, err)
		}
	}
	other := cfg
	other.Counters *= 2
	if _, err := UnmarshalWindow(b, other); err == nil {
		t.Error("state of another sketch configuration accepted")
	}
}

func FuzzUnmarshalWindow(f *testing.F) {
	b, err := testWindow(f).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:20])
	f.Add([]byte{windowVersion})
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := UnmarshalWindow(data, cfg.Sketch)
		if err != nil {
			return
		}
		// Anything accepted must be usable.
		w.Add(rec("T", "k", "", 1, t0))
		_ = w.Report(cfg)
		if _, err := w.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	})
}
