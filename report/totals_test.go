package report

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/internal/frame"
)

var errTest = errors.New("report test: corrupt")

// testFormat gives a frame.Reader, the reader detector and history read
// Totals with.
var testFormat = frame.Format{Name: "report test", Oldest: 1, Newest: 1, Corrupt: errTest, Version: errTest}

// TestTotalsFields: every uint64 field of Totals is a counter of the
// encoding, once, and NumCounters counts them all; the only other fields
// are flags. A field added without its place in counters fails here.
func TestTotalsFields(t *testing.T) {
	var tot Totals
	listed := map[*uint64]int{}
	for i, p := range tot.counters() {
		if p == nil {
			t.Fatalf("counter %d is nil", i)
		}
		if j, dup := listed[p]; dup {
			t.Errorf("counters %d and %d are one field", j, i)
		}
		listed[p] = i
	}
	v := reflect.ValueOf(&tot).Elem()
	uints := 0
	for i := range v.NumField() {
		f := v.Type().Field(i)
		switch f.Type.Kind() {
		case reflect.Uint64:
			uints++
			if _, ok := listed[v.Field(i).Addr().Interface().(*uint64)]; !ok {
				t.Errorf("%s is not in counters: it would not be encoded", f.Name)
			}
		case reflect.Bool:
		default:
			t.Errorf("%s is a %s: Totals holds counters (uint64) and flags (bool)", f.Name, f.Type)
		}
	}
	if uints != NumCounters {
		t.Errorf("%d uint64 fields, NumCounters %d", uints, NumCounters)
	}
}

// fill sets every field of a Totals by reflection: counter i to base+i,
// flags to flag. So the tests below cover a counter added later.
func fill(base uint64, flag bool) Totals {
	var tot Totals
	v := reflect.ValueOf(&tot).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Uint64:
			f.SetUint(base + uint64(i))
		case reflect.Bool:
			f.SetBool(flag)
		}
	}
	return tot
}

func TestTotalsAdd(t *testing.T) {
	// addEach is Add field by field, by reflection: what Add must do to a
	// counter and a flag however many there are.
	addEach := func(a, b Totals) Totals {
		va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
		for i := range va.NumField() {
			switch f := va.Field(i); f.Kind() {
			case reflect.Uint64:
				f.SetUint(f.Uint() + vb.Field(i).Uint())
			case reflect.Bool:
				f.SetBool(f.Bool() || vb.Field(i).Bool())
			}
		}
		return a
	}
	for _, c := range []struct {
		name      string
		a, b, sum Totals
	}{
		{"zeros", Totals{}, Totals{}, Totals{}},
		{"to zero", Totals{}, fill(10, true), fill(10, true)},
		{"zero added", fill(10, false), Totals{}, fill(10, false)},
		{"each summed, lower bound from the left", fill(10, true), fill(100, false), addEach(fill(10, true), fill(100, false))},
		{"lower bound from the right", fill(1, false), fill(1, true), addEach(fill(1, false), fill(1, true))},
		{"by name", Totals{Records: 3, TTLDeletes: 1, Malformed: 2, InternalErrors: 1, Late: 4, WCU: 7, TTLWCU: 2},
			Totals{Records: 5, WCU: 9, WCUIsLowerBound: true},
			Totals{Records: 8, TTLDeletes: 1, Malformed: 2, InternalErrors: 1, Late: 4, WCU: 16, TTLWCU: 2, WCUIsLowerBound: true}},
		{"wraps as uint64 does", Totals{WCU: math.MaxUint64}, Totals{WCU: 2}, Totals{WCU: 1}},
	} {
		got := c.a
		got.Add(c.b)
		if diff := cmp.Diff(c.sum, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestTotalsUsed(t *testing.T) {
	for _, c := range []struct {
		tot  Totals
		want int
	}{
		{Totals{}, 0},
		{Totals{WCUIsLowerBound: true}, 0}, // flags are not counters
		{Totals{Records: 1}, 1},
		{Totals{Records: 1, WCU: 1}, 5},
		{Totals{TTLWCU: 3}, 6},
		{Totals{InternalErrors: 1}, 7},
		{fill(1, false), NumCounters},
	} {
		if got := c.tot.Used(); got != c.want {
			t.Errorf("%+v: Used %d, want %d", c.tot, got, c.want)
		}
	}
}

// TestTotalsEncoding: the counters come back as they went, whole or in
// ranges; an encoding of fewer counters leaves the rest as they were, one
// of more (a later build's) drops the extra; the flags are not encoded.
func TestTotalsEncoding(t *testing.T) {
	counters := func(tot Totals) Totals { tot.WCUIsLowerBound = false; return tot }
	for _, in := range []Totals{{}, fill(1, true), fill(127, false), fill(math.MaxUint64-NumCounters-10, true),
		{Records: 1 << 35, WCU: 128, TTLWCU: math.MaxUint64, InternalErrors: 300}} {
		whole := in.AppendCounters(nil, 0, NumCounters)
		parts := in.AppendCounters(in.AppendCounters([]byte{0xAA}, 0, 5), 5, NumCounters)[1:]
		if string(whole) != string(parts) {
			t.Errorf("%+v: ranges encode as %x, the whole as %x", in, parts, whole)
		}
		var got Totals
		r := testFormat.NewReader(whole)
		got.ReadCounters(&r, 0, NumCounters)
		if r.Err() != nil || r.Len() != 0 {
			t.Fatalf("%+v: %v, %d bytes left", in, r.Err(), r.Len())
		}
		if diff := cmp.Diff(counters(in), got); diff != "" {
			t.Errorf("round trip (-in +out):\n%s", diff)
		}

		// An older build's: five counters; the rest stay as they were.
		old := fill(7, true)
		r = testFormat.NewReader(in.AppendCounters(nil, 0, 5))
		old.ReadCounters(&r, 0, 5)
		want := fill(7, true)
		wp, ip := want.counters(), in.counters()
		for i := range 5 {
			*wp[i] = *ip[i]
		}
		if diff := cmp.Diff(want, old); diff != "" || r.Err() != nil {
			t.Errorf("five counters read (-want +got), %v:\n%s", r.Err(), diff)
		}

		// A later build's: two more counters, read and dropped.
		later := append(append(whole, 0x81, 0x01), 5)
		got = Totals{}
		r = testFormat.NewReader(append(later, 0xEE))
		got.ReadCounters(&r, 0, NumCounters+2)
		if diff := cmp.Diff(counters(in), got); diff != "" || r.Err() != nil || r.Len() != 1 {
			t.Errorf("%d counters read (-in +out), %v, %d bytes left (want 1):\n%s", NumCounters+2, r.Err(), r.Len(), diff)
		}
	}
	// Cut short: the reader fails, as frame.Reader says.
	big := fill(1000, false)
	b := big.AppendCounters(nil, 0, NumCounters)
	var got Totals
	r := testFormat.NewReader(b[:len(b)-1])
	got.ReadCounters(&r, 0, NumCounters)
	if !errors.Is(r.Err(), frame.ErrTruncated) {
		t.Errorf("truncated counters: %v, want ErrTruncated", r.Err())
	}
}

// FuzzTotalsCounters: whatever counters go in come out, and whatever
// bytes are read as counters encode to bytes that read the same.
func FuzzTotalsCounters(f *testing.F) {
	f.Add(uint64(0), uint64(1), uint64(127), uint64(128), uint64(1<<35), uint64(math.MaxUint64), uint64(300), []byte{0x80, 0x00, 0xFF, 0x01, 5})
	f.Add(uint64(9), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), []byte{})
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h uint64, raw []byte) {
		in := Totals{}
		for i, p := range in.counters() {
			*p = []uint64{a, b, c, d, e, g, h}[i%7] + uint64(i/7)
		}
		var out Totals
		r := testFormat.NewReader(in.AppendCounters(nil, 0, NumCounters))
		out.ReadCounters(&r, 0, NumCounters)
		if r.Err() != nil || out != in {
			t.Fatalf("%+v came back as %+v (%v)", in, out, r.Err())
		}

		var first Totals
		r = testFormat.NewReader(raw)
		first.ReadCounters(&r, 0, NumCounters)
		if r.Err() != nil {
			return // too short, or a varint over 64 bits: refused
		}
		var second Totals
		r = testFormat.NewReader(first.AppendCounters(nil, 0, NumCounters))
		second.ReadCounters(&r, 0, NumCounters)
		if r.Err() != nil || second != first {
			t.Fatalf("%x read as %+v, which encodes to what reads as %+v (%v)", raw, first, second, r.Err())
		}
	})
}
