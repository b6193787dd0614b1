package docstest

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProductionCodeNeverImportsTestkit holds README's Layout rule: test
// fakes and support live under internal/testkit/, and only tests (and
// testkit itself) import them.
func TestProductionCodeNeverImportsTestkit(t *testing.T) {
	root := repoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	testkit := modulePath(t, gomod) + "/internal/testkit"
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		switch {
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || rel == "internal/testkit"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == testkit || strings.HasPrefix(path, testkit+"/") {
				t.Errorf("%s imports %s: production code must not import test support", rel, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// modulePath reads the module directive of go.mod.
func modulePath(t *testing.T, gomod []byte) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatal("go.mod has no module directive")
	return ""
}
