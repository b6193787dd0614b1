package sketch

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"hash"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var printReference = flag.Bool("sketch.print-reference", false, "print referenceDigests as this build computes them")

// referenceDigests were computed by this test at commit 3a7c818, before
// the speed work on Add (count-min update, index buckets, slots holding
// their keys, the count path): every figure a summary answers and every
// encoding byte, taken at checkpoints through each stream, must be what
// that straightforward code gave.
var referenceDigests = map[string]string{
	"default zipf":        "c07b200439e2783c95bc7c7de8d688425d769f059986c7e2ddde8f411d6f1bc0",
	"depth 3":             "7b348c1267f2208efb862544647127efb3c8ee4582301ca1712758baa89e2098",
	"depth 8":             "3c4b9a28ed541fb91237777d8556ecbbada013712a147af173a2106e6d6dd0d7",
	"heavy hitters alone": "c5adca3ba2c7d7ab0af4fab44593773a27b88b21d7566d5c4183930039a8d049",
	"index windows":       "73af0c6b2f7ee0f26b95e3c8f5287343c5821e6f4ea043a2ca547d4c0a75ce05",
	"index-sized zipf":    "e51461dc18b594e138ad943cdbe10c373a3a39bae338571c42e37fd6996c1289",
	"small churn":         "8373f0509773a984d93edb25f37a69084bb18dffa96dc95530e4a524cf067953",
	"table window":        "33873808ca2fd312955e1e32759725deb900e087cfe3b5825514d80c4e6bfddf",
	"width 1":             "66d6b39ea97761dacfc8747b8a46a7046d2ed3991ed09c142860fe519fa5358b",
}

// TestAddReference replays streams that exercise every path of Add (new
// keys taking a free counter, evicting the smallest, or gated out; counts
// that sift and that do not; keys within a slot, up to 64 bytes, longer than
// 64 and than MaxKeyLen; weight 0; ticks out of order; items; depths 4 and
// others) plus Trim, Merge, decoding and adding on, and HeavyHitters alone
// (no count-min gate, so evictions all the time), and compares digests of
// everything observable with referenceDigests.
func TestAddReference(t *testing.T) {
	got := map[string]string{}
	for _, c := range referenceCases() {
		d := sha256.New()
		c.run(d)
		got[c.name] = fmt.Sprintf("%x", d.Sum(nil))
	}
	if *printReference {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(got)) {
			fmt.Fprintf(&b, "\t%q: %q,\n", name, got[name])
		}
		t.Logf("referenceDigests:\n%s", b.String())
		return
	}
	if len(got) != len(referenceDigests) {
		t.Fatalf("%d cases, %d reference digests", len(got), len(referenceDigests))
	}
	for name, want := range referenceDigests {
		if got[name] != want {
			t.Errorf("%s: digest %s, want %s (the figures or the encoding differ from the reference code)", name, got[name], want)
		}
	}
}

type referenceCase struct {
	name string
	run  func(d hash.Hash)
}

// digestSummary writes everything a summary answers into d: total, floor,
// distinct keys, every tracked entry in Top's order, estimates of some
// keys, and the encoding of a copy (encoding ends exact distinct counting,
// which the stream's summary must keep).
func digestSummary(d hash.Hash, s *Summary, probes [][]byte) {
	w := func(vs ...uint64) {
		for _, v := range vs {
			d.Write(binary.LittleEndian.AppendUint64(nil, v))
		}
	}
	w(s.Total(), s.Floor(), s.Distinct())
	for _, e := range s.Top(s.Config().Counters) {
		w(uint64(len(e.Key)))
		d.Write(e.Key)
		many := uint64(0)
		if e.ManyItems {
			many = 1
		}
		w(e.Lower, e.Upper, e.Peak, e.Item, many)
	}
	for _, k := range probes {
		lo, up := s.Estimate(k)
		w(lo, up)
	}
	c := s.clone()
	enc, err := c.MarshalBinary()
	if err != nil {
		panic(err)
	}
	d.Write(enc)
}

// refKey spells key i of a stream, of a length that depends on i: within a
// slot, up to 64 bytes, over 64, or over MaxKeyLen.
func refKey(i int) []byte {
	lengths := []int{5, 16, 47, 48, 49, 64, 65, 300, MaxKeyLen + 10}
	n := lengths[i%len(lengths)]
	if i%7 != 0 {
		n = lengths[i%4] // mostly short keys
	}
	b := make([]byte, n)
	for j := range b {
		b[j] = byte('a' + (i+j)%26)
	}
	binary.BigEndian.PutUint32(b, uint32(i)) // n ≥ 5
	return b
}

func referenceCases() []referenceCase {
	var cases []referenceCase
	addStream := func(name string, cfg Config, n, keys int, zipfS float64, seed uint64) {
		cases = append(cases, referenceCase{name, func(d hash.Hash) {
			r := rand.New(rand.NewPCG(seed, seed))
			z := newZipf(keys, zipfS, r)
			s, _ := NewSummary(cfg)
			probes := [][]byte{refKey(0), refKey(1), refKey(keys / 2), refKey(keys + 1)}
			for i := range n {
				k := int(z.draw(r))
				w := uint64(r.IntN(50))
				if i%17 == 0 {
					w = 0
				}
				tick := int64(1000 + i/30 - r.IntN(3)) // sometimes out of order
				item := uint64(0)
				if r.IntN(2) == 0 {
					item = uint64(r.IntN(3)) * 0x9e3779b97f4a7c15
				}
				s.Add(refKey(k), w, tick, item)
				if i%(n/8) == 0 {
					digestSummary(d, s, probes)
				}
			}
			digestSummary(d, s, probes)
			// Trim, add on, merge with another stream's summary, decode
			// and add on: each step digested.
			s.Trim(cfg.Counters / 2)
			digestSummary(d, s, probes)
			for i := range n / 4 {
				s.Add(refKey(int(z.draw(r))), uint64(1+i%9), int64(2000+i/30), 0)
			}
			digestSummary(d, s, probes)
			o, _ := NewSummary(cfg)
			for i := range n / 2 {
				o.Add(refKey(int(z.draw(r))+keys/3), uint64(1+i%5), int64(1500+i/30), uint64(i%4))
			}
			if err := s.Merge(o); err != nil {
				panic(err)
			}
			digestSummary(d, s, probes)
			enc, _ := s.MarshalBinary()
			var back Summary
			if err := back.UnmarshalBinary(enc); err != nil {
				panic(err)
			}
			for i := range n / 4 {
				back.Add(refKey(int(z.draw(r))), uint64(1+i%3), int64(3000+i/30), 0)
			}
			digestSummary(d, &back, probes)
		}})
	}
	addStream("index-sized zipf", Config{64, 256, 4}, 20000, 3000, 1.1, 1)
	addStream("default zipf", DefaultConfig(), 60000, 100000, 1.05, 2)
	addStream("small churn", Config{4, 8, 2}, 5000, 50, 0.3, 3)
	addStream("depth 3", Config{32, 100, 3}, 10000, 2000, 0.9, 4)
	addStream("depth 8", Config{16, 500, 8}, 10000, 2000, 1.2, 5)
	addStream("width 1", Config{8, 1, 1}, 3000, 200, 1.0, 6)

	windows := func(name string, cfg Config, streams func(r *rand.Rand) [][]windowAdd) {
		cases = append(cases, referenceCase{name, func(d hash.Hash) {
			r := rand.New(rand.NewPCG(7, 7))
			for _, st := range streams(r) {
				s, _ := NewSummary(cfg)
				for i, a := range st {
					s.Add(a.key, a.weight, a.tick, a.item)
					if i%1000 == 0 {
						digestSummary(d, s, [][]byte{st[0].key})
					}
				}
				digestSummary(d, s, [][]byte{st[0].key})
			}
		}})
	}
	windows("index windows", Config{64, 256, 4}, func(r *rand.Rand) [][]windowAdd {
		return [][]windowAdd{indexStream(r, 4000), indexStream(r, 4000), indexStream(r, 4000)}
	})
	windows("table window", DefaultConfig(), func(r *rand.Rand) [][]windowAdd {
		return [][]windowAdd{tableStream(r, 10000)}
	})

	// HeavyHitters alone: no gate, so every untracked key evicts.
	cases = append(cases, referenceCase{"heavy hitters alone", func(d hash.Hash) {
		r := rand.New(rand.NewPCG(8, 8))
		z := newZipf(5000, 0.8, r)
		h, _ := NewHeavyHitters(32)
		o, _ := NewHeavyHitters(32)
		for i := range 30000 {
			k := refKey(int(z.draw(r)))
			h.Add(k, Hash(k), uint64(r.IntN(20)), int64(i/50-r.IntN(2)), uint64(r.IntN(3)))
			k = refKey(int(z.draw(r)) + 100)
			o.Add(k, Hash(k), uint64(1+r.IntN(5)), int64(i/50), 0)
			if i%3000 == 0 {
				digestEntries(d, h)
			}
		}
		if err := h.Merge(o); err != nil {
			panic(err)
		}
		digestEntries(d, h)
	}})
	return cases
}

func digestEntries(d hash.Hash, h *HeavyHitters) {
	d.Write(binary.LittleEndian.AppendUint64(nil, h.Floor()))
	for _, e := range h.Top(h.Counters()) {
		d.Write(e.Key)
		for _, v := range []uint64{e.Lower, e.Upper, e.Peak, e.Item} {
			d.Write(binary.LittleEndian.AppendUint64(nil, v))
		}
		if e.ManyItems {
			d.Write([]byte{1})
		}
	}
}
