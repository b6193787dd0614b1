package docstest

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// link is one link destination written in a Markdown file.
type link struct {
	line int    // 1-based line of the link's opening bracket
	dest string // as written, without angle brackets
}

// page is what the link check needs of one Markdown file.
type page struct {
	links   []link
	anchors map[string]bool // the ids GitHub gives its headings and HTML anchors
}

var (
	// inlineLink matches [text](dest) and ![alt](dest), with an optional
	// title; text may hold one level of brackets and run over lines.
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>\n]*>|[^()\s]+)(?:\s+"[^"\n]*")?\s*\)`)
	// refDefinition matches a reference-style link's definition: [id]: dest.
	refDefinition = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`)
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	fenceOpen     = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	htmlAnchor    = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	headingLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag       = regexp.MustCompile(`<[^>]+>`)
)

// parse reads a Markdown file's links and anchors. Fenced code blocks and
// code spans are blanked first, so that code that looks like a link or a
// heading is neither.
func parse(src string) page {
	text, headings := blankFences(src)
	text = blankCodeSpans(text)
	p := page{anchors: make(map[string]bool)}
	seen := make(map[string]int)
	for _, h := range headings {
		id := slug(h)
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id = fmt.Sprintf("%s-%d", id, n)
		} else {
			seen[id] = 1
		}
		p.anchors[id] = true
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
		p.anchors[m[1]] = true
	}
	for _, re := range []*regexp.Regexp{inlineLink, refDefinition} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			dest := strings.TrimSuffix(strings.TrimPrefix(text[m[2]:m[3]], "<"), ">")
			p.links = append(p.links, link{line: 1 + strings.Count(text[:m[0]], "\n"), dest: dest})
		}
	}
	return p
}

// blankFences returns src with every fenced code block's lines emptied (line
// numbers kept), and the text of its headings, ATX and setext, in order.
func blankFences(src string) (string, []string) {
	lines := strings.Split(src, "\n")
	var headings []string
	fence := "" // the open fence's marker, or "" outside a fence
	for i, l := range lines {
		switch {
		case fence != "":
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) && strings.Trim(strings.TrimSpace(l), fence[:1]) == "" {
				fence = ""
			}
			lines[i] = ""
		case fenceOpen.MatchString(l):
			fence = fenceOpen.FindStringSubmatch(l)[1]
			lines[i] = ""
		case atxHeading.MatchString(l):
			headings = append(headings, atxHeading.FindStringSubmatch(l)[2])
		case setextLine.MatchString(l) && i > 0 && isParagraphLine(lines[i-1]):
			headings = append(headings, strings.TrimSpace(lines[i-1]))
		}
	}
	return strings.Join(lines, "\n"), headings
}

// isParagraphLine says whether a setext underline below l makes l a heading:
// l is plain text, not blank, a heading, a list item, a quote or a table row.
func isParagraphLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || strings.HasPrefix(l, "    ") {
		return false
	}
	switch t[0] {
	case '#', '-', '*', '+', '>', '|':
		return false
	}
	return true
}

// blankCodeSpans replaces every code span (a run of n backticks up to the
// next run of exactly n, within one paragraph) by spaces, keeping newlines.
func blankCodeSpans(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := runLength(b, i)
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

// closingRun finds the next run of exactly n backticks at or after from,
// stopping at a blank line; -1 if there is none.
func closingRun(b []byte, from, n int) int {
	for j := from; j < len(b); {
		switch {
		case b[j] == '\n' && j+1 < len(b) && b[j+1] == '\n':
			return -1
		case b[j] == '`':
			m := runLength(b, j)
			if m == n {
				return j
			}
			j += m
		default:
			j++
		}
	}
	return -1
}

func runLength(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// slug is the id GitHub gives a heading: its rendered text, lowercased,
// keeping letters, marks, decimal and letter numbers, connector punctuation,
// '-' and spaces, each space then turned into '-'.
func slug(heading string) string {
	parts := strings.Split(heading, "`")
	for i := 0; i < len(parts); i += 2 { // even parts are outside code spans
		parts[i] = htmlTag.ReplaceAllString(headingLink.ReplaceAllString(parts[i], "$1"), "")
	}
	text := strings.ToLower(strings.TrimSpace(strings.Join(parts, "")))
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r),
			unicode.Is(unicode.Nd, r), unicode.Is(unicode.Nl, r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
