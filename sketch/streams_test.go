package sketch

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// The default-size guarantees, checked against the exact oracle on the
// streams docs/sketch.md names: Zipf, adversarial, and merges of their parts.

var testUniverse = sync.OnceValue(func() *universe { return newUniverse(100_000, 1) })

func TestZipfStreams(t *testing.T) {
	u := testUniverse()
	for i, s := range []float64{0.7, 1.1, 1.5} {
		t.Run(fmt.Sprintf("s=%.1f", s), func(t *testing.T) {
			t.Parallel()
			stream := zipfStream(u, 1_000_000, s, uint64(10+i))
			tr := newTruth(u, stream)
			sum := build(t, DefaultConfig(), u, stream)
			if n := check(t, "direct", sum, u, tr); n == 0 {
				t.Fatal("no key above W/k: the check is vacuous")
			}
			check(t, "round trip", roundTrip(t, sum), u, tr)
		})
	}
}

// thresholdStream has keys on both sides of W/k at k = 256: 120 keys weigh
// one unit more than W/k, 120 keys one unit less, and 16 fresh keys of
// weight 1 come in every round. The keys just over must be found whatever
// the order: round-robin, shuffled, or with all the noise last, trying to
// push them out of the table.
func thresholdStream(T int, order string, seed uint64) (*universe, []rec) {
	const over, under, noise = 120, 120, 16
	u := newUniverse(over+under+noise*T, seed)
	r := rand.New(rand.NewPCG(seed, 3))
	var stream []rec
	next := int32(over + under)
	for round := range T + 1 {
		tick := int64(round / 10)
		for k := range int32(over + under) {
			if k < over || round < T-1 {
				stream = append(stream, rec{key: k, weight: 1, tick: tick, item: itemOf(k, r)})
			}
		}
		if round < T {
			for range noise {
				stream = append(stream, rec{key: next, weight: 1, tick: tick})
				next++
			}
		}
	}
	switch order {
	case "shuffled":
		r.Shuffle(len(stream), func(i, j int) { stream[i], stream[j] = stream[j], stream[i] })
	case "noise last":
		// Threshold keys first, then every noise key trying to push them out.
		n := 0
		for _, x := range stream {
			if x.key < over+under {
				stream[n] = x
				n++
			}
		}
		for k := range int32(noise * T) {
			stream = append(stream[:n], rec{key: over + under + k, weight: 1, tick: int64(T / 10)})
			n++
		}
	}
	return u, stream
}

// churnStream is round-robin over n keys of weight 1, R rounds, followed by
// the extra weight that takes 11 of them just over W/k (k = 256). For plain
// Space-Saving, round-robin over more keys than counters is the worst
// order: each key finds its counter taken since its last visit (the least
// recently counted key holds the smallest counter), so nearly every record
// evicts, the 11 heavy keys included, again and again.
func churnStream(R, n int, seed uint64) (*universe, []rec) {
	const heavy = 11
	u := newUniverse(n, seed)
	r := rand.New(rand.NewPCG(seed, 4))
	var stream []rec
	for round := range R {
		for k := range int32(n) {
			stream = append(stream, rec{key: k, weight: 1, tick: int64(round), item: itemOf(k, r)})
		}
	}
	// R + E > W/k = (nR + 11E)/256  ⇔  E > (n-256)R/245.
	extra := (n-256)*R/245 + 1
	for e := range extra {
		for k := range int32(heavy) {
			stream = append(stream, rec{key: k, weight: 1, tick: int64(R + e/100), item: itemOf(k, r)})
		}
	}
	return u, stream
}

// evictions counts the records that took a counter from another key, and
// those that took it from a key heavier than W/k.
type evictions struct{ all, heavy int }

func (e *evictions) add(h *HeavyHitters, key []byte, u *universe, tr *truth, update func()) {
	full := h.Len() == h.Counters()
	tracked := h.find(Hash(key), key) >= 0
	var victim int32
	if full {
		victim = u.index[string(h.slots[h.heap[0].slot].key)]
	}
	update()
	if full && !tracked && h.find(Hash(key), key) >= 0 {
		e.all++
		if tr.weight[victim]*uint64(h.Counters()) > tr.total {
			e.heavy++
		}
	}
}

func TestAdversarialStreams(t *testing.T) {
	cases := []struct {
		name   string
		stream func() (*universe, []rec)
		heavy  int // keys heavier than W/k
	}{
		{"threshold/round robin", func() (*universe, []rec) { return thresholdStream(2000, "round robin", 7) }, 120},
		{"threshold/shuffled", func() (*universe, []rec) { return thresholdStream(2000, "shuffled", 7) }, 120},
		{"threshold/noise last", func() (*universe, []rec) { return thresholdStream(2000, "noise last", 7) }, 120},
		{"churn", func() (*universe, []rec) { return churnStream(100, 5000, 8) }, 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, stream := c.stream()
			tr := newTruth(u, stream)
			s, _ := NewSummary(DefaultConfig())
			var ev evictions
			for _, r := range stream {
				key := u.keys[r.key]
				ev.add(&s.hh, key, u, tr, func() { s.Add(key, r.weight, r.tick, r.item) })
			}
			t.Logf("%d records, %d evictions, %d of a key heavier than W/k", len(stream), ev.all, ev.heavy)
			if n := check(t, "direct", s, u, tr); n != c.heavy {
				t.Errorf("%d keys above W/k, want %d", n, c.heavy)
			}
			check(t, "round trip", roundTrip(t, s), u, tr)
		})
	}
}

// TestWeightedThreshold: keys just over and just under W/k, as records of
// weights 1-400 in random order.
func TestWeightedThreshold(t *testing.T) {
	const T = 40_000 // W/k
	r := rand.New(rand.NewPCG(9, 9))
	u := newUniverse(240+40_000, 9)
	var stream []rec
	emit := func(k int32, total uint64) {
		for total > 0 {
			w := min(total, 1+uint64(r.IntN(400)))
			stream = append(stream, rec{key: k, weight: w, item: itemOf(k, r)})
			total -= w
		}
	}
	for k := range int32(240) {
		if k < 120 {
			emit(k, T+1)
		} else {
			emit(k, T-1)
		}
	}
	// 16·T of noise over 40,000 keys.
	for k := range int32(40_000) {
		emit(240+k, 16*T/40_000)
	}
	r.Shuffle(len(stream), func(i, j int) { stream[i], stream[j] = stream[j], stream[i] })
	for i := range stream {
		stream[i].tick = int64(i / 500)
	}
	tr := newTruth(u, stream)
	if tr.total != 256*T {
		t.Fatalf("stream weighs %d, want %d", tr.total, 256*T)
	}
	s := build(t, DefaultConfig(), u, stream)
	if n := check(t, "direct", s, u, tr); n != 120 {
		t.Errorf("%d keys above W/k, want 120", n)
	}
}

// TestMerge merges 2 to 16 summaries of parts of one stream. Disjoint parts
// split the stream by key; overlapping parts by record, so that a key and
// even one key's tick are spread over several parts. Some parts travel
// through an encoding first, and the merge is a fold or a tree.
func TestMerge(t *testing.T) {
	u := testUniverse()
	zipfS := zipfStream(u, 1_000_000, 1.1, 21)
	zipfT := newTruth(u, zipfS)
	advU, advS := thresholdStream(1000, "round robin", 22)
	advT := newTruth(advU, advS)
	churnU, churnS := churnStream(100, 5000, 23)
	churnT := newTruth(churnU, churnS)
	for _, parts := range []int{2, 3, 5, 8, 16} {
		for _, split := range []string{"disjoint", "overlapping"} {
			t.Run(fmt.Sprintf("zipf/%d/%s", parts, split), func(t *testing.T) {
				t.Parallel()
				m := mergeParts(t, u, zipfS, parts, split)
				check(t, "merged", m, u, zipfT)
				check(t, "merged, round trip", roundTrip(t, m), u, zipfT)
			})
		}
	}
	for _, parts := range []int{2, 4, 16} {
		t.Run(fmt.Sprintf("adversarial/%d/overlapping", parts), func(t *testing.T) {
			t.Parallel()
			m := mergeParts(t, advU, advS, parts, "overlapping")
			if n := check(t, "merged", m, advU, advT); n != 120 {
				t.Errorf("%d keys above W/k, want 120", n)
			}
		})
		t.Run(fmt.Sprintf("churn/%d/overlapping", parts), func(t *testing.T) {
			t.Parallel()
			m := mergeParts(t, churnU, churnS, parts, "overlapping")
			if n := check(t, "merged", m, churnU, churnT); n != 11 {
				t.Errorf("%d keys above W/k, want 11", n)
			}
		})
	}
}

func mergeParts(t *testing.T, u *universe, stream []rec, parts int, split string) *Summary {
	r := rand.New(rand.NewPCG(uint64(parts), 5))
	sums := make([]*Summary, parts)
	for i := range sums {
		sums[i], _ = NewSummary(DefaultConfig())
	}
	for _, x := range stream {
		p := r.IntN(parts)
		if split == "disjoint" {
			p = int(Hash(u.keys[x.key]) % uint64(parts))
		}
		sums[p].Add(u.keys[x.key], x.weight, x.tick, x.item)
	}
	for i := 0; i < parts; i += 2 {
		sums[i] = roundTrip(t, sums[i])
	}
	if parts%2 == 1 {
		for _, s := range sums[1:] {
			if err := sums[0].Merge(s); err != nil {
				t.Fatal(err)
			}
		}
		return sums[0]
	}
	for len(sums) > 1 {
		next := sums[:0]
		for i := 0; i+1 < len(sums); i += 2 {
			if err := sums[i].Merge(sums[i+1]); err != nil {
				t.Fatal(err)
			}
			next = append(next, sums[i])
		}
		if len(sums)%2 == 1 {
			next = append(next, sums[len(sums)-1])
		}
		sums = next
	}
	return sums[0]
}

// TestDistinct: exact below exactKeys, within 2 % at 10k, 100k and 1M
// distinct keys and on either side of exactKeys, with repeats, after
// merging overlapping parts, and after a round trip.
func TestDistinct(t *testing.T) {
	for _, n := range []int{1, 1000, exactKeys - 1, exactKeys, exactKeys + 1, 10_000, 100_000, 1_000_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(n), 6))
			whole, _ := NewSummary(DefaultConfig())
			parts := make([]*Summary, 4)
			for i := range parts {
				parts[i], _ = NewSummary(DefaultConfig())
			}
			var buf []byte
			for i := range n {
				// Each key goes to the whole and to one or two parts; a
				// third of the time a key seen before comes again.
				buf = distinctKey(buf[:0], i)
				whole.Add(buf, 1+uint64(i%400), int64(i/1000), 0)
				parts[i%4].Add(buf, 1, 0, 0)
				if i%3 == 0 {
					parts[(i+1)%4].Add(buf, 1, 0, 0)
					buf = distinctKey(buf[:0], r.IntN(i+1))
					whole.Add(buf, 1, int64(i/1000), 0)
				}
			}
			if d := whole.Distinct(); !within(d, n, 0.02) || (n < exactKeys && d != uint64(n)) {
				t.Errorf("Distinct = %d, want %d (exactly below %d keys, else ± 2 %%)", d, n, exactKeys)
			}
			for _, p := range parts[1:] {
				if err := parts[0].Merge(p); err != nil {
					t.Fatal(err)
				}
			}
			if d := parts[0].Distinct(); !within(d, n, 0.02) {
				t.Errorf("merged: Distinct = %d, want %d ± 2 %%", d, n)
			}
			if d := roundTrip(t, whole).Distinct(); !within(d, n, 0.02) {
				t.Errorf("round trip: Distinct = %d, want %d ± 2 %%", d, n)
			}
		})
	}
}

func distinctKey(b []byte, i int) []byte {
	b = fmt.Appendf(b, "ORDER#%09d#", i)
	for len(b) < 16+i%49 {
		b = append(b, 'x')
	}
	return b
}
