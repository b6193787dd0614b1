package docstest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayoutGivesEveryImport: docs/layout.md's import graph is `go list`'s.
// Every package outside internal/testkit/ has one entry there, and its
// entry names exactly the project's packages it imports, tests aside.
func TestLayoutGivesEveryImport(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented, err := importGraph(string(src))
	if err != nil {
		t.Fatal(err)
	}
	actual := projectImports(t, root)
	for pkg, deps := range actual {
		doc, ok := documented[pkg]
		switch {
		case !ok:
			t.Errorf("docs/layout.md's imports have no entry for %s (it imports %s)", pkg, orNone(deps))
		case !slices.Equal(doc, deps):
			t.Errorf("docs/layout.md says %s imports %s; go list says %s", pkg, orNone(doc), orNone(deps))
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/layout.md's imports name %s, which is no package outside internal/testkit/", pkg)
		}
	}
}

func orNone(deps []string) string {
	if len(deps) == 0 {
		return "none of the project's packages"
	}
	return strings.Join(deps, ", ")
}

// projectImports maps each package outside internal/testkit/, by its
// folder, to the folders of the project's packages it imports (not its
// tests), sorted.
func projectImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	module := modulePath(t, root)
	dir := func(pkg string) (string, bool) {
		if pkg != module && !strings.HasPrefix(pkg, module+"/") {
			return "", false
		}
		d := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		return d, d != "internal/testkit" && !strings.HasPrefix(d, "internal/testkit/")
	}
	graph := map[string][]string{}
	for _, line := range goListLines(t, root, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		pkg, ok := dir(fields[0])
		if !ok {
			continue
		}
		deps := []string{}
		for _, imp := range fields[1:] {
			if d, ok := dir(imp); ok {
				deps = append(deps, d)
			}
		}
		slices.Sort(deps)
		graph[pkg] = deps
	}
	return graph
}

// importGraph reads the code block under docs/layout.md's "## Imports":
//
//	a, b, c   import none of the project's packages
//	pkg       -> dep, dep,
//	             dep            (a line without an arrow goes on with the one above)
//	pkg       -> (the SDK only)
//
// and returns each package's imports, sorted.
func importGraph(doc string) (map[string][]string, error) {
	_, section, ok := strings.Cut(doc, "\n## Imports\n")
	if !ok {
		return nil, fmt.Errorf("docs/layout.md has no ## Imports")
	}
	_, block, ok := strings.Cut(section, "```\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		return nil, fmt.Errorf("docs/layout.md's ## Imports has no code block")
	}
	graph := map[string][]string{}
	last := ""
	add := func(pkg, list string) error {
		if _, dup := graph[pkg]; dup {
			return fmt.Errorf("docs/layout.md's imports give %s twice", pkg)
		}
		graph[pkg] = []string{}
		last = pkg
		return addDeps(graph, pkg, list)
	}
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		var err error
		switch pkg, deps, arrow := strings.Cut(line, "->"); {
		case arrow:
			err = add(strings.TrimSpace(pkg), deps)
		case strings.Contains(line, "import none"):
			list, _, _ := strings.Cut(line, "import none")
			for _, p := range strings.Split(list, ",") {
				if err = add(strings.TrimSpace(p), ""); err != nil {
					break
				}
			}
		case strings.TrimSpace(line) == "":
		case line[0] == ' ' && last != "":
			err = addDeps(graph, last, line)
		default:
			err = fmt.Errorf("docs/layout.md's imports: cannot read %q", line)
		}
		if err != nil {
			return nil, err
		}
	}
	for pkg := range graph {
		slices.Sort(graph[pkg])
	}
	return graph, nil
}

// addDeps adds the comma-separated packages of list to pkg's; a
// parenthesised remark, such as "(the SDK only)", names none.
func addDeps(graph map[string][]string, pkg, list string) error {
	for _, d := range strings.Split(list, ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == "" || strings.HasPrefix(d, "("):
		case strings.ContainsAny(d, " \t"):
			return fmt.Errorf("docs/layout.md's imports: %s's %q is not a package", pkg, d)
		default:
			graph[pkg] = append(graph[pkg], d)
		}
	}
	return nil
}

// TestImportGraphReads: the graph's three kinds of line, a continued list,
// and the mistakes it refuses.
func TestImportGraphReads(t *testing.T) {
	doc := "# x\n\n## Imports\n\nText.\n\n```\n" +
		"ddb, report   import none of the project's packages\n" +
		"sketch        -> ddb, internal/frame\n" +
		"lambda        -> alert, ddb,\n" +
		"                 report\n" +
		"streams       -> (the SDK only)\n" +
		"```\n\n## Next\n\n```\nnot -> read\n```\n"
	got, err := importGraph(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"ddb": {}, "report": {}, "streams": {},
		"sketch": {"ddb", "internal/frame"},
		"lambda": {"alert", "ddb", "report"},
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for pkg, deps := range want {
		if !slices.Equal(got[pkg], deps) {
			t.Errorf("%s: got %v, want %v", pkg, got[pkg], deps)
		}
	}
	block := func(lines string) string { return "\n## Imports\n\n```\n" + lines + "```\n" }
	for _, bad := range []string{
		block("sketch -> ddb\nsketch -> ddb\n"), // twice
		block("sketch -> ddb and frame\n"),      // prose where a package goes
		block("sketch imports ddb\n"),           // no arrow
		"\n## Imports\n\nno block\n",
		"## Layout\n",
	} {
		if _, err := importGraph(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
