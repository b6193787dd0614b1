package heatmap

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// rowLabel is what the row's label on the left says.
func (m *Map) rowLabel(r Row) string {
	switch r.Kind {
	case othersRow:
		if m.HiddenKeys > 0 {
			return fmt.Sprintf("all other keys (%d listed, and the rest)", m.HiddenKeys)
		}
		return "all other keys"
	case shardRow:
		return "shard " + truncateLeft(printable(r.Name), labelChars-6)
	}
	return truncate(printable(r.Name), labelChars)
}

// rowTitle is the label's tooltip: the whole key, and the row's figures.
func (m *Map) rowTitle(r Row) string {
	var b strings.Builder
	switch r.Kind {
	case KeyRow:
		fmt.Fprintf(&b, "key (%s): %s\n", r.Type, printable(r.Name))
	case othersRow:
		b.WriteString("all other keys: every key not shown above\n")
	case shardRow:
		fmt.Fprintf(&b, "stream shard %s\n", printable(r.Name))
	}
	fmt.Fprintf(&b, "WCU over the run: %s", bounds(r.WCULower, r.WCUUpper))
	if r.Flagged > 0 {
		fmt.Fprintf(&b, "\nflagged in %d column%s", r.Flagged, plural(r.Flagged))
	}
	return b.String()
}

// backgroundTitle is the tooltip of a row's cells that have no figure.
func (m *Map) backgroundTitle(r Row) string {
	if r.Kind == KeyRow {
		return truncate(printable(r.Name), titleChars) + "\nnot among this window's top or hot keys: it wrote at most the window's other_keys_wcu_upper"
	}
	if r.Kind == shardRow {
		return "shard " + printable(r.Name) + "\nno records in this window"
	}
	return "no records in this window"
}

// cellTitle is the tooltip of the row's cell in column j: its span, its
// figures with their bounds, and for a key its verdict.
func (m *Map) cellTitle(r Row, j int) string {
	c, col := r.Cells[j], m.Columns[j]
	var b strings.Builder
	switch r.Kind {
	case KeyRow:
		b.WriteString(truncate(printable(r.Name), titleChars))
	case othersRow:
		b.WriteString("all other keys")
	case shardRow:
		b.WriteString("stream shard " + printable(r.Name))
	}
	fmt.Fprintf(&b, "\n%s – %s UTC", col.Start.Format(m.timeLayout()), col.End.Format(m.timeLayout()))
	if m.Bucket > 1 {
		fmt.Fprintf(&b, " (%d windows)", col.Windows)
	}
	fmt.Fprintf(&b, "\nWCU %s", bounds(c.WCULower, c.WCUUpper))
	if r.Kind == othersRow {
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
