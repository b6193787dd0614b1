package keypattern

import (
	"math"
	"math/bits"
	"slices"
)

// The distinct keys of one pattern: exact while few, then HyperLogLog.
//
// A pattern's keys are counted by a 32-bit fingerprint of each (the high
// half of the key's 64-bit hash): exactly, in a set, up to exactKeys
// distinct fingerprints, which covers the low-cardinality threshold
// (DefaultThresholds: under 100) with room to spare, so that every verdict
// that counts keys counts them exactly. Past exactKeys the set becomes a
// HyperLogLog (Flajolet, Fusy, Gandouet and Meunier, AofA 2007) of 2^hllP
// registers, read by Ertl's improved raw estimator ("New cardinality
// estimation algorithms for HyperLogLog sketches", arXiv:1702.01284,
// 2017), which needs no empirical bias table and is unbiased from a few
// keys to billions: standard error 1.04/√512 ≈ 4.6 %. Past exactKeys no
// verdict depends on the count (DefaultThresholds decide under 100), so
// 512 registers (320 bytes encoded) serve, where sketch.HLLPrecision's
// 16,384 (0.8 %, 16 KB) would not fit a window's state per pattern.
//
// Two fingerprints of different keys collide with probability 2^-32: at
// exactKeys keys, the exact count is one short with probability under
// 2×10^-6. Registers are filled from the fingerprint, so the sketch is a
// function of the set of fingerprints: merging the counters of two shards
// gives exactly the counter of all their records.
const (
	exactKeys = 128
	hllP      = 9
	hllM      = 1 << hllP
	hllQ      = 32 - hllP // bits left for a register's value, which is 1..hllQ+1
	setSlots  = 2 * exactKeys
)

// distinct is the counter. Its zero value is empty. The set is open
// addressing over setSlots fingerprints (0 marks an empty slot; the
// fingerprint 0 is kept in zero), allocated with the first key; regs is
// nil until the set overflows.
type distinct struct {
	set  []uint32
	n    int
	zero bool
	regs []uint8
}

// add counts a key by its fingerprint.
func (d *distinct) add(fp uint32) {
	if d.regs != nil {
		d.register(fp)
		return
	}
	if fp == 0 {
		if !d.zero {
			d.zero = true
			d.n++
			d.overflow()
		}
		return
	}
	if d.set == nil {
		d.set = make([]uint32, setSlots)
	}
	for i := fp & (setSlots - 1); ; i = (i + 1) & (setSlots - 1) {
		switch d.set[i] {
		case 0:
			d.set[i] = fp
			d.n++
			d.overflow()
			return
		case fp:
			return
		}
	}
}

// overflow turns a set that has outgrown exactKeys into registers.
func (d *distinct) overflow() {
	if d.n <= exactKeys {
		return
	}
	d.regs = make([]uint8, hllM)
	d.each(d.register)
	d.set, d.n, d.zero = nil, 0, false
}

// register sets fp's register: the position of the first 1 bit in the q
// bits below the index, hllQ+1 if there is none.
func (d *distinct) register(fp uint32) { setRegister(d.regs, fp) }

func setRegister(regs []uint8, fp uint32) {
	i := fp >> hllQ
	regs[i] = max(regs[i], uint8(min(bits.LeadingZeros32(fp<<hllP), hllQ)+1))
}

// each calls f for every fingerprint in the set.
func (d *distinct) each(f func(uint32)) {
	if d.zero {
		f(0)
	}
	for _, fp := range d.set {
		if fp != 0 {
			f(fp)
		}
	}
}

// sorted returns the set's fingerprints in ascending order.
func (d *distinct) sorted() []uint32 {
	out := make([]uint32, 0, d.n)
	d.each(func(fp uint32) { out = append(out, fp) })
	slices.Sort(out)
	return out
}

// exact reports whether count is exact (but for fingerprint collisions).
func (d *distinct) exact() bool { return d.regs == nil }

// count returns the number of distinct keys: exact while the set holds
// them, else the estimate rounded to the nearest integer.
func (d *distinct) count() uint64 {
	if d.regs == nil {
		return uint64(d.n)
	}
	return uint64(math.Round(estimate(d.regs)))
}

// merge adds o's keys to d.
func (d *distinct) merge(o *distinct) {
	if o.regs == nil {
		o.each(d.add)
		return
	}
	if d.regs == nil {
		regs := slices.Clone(o.regs)
		d.each(func(fp uint32) { setRegister(regs, fp) })
		d.regs, d.set, d.n, d.zero = regs, nil, 0, false
		return
	}
	for i, r := range o.regs {
		d.regs[i] = max(d.regs[i], r)
	}
}

func (d *distinct) clone() distinct {
	return distinct{set: slices.Clone(d.set), n: d.n, zero: d.zero, regs: slices.Clone(d.regs)}
}

// estimate is Ertl's improved raw estimator (his Algorithm 6):
//
//	N = α∞ m² / (m σ(C₀/m) + Σ_{k=1..q} C_k 2^-k + m τ(1 - C_{q+1}/m) 2^-q)
//
// with C_k the number of registers of value k and α∞ = 1/(2 ln 2).
func estimate(regs []uint8) float64 {
	var c [hllQ + 2]int
	for _, r := range regs {
		c[r]++
	}
	m := float64(len(regs))
	z := m * tau(1-float64(c[hllQ+1])/m)
	for k := hllQ; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * sigma(float64(c[0])/m)
	return m * m / (2 * math.Ln2) / z
}

// sigma is σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1).
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))² 2^-k) / 3.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}
