package main

import (
	"strings"
	"unicode/utf8"
)

// Text for people, to a width: the terminal's, or defaultWidth when the
// output is not a terminal (a file, a pipe, a test). Every line fits it,
// but a table on a terminal too narrow for its narrowest form, and none
// ends in a space.

// defaultWidth is the width of table output that goes to no terminal.
const defaultWidth = 100

// minWidth is the narrowest width --width takes: below it, a table cannot
// show a key and its figures on one line.
const minWidth = 40

// runes is the width of s on a terminal: one column a rune (the box
// drawing, bar and arrow characters the tables use are all one column
// wide).
func runes(s string) int { return utf8.RuneCountInString(s) }

// writeLine writes s and a newline, without trailing spaces.
func writeLine(b *strings.Builder, s string) {
	b.WriteString(strings.TrimRight(s, " "))
	b.WriteByte('\n')
}

// wrap writes text as lines of at most width runes: the first starts with
// first, the others with rest (a hanging indent). Words longer than a line
// are cut, so that nothing runs past the width.
func wrap(b *strings.Builder, first, rest, text string, width int) {
	line, prefix := first, first
	empty := true
	for word := range strings.FieldsSeq(text) {
		switch {
		case empty:
			line += word
			empty = false
		case runes(line)+1+runes(word) <= width:
			line += " " + word
		default:
			writeLine(b, line)
			line, prefix = rest+word, rest
		}
		for runes(line) > width && runes(line) > runes(prefix)+1 { // a word longer than the line
			cut := []rune(line)
			writeLine(b, string(cut[:width]))
			line = rest + string(cut[width:])
			prefix = rest
		}
	}
	if !empty {
		writeLine(b, line)
	}
}

// rule writes title followed by a rule of '─' to width.
func rule(b *strings.Builder, title string, width int) {
	writeLine(b, title+strings.Repeat("─", max(0, width-runes(title))))
}

// fields writes items separated by three spaces, as many to a line as fit
// width, the way a window's totals are written; an item longer than a
// line is wrapped.
func fields(b *strings.Builder, items []string, width int) {
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case runes(line)+3+runes(it) <= width:
			line += "   " + it
		default:
			fitLine(b, line, width)
			line = it
		}
	}
	if line != "" {
		fitLine(b, line, width)
	}
}

// fitLine writes line as it is when it fits width, else wrapped.
func fitLine(b *strings.Builder, line string, width int) {
	if runes(line) <= width {
		writeLine(b, line)
		return
	}
	wrap(b, "", "  ", line, width)
}

// A table of columns, fitted to a width: a share bar narrowed and then
// left out, columns that can go left out, and a key column cut (the key
// noted in full below the window), until the table fits.

// cell is one cell of a table: text, or a key to cut to the column's
// width, or a share: a bar, then its text.
type cell struct {
	text  string
	key   *string // the key, cut to fit and noted in full when cut
	share float64 // a bar column's value
}

func text(s string) cell    { return cell{text: s} }
func keyCell(k string) cell { return cell{key: &k} }

// column is a column's heading and how it may give way.
type column struct {
	head string
	bar  bool // cells are shares, drawn as a bar of barWidths[...] cells before their text
	key  bool // cells are keys, cut to at most keyWidths[...] runes
	drop int  // when > 0, the column may be left out: lower numbers first; < 0: always left out
}

// The widths a key column and a bar column take, widest first.
var (
	keyWidths = []int{64, keyCellWidth, 32, 24, 16}
	barWidths = []int{20, 10, 0}
)

// table is a table under construction.
type table struct {
	indent string
	cols   []column
	rows   [][]cell
}

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

// layout is one way of drawing a table: the widths of its key and bar
// columns, and which droppable columns are left out.
type layout struct {
	key, bar int // indexes into keyWidths, barWidths
	dropped  int // columns of drop 1..dropped are left out
}

// write draws the table in the first layout that fits width (the last
// one tried when none does), noting cut keys in notes.
func (t *table) write(b *strings.Builder, width int, notes *keyNotes) {
	maxDrop := 0
	for _, c := range t.cols {
		maxDrop = max(maxDrop, c.drop)
	}
	// Give way in this order: the bar narrows and goes, the columns that
	// can go go (a key cut needs a footnote), then keys shorten.
	tries := []layout{{0, 0, 0}, {0, 1, 0}, {0, 2, 0}}
	for d := 1; d <= maxDrop; d++ {
		tries = append(tries, layout{0, 2, d})
	}
	for k := 1; k < len(keyWidths); k++ {
		tries = append(tries, layout{k, 2, maxDrop})
	}
	var lines []string
	for _, l := range tries {
		var probe keyNotes
		lines = t.lines(l, &probe)
		if widest(lines) <= width {
			lines = t.lines(l, notes)
			break
		}
		if l == tries[len(tries)-1] {
			lines = t.lines(l, notes)
		}
	}
	for _, s := range lines {
		writeLine(b, s)
	}
}

func widest(lines []string) int {
	w := 0
	for _, s := range lines {
		w = max(w, runes(strings.TrimRight(s, " ")))
	}
	return w
}

// lines draws the table in layout l.
func (t *table) lines(l layout, notes *keyNotes) []string {
	var keep []int
	for i, c := range t.cols {
		if c.drop < 0 || c.drop > 0 && c.drop <= l.dropped {
			continue
		}
		keep = append(keep, i)
	}
	grid := make([][]string, 0, len(t.rows)+1)
	head := make([]string, len(keep))
	for j, i := range keep {
		head[j] = t.cols[i].head
	}
	grid = append(grid, head)
	for _, r := range t.rows {
		row := make([]string, len(keep))
		for j, i := range keep {
			c := r[i]
			switch {
			case t.cols[i].bar && barWidths[l.bar] > 0:
				row[j] = bar(c.share, barWidths[l.bar]) + " " + c.text
			case c.key != nil:
				row[j] = notes.cell(*c.key, keyWidths[l.key])
			default:
				row[j] = c.text
			}
		}
		grid = append(grid, row)
	}
	widths := make([]int, len(keep))
	for _, row := range grid {
		for j, s := range row {
			widths[j] = max(widths[j], runes(s))
		}
	}
	out := make([]string, len(grid))
	for k, row := range grid {
		var s strings.Builder
		s.WriteString(t.indent)
		for j, c := range row {
			s.WriteString(c)
			if j < len(row)-1 {
				s.WriteString(strings.Repeat(" ", widths[j]-runes(c)+2))
			}
		}
		out[k] = s.String()
	}
	return out
}
