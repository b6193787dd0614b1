package heatmap

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

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
	cw := m.cellWidth()
	gridW := len(m.Columns) * cw
	for i, r := range m.Rows {
		y := m.rowY(i)
		// The row's label, and its background: the colour of the cells
		// the reports give no figure for.
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\"%s><title>%s</title>%s</text>\n",
			m.gridX()-6, y+rowHeight-4, ` text-anchor="end"`, esc(m.rowTitle(r)), esc(m.rowLabel(r)))
		bg := emptyColour
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
	for i, line := range m.notes() {
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text>\n", margin, footY+16*i, esc(line))
	}
	w.WriteString("</svg>\n")
}

func (m *Map) writeHeader(w *bufio.Writer) {
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"h\">%s</text>\n", margin, margin+14, esc(m.title()))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"s\">%s</text>\n", margin, margin+34, esc(m.subtitle()))
}

func (m *Map) title() string { return m.name() + ": write heat by partition key" }

// subtitle says what the map covers, and what its rows are.
func (m *Map) subtitle() string {
	sub := fmt.Sprintf("%s – %s UTC · %d window%s of %s", m.Columns[0].Start.Format("2006-01-02 15:04"),
		m.Columns[len(m.Columns)-1].End.Format(m.timeLayout()), m.windows(), plural(m.windows()), duration(m.Window))
	if m.Bucket > 1 {
		sub += fmt.Sprintf(", %d to a column (%s)", m.Bucket, duration(m.Window*time.Duration(m.Bucket)))
	}
	return sub + fmt.Sprintf(" · rows: the %d heaviest keys, all other keys, the stream shards", m.keyRows())
}

// notes are the map's footer lines.
func (m *Map) notes() []string {
	notes := []string{
		"Outlined: flagged (thick: critical). Grey: not among that window's top or hot keys. Hover a cell for its figures.",
		"WCU count the stream's successful writes: a lower bound of what the table spent, worst while a key is throttled.",
	}
	if m.HiddenShards > 0 {
		notes[1] += fmt.Sprintf(" %d quieter stream shard%s not shown.", m.HiddenShards, plural(m.HiddenShards))
	}
	return notes
}

// writeLegend draws the heat scale with the partition limit marked, and
// the share scale of "all other keys".
func (m *Map) writeLegend(w *bufio.Writer) {
	x0, y := margin, margin+50
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\">%s</text>\n", x0, y+10, esc("peak WCU/s of a key or stream shard within one second:"))
	y += 16
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">0</text>\n", x0, y+27)
	for i, b := range heatScale {
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\"/>\n", x0+i*legendBand, y, legendBand, b.fill)
		if i < len(heatScale)-1 {
			fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\" text-anchor=\"middle\">%s</text>\n", x0+(i+1)*legendBand, y+27, thousands(uint64(b.upTo*m.Limit+0.5)))
		}
	}
	// The limit: the edge of the last band.
	lx := x0 + (len(heatScale)-1)*legendBand
	fmt.Fprintf(w, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" stroke-width=\"2\"/>\n", lx, y-4, lx, y+18)
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n", lx+legendBand+6, y+11,
		esc(fmt.Sprintf("← the partition limit, %s WCU/s, and over it", thousands(uint64(m.Limit+0.5)))))
	sx := lx + legendBand + 280
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">%s</text>\n", sx, y-6, esc("all other keys, by share:"))
	for i, b := range shareScale {
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"14\" fill=\"%s\"/>\n", sx+i*24, y, b.fill)
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"l\">0–100 %%</text>\n", sx, y+27)
}

// writeTimeAxis labels columns at least 70 px apart.
func (m *Map) writeTimeAxis(w *bufio.Writer) {
	cw := m.cellWidth()
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

// name is what the map is of: "Shop", or "Shop · index GSI1".
func (m *Map) name() string {
	if m.Index == "" {
		return m.Table
	}
	return m.Table + " · index " + m.Index
}
