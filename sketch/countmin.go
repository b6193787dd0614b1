package sketch

import (
	"fmt"
	"math"
)

// CountMin is a weighted Count-Min sketch (Cormode and Muthukrishnan, "An
// improved data stream summary: the count-min sketch and its applications",
// J. Algorithms 2005) with conservative update (Estan and Varghese, "New
// directions in traffic measurement and accounting", SIGCOMM 2002).
//
// Guarantee: for every key x of true weight f(x) in a stream of total weight
// W, f(x) ≤ Estimate(x), and Estimate(x) ≤ f(x) + εW with probability at
// least 1 - δ, where ε = e/width and δ = e^-depth. Conservative update raises
// a row's cell only as far as the new minimum requires, so its estimates are
// never above those of the plain sketch and both bounds carry over. Merge
// adds cells element-wise: every cell still bounds from above the weight of
// each key that maps to it, and no cell exceeds the plain sketch's cell for
// the union, so the merged sketch keeps the guarantee for the union stream.
//
// The caller supplies the key's 64-bit hash (use Hash); the rows' columns
// come from it by double hashing (Kirsch and Mitzenmacher, "Less hashing,
// same performance", ESA 2006), so a key is hashed once whatever the depth.
type CountMin struct {
	width, depth int
	cells        []uint64 // row-major, depth × width
}

// NewCountMin returns an empty sketch of width columns and depth rows,
// within the limits of Config.Validate.
func NewCountMin(width, depth int) (*CountMin, error) {
	c := &CountMin{}
	if err := c.init(width, depth); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *CountMin) init(width, depth int) error {
	cfg := Config{Counters: 1, Width: width, Depth: depth}
	if err := cfg.Validate(); err != nil {
		return err
	}
	c.width, c.depth = width, depth
	c.cells = make([]uint64, width*depth)
	return nil
}

// Width returns the number of columns.
func (c *CountMin) Width() int { return c.width }

// Depth returns the number of rows.
func (c *CountMin) Depth() int { return c.depth }

// column returns row i's cell index for a key whose hash is split into
// halves a and b. Lemire's multiply-shift maps a 32-bit value onto
// [0, width) without a division and without requiring a power of two.
func (c *CountMin) column(i int, a, b uint32) int {
	g := a + uint32(i)*b
	return i*c.width + int((uint64(g)*uint64(c.width))>>32)
}

// Add adds weight to the key with the given hash and returns the key's new
// estimate. The estimate saturates at 2^64-1 rather than wrap.
//
// The depth every Config in use has (DefaultConfig and the detector's index
// sketches), 4, is written out: the four cells are loaded at once, so that
// their cache misses overlap, and raised with max rather than a branch,
// which conservative update mispredicts often (which rows hold the minimum
// varies from key to key).
func (c *CountMin) Add(hash, weight uint64) uint64 {
	if c.depth != 4 {
		return c.addRows(hash, weight)
	}
	a, b := uint32(hash), uint32(hash>>32)
	w := uint64(c.width)
	cells := c.cells[:4*c.width]
	j0 := int((uint64(a) * w) >> 32)
	j1 := c.width + int((uint64(a+b)*w)>>32)
	j2 := 2*c.width + int((uint64(a+2*b)*w)>>32)
	j3 := 3*c.width + int((uint64(a+3*b)*w)>>32)
	v0, v1, v2, v3 := cells[j0], cells[j1], cells[j2], cells[j3]
	next := satAdd(min(v0, v1, v2, v3), weight)
	cells[j0], cells[j1], cells[j2], cells[j3] = max(v0, next), max(v1, next), max(v2, next), max(v3, next)
	return next
}

// addRows is Add for any depth. Two passes over the rows, the columns
// computed again in the second (a multiply) rather than kept in arrays:
// rows are disjoint, so no cell is read after another row's update, and
// the second pass finds each cell as the first read it.
func (c *CountMin) addRows(hash, weight uint64) uint64 {
	a, b := uint32(hash), uint32(hash>>32)
	est := uint64(math.MaxUint64)
	for i := range c.depth {
		est = min(est, c.cells[c.column(i, a, b)])
	}
	next := satAdd(est, weight)
	for i := range c.depth {
		j := c.column(i, a, b)
		c.cells[j] = max(c.cells[j], next)
	}
	return next
}

// Estimate returns an upper bound on the weight added for the key with the
// given hash; see the type's guarantee for how close it is.
func (c *CountMin) Estimate(hash uint64) uint64 {
	a, b := uint32(hash), uint32(hash>>32)
	est := uint64(math.MaxUint64)
	for i := range c.depth {
		est = min(est, c.cells[c.column(i, a, b)])
	}
	return est
}

// Merge adds other's cells to c. Both must have the same width and depth.
// Cells saturate at 2^64-1 rather than wrap.
func (c *CountMin) Merge(other *CountMin) error {
	if c.width != other.width || c.depth != other.depth {
		return fmt.Errorf("sketch: count-min %d×%d into %d×%d: %w", other.width, other.depth, c.width, c.depth, ErrConfigMismatch)
	}
	for i, v := range other.cells {
		s := c.cells[i] + v
		if s < v {
			s = math.MaxUint64
		}
		c.cells[i] = s
	}
	return nil
}

// Reset empties c, keeping its memory.
func (c *CountMin) Reset() { clear(c.cells) }
