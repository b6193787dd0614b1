package heatmap

import "math"

// band is one step of a colour scale: values below upTo (a fraction of the
// scale's reference) take fill, unless an earlier band took them.
type band struct {
	upTo float64
	fill string
}

// heatScale colours a key's or a stream shard's peak WCU/s as a fraction of
// the partition limit: pale up to a tenth of it, deepening through orange to
// red at 80 % (where the detector calls a key critical) and to a dark
// crimson at and over the limit, which the legend marks. Discrete bands
// (ColorBrewer's YlOrRd) read faster than a gradient and can be told apart
// on a screenshot.
var heatScale = []band{
	{0.10, "#ffffcc"},
	{0.20, "#ffeda0"},
	{0.35, "#fed976"},
	{0.50, "#feb24c"},
	{0.65, "#fd8d3c"},
	{0.80, "#fc4e2a"},
	{1.00, "#e31a1c"},
	{math.Inf(1), "#800026"},
}

// shareScale colours the row "all other keys" by the share of the column's
// WCU they certainly took: they spread over many partitions, so their rate
// says nothing about the partition limit. Blues keep it apart from the heat.
var shareScale = []band{
	{0.20, "#eff3ff"},
	{0.40, "#c6dbef"},
	{0.60, "#9ecae1"},
	{0.80, "#6baed6"},
	{math.Inf(1), "#3182bd"},
}

// Colours of what has no figure.
const (
	UnlistedColour = "#e8e8e8" // a key not among a window's top or hot keys
	emptyColour    = "#f7f7f7" // a column without records, or a shard without any
)

// colour returns the band's colour for value/reference. A value of 0 or less
// takes the first band.
func colour(scale []band, value, reference float64) string {
	x := 0.0
	if reference > 0 && value > 0 {
		x = value / reference
	}
	for _, b := range scale {
		if x < b.upTo {
			return b.fill
		}
	}
	return scale[len(scale)-1].fill
}

// CellColour is the fill of a cell of row kind k on a map with limit.
func CellColour(k RowKind, c Cell, limit float64) string {
	switch {
	case !c.Listed && k == KeyRow:
		return UnlistedColour
	case !c.Listed:
		return emptyColour
	case k == othersRow:
		return colour(shareScale, c.Share, 1)
	}
	return colour(heatScale, c.Peak, limit)
}
