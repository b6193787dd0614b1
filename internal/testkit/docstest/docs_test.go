package docstest

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// maxREADMELines is the front door's size (issue 23): what does not fit
// moves to docs/, one topic per file, linked from README's map.
const maxREADMELines = 300

// repoRoot is the directory holding go.mod, above this package's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// markdownFiles lists README.md and docs/*.md, slash-separated, relative to root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	return files
}

func TestREADMEIsAFrontDoor(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a file of docs/ and link it from README's map of docs/",
			n, maxREADMELines)
	}
}

func TestLinksLeadSomewhere(t *testing.T) {
	root := repoRoot(t)
	c := newChecker(root)
	for _, f := range markdownFiles(t, root) {
		problems, err := c.check(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("broken link %v", p)
		}
	}
}

// TestREADMEMapsEveryDoc: a file of docs/ that README does not link is a file
// nobody finds.
func TestREADMEMapsEveryDoc(t *testing.T) {
	root := repoRoot(t)
	readme, err := newChecker(root).page("README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := make(map[string]bool)
	for _, l := range readme.links {
		target, _, _ := strings.Cut(l.dest, "#")
		linked[path.Clean(target)] = true
	}
	for _, f := range markdownFiles(t, root)[1:] {
		if !linked[f] {
			t.Errorf("README.md does not link %s: add it to README's map of docs/", f)
		}
	}
}
