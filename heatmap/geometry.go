package heatmap

import (
	"image"
	"unicode/utf8"
)

// Geometry of a map, in CSS pixels. Each map is one <svg> block; the first
// sits at the page's top-left corner.
const (
	margin     = 16
	labelWidth = 260
	gridTop    = 142
	rowHeight  = 16 // a cell is rowHeight-1 high: one pixel between rows
	groupGap   = 8  // between the key rows, "all other keys" and the shards
	gridWidth  = 960
	minCell    = 3
	maxCell    = 96
	footer     = 48
	legendBand = 48
)

// Width of a label and of a key inside a cell's title, in characters: keys
// can be 2,048 bytes; the row label's title holds the whole key.
const (
	labelChars = 34
	titleChars = 80
)

// cellWidth is the width of one column.
func (m *Map) cellWidth() int {
	if len(m.Columns) == 0 {
		return maxCell
	}
	return min(maxCell, max(minCell, gridWidth/len(m.Columns)))
}

func (m *Map) gridX() int { return margin + labelWidth }

func (m *Map) rowY(i int) int {
	y := gridTop + i*rowHeight
	if i >= m.keyRows() {
		y += groupGap // "all other keys"
	}
	if i > m.keyRows() {
		y += groupGap // the shards
	}
	return y
}

func (m *Map) keyRows() int {
	n := 0
	for _, r := range m.Rows {
		if r.Kind == KeyRow {
			n++
		}
	}
	return n
}

// Cell returns where cell (row, col) is drawn, within the map's <svg>.
func (m *Map) Cell(row, col int) image.Rectangle {
	x, y, w := m.gridX()+col*m.cellWidth(), m.rowY(row), m.cellWidth()
	if w >= 6 {
		w-- // a pixel between columns, where there is room for it
	}
	return image.Rect(x, y, x+w, y+rowHeight-1)
}

// Size is the size of the map's <svg>: its grid, its legend, and its lines
// of text, so that a map of few columns does not clip its subtitle.
func (m *Map) Size() (width, height int) {
	width = max(m.gridX()+len(m.Columns)*m.cellWidth()+margin, margin+len(heatScale)*legendBand+420)
	lines := append([]string{m.subtitle()}, m.notes()...)
	for _, l := range lines {
		width = max(width, 2*margin+textWidth(l))
	}
	width = max(width, 2*margin+textWidth(m.title())*4/3) // the title is 16 px, the rest 12
	return width, m.rowY(len(m.Rows)) + footer
}

// charWidth is what a character of 12 px sans-serif text takes at most on
// average, in CSS pixels (DejaVu Sans, the widest common default, averages
// about 6.5 on this text).
const charWidth = 7

// textWidth is the width a line of 12 px text may take.
func textWidth(s string) int { return utf8.RuneCountInString(s) * charWidth }
