package docstest

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// problem is one link that leads nowhere.
type problem struct {
	file string // slash-separated, relative to the root
	line int
	dest string
	why  string
}

func (p problem) String() string {
	return fmt.Sprintf("%s:%d: (%s): %s", p.file, p.line, p.dest, p.why)
}

var (
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	lineAnchor = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)
)

// checker resolves the relative links of Markdown files under root, reading
// each file once.
type checker struct {
	root  string
	pages map[string]page // by slash-separated path relative to root
}

func newChecker(root string) *checker {
	return &checker{root: root, pages: make(map[string]page)}
}

// page parses the Markdown file at rel (relative to the root).
func (c *checker) page(rel string) (page, error) {
	if p, ok := c.pages[rel]; ok {
		return p, nil
	}
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return page{}, err
	}
	p := parse(string(src))
	c.pages[rel] = p
	return p, nil
}

// check returns every link of the file rel whose file or anchor is missing.
// Links with a scheme (https:, mailto:) are not followed.
func (c *checker) check(rel string) ([]problem, error) {
	p, err := c.page(rel)
	if err != nil {
		return nil, err
	}
	var problems []problem
	for _, l := range p.links {
		if scheme.MatchString(l.dest) {
			continue
		}
		if why := c.resolve(rel, l.dest); why != "" {
			problems = append(problems, problem{file: rel, line: l.line, dest: l.dest, why: why})
		}
	}
	return problems, nil
}

// resolve says what is wrong with dest, written in the file from, or "".
func (c *checker) resolve(from, dest string) string {
	target, anchor, _ := strings.Cut(dest, "#")
	target, err := url.PathUnescape(target)
	if err != nil {
		return "bad escape in the path: " + err.Error()
	}
	switch {
	case strings.HasPrefix(target, "/"):
		return "absolute path: GitHub resolves it outside the repository"
	case target == "":
		target = from
	default:
		target = path.Join(path.Dir(from), target)
	}
	if target == ".." || strings.HasPrefix(target, "../") {
		return "points outside the repository"
	}
	info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target)))
	if err != nil {
		return "no such file: " + target
	}
	if anchor == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(target, ".md") {
		if !info.IsDir() && lineAnchor.MatchString(anchor) {
			return ""
		}
		return "anchor #" + anchor + " into " + target + ", which is not a Markdown file"
	}
	p, err := c.page(target)
	if err != nil {
		return err.Error()
	}
	if !p.anchors[anchor] {
		return "no heading with the anchor #" + anchor + " in " + target
	}
	return ""
}
