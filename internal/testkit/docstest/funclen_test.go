package docstest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxFuncLines is a screen: a function longer than that either hides two
// ideas or says why it is one (issue 29).
const maxFuncLines = 60

// longReason starts the line of a function's doc comment that says why it
// is longer than maxFuncLines.
const longReason = "Long because "

// TestLongFunctionsSayWhy: no function or method outside tests is longer
// than maxFuncLines lines, from its func keyword to its closing brace,
// unless a line of its doc comment starts with "Long because " and gives
// the one reason, for example
//
//	// Long because it is a flat switch over the operations, one case each.
func TestLongFunctionsSayWhy(t *testing.T) {
	root := repoRoot(t)
	for _, f := range longFunctions(t, root) {
		t.Errorf("%s: %s is %d lines, more than %d: split the ideas it holds, or give the one reason in a doc comment line starting %q",
			f.pos, f.name, f.lines, maxFuncLines, longReason)
	}
}

// longFunc is a function over maxFuncLines lines without a reason.
type longFunc struct {
	pos   string // file:line, slash-separated, relative to the root
	name  string // Recv.Name or Name
	lines int
}

// longFunctions walks the Go files of root, tests, testdata and hidden
// folders aside, and returns the functions over maxFuncLines lines whose
// doc comment gives no reason.
func longFunctions(t *testing.T, root string) []longFunc {
	t.Helper()
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines && !saysWhyLong(fd.Doc) {
				out = append(out, longFunc{pos: rel + ":" + strconv.Itoa(start.Line), name: funcName(fd), lines: n})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// saysWhyLong reports whether a line of doc starts with longReason.
func saysWhyLong(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, line := range strings.Split(doc.Text(), "\n") {
		if strings.HasPrefix(line, longReason) {
			return true
		}
	}
	return false
}

// funcName is fd's name as a reader looks it up: Recv.Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	switch r := recv.(type) {
	case *ast.IndexExpr: // a method of a generic type
		recv = r.X
	case *ast.IndexListExpr:
		recv = r.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestLongFunctionsRule: the rule finds a long function and a long method
// without a reason, and passes one with a reason, a short one, tests and
// testdata.
func TestLongFunctionsRule(t *testing.T) {
	root := t.TempDir()
	body := strings.Repeat("\tx++\n", maxFuncLines-2) // with the func line and the brace: maxFuncLines lines
	files := map[string]string{
		"a/a.go": "package a\n\nvar x int\n\n" +
			"// Short is at the limit.\nfunc Short() {\n" + body + "}\n\n" +
			"// Long is one line over.\nfunc Long() {\n" + body + "\tx++\n}\n\n" +
			"type T[P any] struct{}\n\n// Method is over too.\nfunc (T[P]) Method() {\n" + body + "\tx++\n}\n\n" +
			"// Excused is over, and says why.\n//\n// Long because it is one table.\nfunc Excused() {\n" + body + "\tx++\n}\n",
		"a/a_test.go":     "package a\n\nfunc long() {\n" + body + body + "}\n",
		"a/testdata/b.go": "package b\n\nfunc long() {\n" + body + body + "}\n",
		".hidden/c/c.go":  "package c\n\nfunc long() {\n" + body + body + "}\n",
	}
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := longFunctions(t, root)
	long := 8 + maxFuncLines          // Short's doc and func lines at 5 and 6, its maxFuncLines lines, a blank, Long's doc
	method := long + maxFuncLines + 5 // Long's lines, a blank, the type, a blank, Method's doc
	want := []longFunc{
		{pos: "a/a.go:" + strconv.Itoa(long), name: "Long", lines: maxFuncLines + 1},
		{pos: "a/a.go:" + strconv.Itoa(method), name: "T.Method", lines: maxFuncLines + 1},
	}
	if len(got) != len(want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("found %v, want %v", got[i], want[i])
		}
	}
}
