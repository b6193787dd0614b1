package sketch

import "testing"

// TestAddAllocations: Add allocates nothing in steady state, for new keys
// that evict (dense HyperLogLog), for tracked keys, and for keys of
// DynamoDB's maximum length. Counted over 20,000 calls, not averaged, so a
// single allocation fails.
func TestAddAllocations(t *testing.T) {
	const warm, calls = 50_000, 20_000
	// AllocsPerRun calls the function once more to warm up: 2 × calls.
	keys := make([][]byte, warm+2*calls)
	for i := range keys {
		keys[i] = distinctKey(nil, i)
	}
	long := make([][]byte, 300)
	for i := range long {
		long[i] = make([]byte, MaxKeyLen)
		copy(long[i], distinctKey(nil, i))
	}
	cases := []struct {
		name      string
		warm, run func(i int) []byte
	}{
		{"new keys, dense HyperLogLog", func(i int) []byte { return keys[i] }, func(i int) []byte { return keys[warm+i] }},
		{"tracked keys", func(i int) []byte { return keys[i%100] }, func(i int) []byte { return keys[i%100] }},
		{"2048-byte keys", func(i int) []byte { return long[i%len(long)] }, func(i int) []byte { return long[i%len(long)] }},
		// Thousands of keys that keep coming back from outside the table:
		// counted in the exact set, which must not allocate once grown.
		{"2,000 recurring keys", func(i int) []byte { return keys[(i*7)%2000] }, func(i int) []byte { return keys[(i*7)%2000] }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := NewSummary(DefaultConfig())
			for i := range warm {
				s.Add(c.warm(i), 1+uint64(i%400), int64(i/100), uint64(i))
			}
			i := 0
			allocs := testing.AllocsPerRun(1, func() {
				for range calls {
					s.Add(c.run(i), 1+uint64(i%400), int64(warm+i/100), uint64(i))
					i++
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations in %d calls to Add", allocs, calls)
			}
		})
	}
}

func TestSummaryMergeErrors(t *testing.T) {
	a, _ := NewSummary(DefaultConfig())
	a.Add([]byte("k"), 5, 0, 0)
	cfg := DefaultConfig()
	cfg.Width++
	b, _ := NewSummary(cfg)
	b.Add([]byte("k"), 7, 0, 0)
	if err := a.Merge(b); !isErr(err, ErrConfigMismatch) {
		t.Errorf("merge of %+v into %+v: %v, want ErrConfigMismatch", cfg, DefaultConfig(), err)
	}
	if a.Total() != 5 {
		t.Errorf("failed merge changed the total to %d", a.Total())
	}
	c, _ := NewSummary(DefaultConfig())
	c.Add([]byte("k"), 1<<63, 0, 0)
	c.Add([]byte("k"), 1<<63-1, 0, 0)
	before := roundTrip(t, a)
	if err := a.Merge(c); !isErr(err, ErrOverflow) {
		t.Errorf("merge past 2^64: %v, want ErrOverflow", err)
	}
	if err := sameContent(a, before); err != nil {
		t.Errorf("failed merge changed the summary: %v", err)
	}
}

func TestSummaryMergeSelf(t *testing.T) {
	s, _ := NewSummary(DefaultConfig())
	s.Add([]byte("a"), 3, 1, 0)
	s.Add([]byte("b"), 4, 1, 0)
	if err := s.Merge(s); err != nil {
		t.Fatal(err)
	}
	if lo, hi := s.Estimate([]byte("b")); s.Total() != 14 || lo != 8 || hi != 8 {
		t.Errorf("after self merge: total %d, b in [%d, %d]; want 14 and [8, 8]", s.Total(), lo, hi)
	}
}

func TestSummaryAddEdges(t *testing.T) {
	t.Run("zero value", func(t *testing.T) {
		var s Summary
		if s.Config() != DefaultConfig() || s.Total() != 0 || s.Distinct() != 0 || s.Top(5) != nil {
			t.Fatalf("zero Summary is not empty with DefaultConfig")
		}
		s.Add([]byte("k"), 2, 0, 0)
		if lo, hi := s.Estimate([]byte("k")); lo != 2 || hi != 2 || s.Distinct() != 1 {
			t.Errorf("k in [%d, %d], distinct %d; want [2, 2], 1", lo, hi, s.Distinct())
		}
	})
	t.Run("weight 0 counts the key as seen only", func(t *testing.T) {
		s, _ := NewSummary(DefaultConfig())
		s.Add([]byte("ttl"), 0, 0, 0)
		if s.Total() != 0 || s.Distinct() != 1 || len(s.Top(10)) != 0 {
			t.Errorf("total %d, distinct %d, top %v", s.Total(), s.Distinct(), s.Top(10))
		}
	})
	t.Run("total saturates", func(t *testing.T) {
		s, _ := NewSummary(DefaultConfig())
		s.Add([]byte("a"), 1<<63, 0, 0)
		s.Add([]byte("b"), 1<<63, 0, 0)
		s.Add([]byte("c"), 5, 0, 0)
		lo, hi := s.Estimate([]byte("b"))
		if s.Total() != 1<<64-1 || lo != 1<<63-1 || hi != 1<<63-1 {
			t.Errorf("total %d, b in [%d, %d]", s.Total(), lo, hi)
		}
		roundTrip(t, s)
	})
	t.Run("keys longer than MaxKeyLen count under their prefix", func(t *testing.T) {
		s, _ := NewSummary(DefaultConfig())
		k := make([]byte, MaxKeyLen+10)
		s.Add(k, 3, 0, 0)
		s.Add(k[:MaxKeyLen], 4, 0, 0)
		top := s.Top(1)
		if len(top) != 1 || len(top[0].Key) != MaxKeyLen || top[0].Lower != 7 {
			t.Fatalf("top %v", top)
		}
		roundTrip(t, s)
	})
	t.Run("Reset", func(t *testing.T) {
		s := build(t, DefaultConfig(), testUniverse(), zipfStream(testUniverse(), 50_000, 1.1, 3))
		s.Reset()
		empty, _ := NewSummary(DefaultConfig())
		if err := sameContent(s, empty); err != nil {
			t.Error(err)
		}
		b, _ := s.MarshalBinary()
		if len(b) > 100 {
			t.Errorf("an empty summary encodes to %d bytes", len(b))
		}
	})
}

// TestDecodedGoesOn: a decoded summary continues exactly as the original.
func TestDecodedGoesOn(t *testing.T) {
	u := testUniverse()
	stream := zipfStream(u, 200_000, 1.1, 4)
	a := build(t, DefaultConfig(), u, stream[:100_000])
	b := roundTrip(t, a)
	for _, r := range stream[100_000:] {
		a.Add(u.keys[r.key], r.weight, r.tick, r.item)
		b.Add(u.keys[r.key], r.weight, r.tick, r.item)
	}
	if err := sameContent(a, b); err != nil {
		t.Error(err)
	}
}

func TestConfigValidate(t *testing.T) {
	d := DefaultConfig()
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"default", d, true},
		{"smallest", Config{1, 1, 1}, true},
		{"largest", Config{MaxCounters, MaxWidth, MaxCells / MaxWidth}, true},
		{"no counters", Config{0, 1024, 4}, false},
		{"too many counters", Config{MaxCounters + 1, 1024, 4}, false},
		{"no width", Config{256, 0, 4}, false},
		{"too wide", Config{256, MaxWidth + 1, 1}, false},
		{"no depth", Config{256, 1024, 0}, false},
		{"too deep", Config{256, 16, MaxDepth + 1}, false},
		{"too many cells", Config{256, MaxWidth, MaxDepth}, false},
		{"negative", Config{-1, -1, -1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != tc.ok || (err != nil && !isErr(err, ErrConfig)) {
				t.Errorf("Validate(%+v) = %v", tc.cfg, err)
			}
			if _, err2 := NewSummary(tc.cfg); (err2 == nil) != tc.ok {
				t.Errorf("NewSummary(%+v) = %v", tc.cfg, err2)
			}
		})
	}
}

// TestHashIsXXH3: the hash is persisted and merged across versions, so it
// is pinned: XXH3-64 of the empty input is the specification's test vector,
// the others were computed once with this package (zeebo/xxh3 is
// checked against the C reference) and must never change.
func TestHashIsXXH3(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want uint64
	}{
		{"", 0x2d06800538d394c2},
		{"OPS_LOG", 0x2fb2c148fe714647},
		{"USER#6f1c3e4a-1b2c-4d5e-8f90-a1b2c3d4e5f6", 0x58a611d7fafd3785},
	} {
		if got := Hash([]byte(tc.key)); got != tc.want {
			t.Errorf("Hash(%q) = %#x, want %#x", tc.key, got, tc.want)
		}
	}
}
