package docstest

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestProductionCodeNeverImportsTestkit holds README's Layout rule: test
// fakes and support live under internal/testkit/, and the only Go files
// that may import a package under it are
//
//   - tests (files named *_test.go), anywhere, and
//   - the files of internal/testkit/ itself: the fakes, the harnesses and
//     the developer tool behind `make invoke` (internal/testkit/invoke).
//
// Every other Go file may not, whatever its build tags: every package the
// functions (lambda, lambda/rollup) and the CLI (cmd/hotkeys) link is
// among them, so none can ever carry test support
// (TestBinariesLinkNoTestkit checks that outcome directly).
func TestProductionCodeNeverImportsTestkit(t *testing.T) {
	root := repoRoot(t)
	testkit := modulePath(t, root) + "/internal/testkit"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
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

// goList runs `go list args...` in root and returns the packages it names.
func goList(t *testing.T, root string, args ...string) []string {
	t.Helper()
	return strings.Fields(goListOutput(t, root, args...))
}

// goListLines runs `go list args...` in root and returns its lines.
func goListLines(t *testing.T, root string, args ...string) []string {
	t.Helper()
	return strings.Split(strings.TrimSpace(goListOutput(t, root, args...)), "\n")
}

func goListOutput(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// modulePath reads the module directive of root's go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatal("go.mod has no module directive")
	return ""
}

// binaries returns the directories of the main packages that ship: every
// one outside internal/testkit/ (whose mains are tools for developers).
func binaries(t *testing.T, root string) []string {
	t.Helper()
	module := modulePath(t, root)
	var dirs []string
	for _, line := range goListLines(t, root, "-f", "{{.Name}} {{.ImportPath}}", "./...") {
		name, pkg, _ := strings.Cut(line, " ")
		dir := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if name == "main" && !strings.HasPrefix(dir, "internal/testkit/") {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// TestBinariesLiveInLambdaAndCmd: the project's design puts the Lambda
// functions under lambda/ and the CLI under cmd/; no other folder holds a
// main package, test support aside.
func TestBinariesLiveInLambdaAndCmd(t *testing.T) {
	dirs := binaries(t, repoRoot(t))
	for _, dir := range dirs {
		if dir != "lambda" && !strings.HasPrefix(dir, "lambda/") && !strings.HasPrefix(dir, "cmd/") {
			t.Errorf("%s is a main package outside lambda/ and cmd/", dir)
		}
	}
	for _, want := range []string{"lambda", "lambda/rollup", "cmd/hotkeys"} {
		if !slices.Contains(dirs, want) {
			t.Errorf("no binary in %s: the template and the Makefile build one there (binaries: %v)", want, dirs)
		}
	}
}

// TestBinariesLinkNoTestkit: what the rule above is for. The functions
// and the CLI, built as `make build` builds them, link no package under
// internal/testkit/.
func TestBinariesLinkNoTestkit(t *testing.T) {
	root := repoRoot(t)
	testkit := modulePath(t, root) + "/internal/testkit"
	var pkgs []string
	for _, dir := range binaries(t, root) {
		pkgs = append(pkgs, "./"+dir)
	}
	for _, tags := range []string{"", "lambda.norpc"} {
		for _, pkg := range goList(t, root, append([]string{"-deps", "-tags", tags}, pkgs...)...) {
			if pkg == testkit || strings.HasPrefix(pkg, testkit+"/") {
				t.Errorf("with tags %q, one of %v links %s", tags, pkgs, pkg)
			}
		}
	}
}

// TestLayoutListsEveryPackage: README's Layout has a line for every
// package `go list ./...` finds, and every folder it names exists. A line
// in the first column names a folder; one indented by two spaces, a folder
// inside the last one in the first column; more indented lines go on with
// the line above.
func TestLayoutListsEveryPackage(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := layoutFolders(t, string(src))
	module := modulePath(t, root)
	for _, pkg := range goList(t, root, "./...") {
		if dir := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"); !listed[dir] {
			t.Errorf("README's Layout has no line for the package %s", dir)
		}
	}
	for dir := range listed {
		if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err != nil || !info.IsDir() {
			t.Errorf("README's Layout names %s/, which is not a folder", dir)
		}
	}
}

// layoutFolders reads the folders of the code block under README's
// "## Layout" heading.
func layoutFolders(t *testing.T, readme string) map[string]bool {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		t.Fatal("README has no ## Layout")
	}
	_, block, ok := strings.Cut(section, "```\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("README's Layout has no code block")
	}
	folders := map[string]bool{}
	parent := ""
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		name := strings.TrimSuffix(fields[0], "/")
		switch indent {
		case 0:
			parent = name
			folders[name] = true
		case 2:
			folders[parent+"/"+name] = true
		}
	}
	return folders
}

// TestOnlyTheMainsReadTheEnvironment holds README's rule that
// configuration is read only in the mains: internal/envconfig, the
// binaries' shared reader of their environment (its errors name the
// variables), is imported only by packages under lambda/ and cmd/, their
// tests included. No library, and no test of one, takes it.
func TestOnlyTheMainsReadTheEnvironment(t *testing.T) {
	root := repoRoot(t)
	module := modulePath(t, root)
	envconfig := module + "/internal/envconfig"
	importers := 0
	for _, line := range goListLines(t, root, "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !slices.Contains(fields[1:], envconfig) {
			continue
		}
		importers++
		dir := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if dir != "lambda" && !strings.HasPrefix(dir, "lambda/") && !strings.HasPrefix(dir, "cmd/") {
			t.Errorf("%s imports internal/envconfig: only the mains (lambda/..., cmd/...) read the environment", dir)
		}
	}
	if importers == 0 {
		t.Error("nothing imports internal/envconfig: the test would prove nothing")
	}
}
