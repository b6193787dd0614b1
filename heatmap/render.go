package heatmap

import (
	"bufio"
	"fmt"
	"html"
	"image"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/report"
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

// CellWidth is the width of one column.
func (m *Map) CellWidth() int {
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
	x, y, w := m.gridX()+col*m.CellWidth(), m.rowY(row), m.CellWidth()
	if w >= 6 {
		w-- // a pixel between columns, where there is room for it
	}
	return image.Rect(x, y, x+w, y+rowHeight-1)
}

// Size is the size of the map's <svg>.
func (m *Map) Size() (width, height int) {
	width = max(m.gridX()+len(m.Columns)*m.CellWidth()+margin, margin+len(HeatScale)*legendBand+420)
	return width, m.rowY(len(m.Rows)) + footer
}

// WriteHTML writes one self-contained HTML page with a map per table:
// inline SVG, no script, nothing fetched. Keys appear as the reports give
// them, so redacted reports make a redacted page.
func WriteHTML(w io.Writer, maps []*Map) error {
	bw := bufio.NewWriter(w)
	title := "hotkeys heatmap"
	if len(maps) > 0 {
		names := make([]string, len(maps))
		for i, m := range maps {
			names[i] = m.name()
		}
		title += ": " + strings.Join(names, ", ")
	}
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n", esc(title))
	bw.WriteString("<style>body{margin:0;background:#fff;color:#222}svg{display:block;font-family:sans-serif;font-size:12px}" +
		"text.h{font-size:16px;font-weight:bold}text.s{fill:#555}text.l{font-size:11px}</style></head><body>\n")
	if len(maps) == 0 {
		bw.WriteString("<p style=\"font-family:sans-serif;margin:16px\">No windows were reported: no heatmap to draw.</p>\n")
	}
	for _, m := range maps {
		m.writeSVG(bw)
	}
	bw.WriteString("</body></html>\n")
	return bw.Flush()
}

func (m *Map) writeSVG(w *bufio.Writer) {
	width, height := m.Size()
	fmt.Fprintf(w, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, height, width, height)
	m.writeHeader(w)
	m.writeLegend(w)
	m.writeTimeAxis(w)
	cw := m.CellWidth()
	gridW := len(m.Columns) * cw
	for i, r := range m.Rows {
		y := m.rowY(i)
		// The row's label, and its background: the colour of the cells
		// the reports give no figure for.
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\"%s><title>%s</title>%s</text>\n",
			m.gridX()-6, y+rowHeight-4, ` text-anchor="end"`, esc(m.rowTitle(r)), esc(m.rowLabel(r)))
		bg := EmptyColour
		if r.Kind == KeyRow {
			bg = UnlistedColour
		}
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s</title></rect>\n",
			m.gridX(), y, gridW, rowHeight-1, bg, esc(m.backgroundTitle(r)))
		for j, c := range r.Cells {
			if !c.Listed {
				continue
			}
			rect := m.Cell(i, j)
			stroke := ""
			switch c.Severity {
			case report.Critical:
				stroke = ` stroke="#000" stroke-width="2"`
			case report.Warning:
				stroke = ` stroke="#000" stroke-width="1"`
			}
			if stroke != "" {
				// Inset, so that the outline stays inside the cell.
				rect = rect.Inset(1)
			}
			fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s><title>%s</title></rect>\n",
				rect.Min.X, rect.Min.Y, max(1, rect.Dx()), max(1, rect.Dy()), CellColour(r.Kind, c, m.Limit), stroke, esc(m.cellTitle(r, j)))
		}
	}
	footY := m.rowY(len(m.Rows)) + 16
	notes := []string{
		"Outlined: flagged (thick: critical). Grey: not among that window's top or hot keys. Hover a cell for its figures.",
		"WCU count the stream's successful writes: a lower bound of what the table spent, worst while a key is throttled.",
	}
	if m.HiddenShards > 0 {
		notes[1] += fmt.Sprintf(" %d quieter stream shard%s not shown.", m.HiddenShards, plural(m.HiddenShards))
	}
	for i, line := range notes {
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text>\n", margin, footY+16*i, esc(line))
	}
	w.WriteString("</svg>\n")
}

func (m *Map) writeHeader(w *bufio.Writer) {
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"h\">%s</text>\n", margin, margin+14, esc(m.name()+": write heat by partition key"))
	sub := fmt.Sprintf("%s – %s UTC · %d window%s of %s", m.Columns[0].Start.Format("2006-01-02 15:04"),
		m.Columns[len(m.Columns)-1].End.Format(m.timeLayout()), m.windows(), plural(m.windows()), duration(m.Window))
	if m.Bucket > 1 {
		sub += fmt.Sprintf(", %d to a column (%s)", m.Bucket, duration(m.Window*time.Duration(m.Bucket)))
	}
	sub += fmt.Sprintf(" · rows: the %d heaviest keys of the run by the WCU they certainly wrote, all other keys, the stream shards", m.keyRows())
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text>\n", margin, margin+34, esc(sub))
}

// writeLegend draws the heat scale with the partition limit marked, and
// the share scale of "all other keys".
func (m *Map) writeLegend(w *bufio.Writer) {
	x0, y := margin, margin+50
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\">%s</text>\n", x0, y+10, esc("peak WCU/s of a key or stream shard within one second:"))
	y += 16
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">0</text>\n", x0, y+27)
	for i, b := range HeatScale {
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n", x0+i*legendBand, y, legendBand, b.Colour)
		if i < len(HeatScale)-1 {
			fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\" text-anchor=\"middle\">%s</text>\n", x0+(i+1)*legendBand, y+27, thousands(uint64(b.UpTo*m.Limit+0.5)))
		}
	}
	// The limit: the edge of the last band.
	lx := x0 + (len(HeatScale)-1)*legendBand
	fmt.Fprintf(w, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" stroke-width=\"2\"/>\n", lx, y-4, lx, y+18)
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n", lx+legendBand+6, y+11,
		esc(fmt.Sprintf("← the partition limit, %s WCU/s, and over it", thousands(uint64(m.Limit+0.5)))))
	sx := lx + legendBand + 280
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n", sx, y-6, esc("all other keys, by share:"))
	for i, b := range ShareScale {
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"14\" fill=\"%s\"/>\n", sx+i*24, y, b.Colour)
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">0–100 %%</text>\n", sx, y+27)
}

// writeTimeAxis labels columns at least 70 px apart.
func (m *Map) writeTimeAxis(w *bufio.Writer) {
	cw := m.CellWidth()
	every := max(1, (70+cw-1)/cw)
	for j := 0; j < len(m.Columns) && (j == 0 || (len(m.Columns)-j)*cw >= 70); j += every {
		x := m.gridX() + j*cw
		fmt.Fprintf(w, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", x, gridTop-14, x, gridTop-2)
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n", x+2, gridTop-5, m.Columns[j].Start.Format(m.timeLayout()))
	}
}

func (m *Map) timeLayout() string {
	if len(m.Columns) > 0 && m.Columns[0].Start.YearDay() != m.Columns[len(m.Columns)-1].End.Add(-time.Nanosecond).YearDay() {
		return "01-02 15:04"
	}
	if m.Window%time.Minute != 0 {
		return "15:04:05"
	}
	return "15:04"
}

func (m *Map) windows() int {
	n := 0
	for _, c := range m.Columns {
		n += c.Windows
	}
	return n
}

func (m *Map) rowLabel(r Row) string {
	switch r.Kind {
	case OthersRow:
		if m.HiddenKeys > 0 {
			return fmt.Sprintf("all other keys (%d listed, and the rest)", m.HiddenKeys)
		}
		return "all other keys"
	case ShardRow:
		return "shard " + truncateLeft(printable(r.Name), labelChars-6)
	}
	return truncate(printable(r.Name), labelChars)
}

func (m *Map) rowTitle(r Row) string {
	var b strings.Builder
	switch r.Kind {
	case KeyRow:
		fmt.Fprintf(&b, "key (%s): %s\n", r.Type, printable(r.Name))
	case OthersRow:
		b.WriteString("all other keys: every key not shown above\n")
	case ShardRow:
		fmt.Fprintf(&b, "stream shard %s\n", printable(r.Name))
	}
	fmt.Fprintf(&b, "WCU over the run: %s", bounds(r.WCULower, r.WCUUpper))
	if r.Flagged > 0 {
		fmt.Fprintf(&b, "\nflagged in %d column%s", r.Flagged, plural(r.Flagged))
	}
	return b.String()
}

func (m *Map) backgroundTitle(r Row) string {
	if r.Kind == KeyRow {
		return truncate(printable(r.Name), titleChars) + "\nnot among this window's top or hot keys: it wrote at most the window's other_keys_wcu_upper"
	}
	if r.Kind == ShardRow {
		return "shard " + printable(r.Name) + "\nno records in this window"
	}
	return "no records in this window"
}

func (m *Map) cellTitle(r Row, j int) string {
	c, col := r.Cells[j], m.Columns[j]
	var b strings.Builder
	switch r.Kind {
	case KeyRow:
		b.WriteString(truncate(printable(r.Name), titleChars))
	case OthersRow:
		b.WriteString("all other keys")
	case ShardRow:
		b.WriteString("stream shard " + printable(r.Name))
	}
	fmt.Fprintf(&b, "\n%s – %s UTC", col.Start.Format(m.timeLayout()), col.End.Format(m.timeLayout()))
	if m.Bucket > 1 {
		fmt.Fprintf(&b, " (%d windows)", col.Windows)
	}
	fmt.Fprintf(&b, "\nWCU %s", bounds(c.WCULower, c.WCUUpper))
	if r.Kind == OthersRow {
		fmt.Fprintf(&b, "\nshare at least %s of the table's %s WCU", percent(c.Share), thousands(col.WCU))
		return b.String()
	}
	fmt.Fprintf(&b, "\nshare %s of the table's %s WCU", percent(c.Share), thousands(col.WCU))
	fmt.Fprintf(&b, "\npeak %s WCU/s within one second (a lower bound; the limit is %s)", thousands(uint64(c.Peak+0.5)), thousands(uint64(m.Limit+0.5)))
	if r.Kind == KeyRow {
		sev := string(c.Severity)
		if sev == "" {
			sev = "not flagged"
		}
		if c.Pattern != "" {
			sev += " · " + strings.ReplaceAll(string(c.Pattern), "_", " ")
		}
		b.WriteString("\n" + sev)
		if c.Diagnosis != "" {
			b.WriteString("\n" + printable(c.Diagnosis))
		}
	}
	return b.String()
}

// bounds prints a bracket: "1,234 (exact)" or "1,234 [1,200 – 1,234]".
func bounds(lower, upper uint64) string {
	if lower == upper {
		return thousands(upper) + " (exact)"
	}
	return fmt.Sprintf("%s [%s – %s]", thousands(upper), thousands(lower), thousands(upper))
}

func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

func percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + " %" }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// printable shows a key as text: invalid UTF-8 and characters that are not
// graphic (controls, NUL) become Go escapes, so that nothing in the page
// is invisible or breaks the markup.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !(unicode.IsGraphic(r) || r == ' ') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsGraphic(r) || r == ' ':
			b.WriteRune(r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// truncateLeft keeps the end: stream shard ids differ in their tails.
func truncateLeft(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n+1:])
}

func esc(s string) string { return html.EscapeString(s) }

// name is what the map is of: "Shop", or "Shop · index GSI1".
func (m *Map) name() string {
	if m.Index == "" {
		return m.Table
	}
	return m.Table + " · index " + m.Index
}
