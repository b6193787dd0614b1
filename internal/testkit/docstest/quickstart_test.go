package docstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeBlock returns the lines of the code block that follows marker in
// README.md.
func readmeBlock(t *testing.T, root, marker string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), marker+"\n```\n")
	if !ok {
		t.Fatalf("README.md has no code block after %q", marker)
	}
	block, _, _ := strings.Cut(after, "```\n")
	return strings.Split(strings.TrimSuffix(block, "\n"), "\n")
}

// TestQuickStartFromAFreshClone does what README tells a newcomer without
// an AWS account, command for command, in three commands: a fresh clone
// (of this checkout's commit: the test does not reach GitHub, and CI's
// checkout is a fresh clone itself), the install, and the replay of the
// captured get-records output, which must flag OPS_LOG. README's install
// line names go.mod's module.
func TestQuickStartFromAFreshClone(t *testing.T) {
	root := repoRoot(t)
	mod := modulePath(t, root)
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if !bytes.Contains(readme, []byte("go install "+mod+"/cmd/hotkeys@latest")) {
		t.Errorf("README.md does not install %s/cmd/hotkeys@latest", mod)
	}
	cmds := readmeBlock(t, root, "<!-- a fresh clone's replay: TestQuickStartFromAFreshClone runs these -->")
	if len(cmds) != 3 {
		t.Fatalf("README's replay from a fresh clone is %d commands, want 3: %q", len(cmds), cmds)
	}
	if want := "git clone https://" + mod + " && cd hotkeys"; cmds[0] != want {
		t.Fatalf("README's first command is %q, want %q", cmds[0], want)
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").CombinedOutput(); err != nil {
		t.Fatalf("the checkout is not a git clone, so a fresh one cannot be made of it: %v\n%s", err, out)
	}
	dir := t.TempDir()
	clone := filepath.Join(dir, "hotkeys")
	if out, err := exec.Command("git", "clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", root, err, out)
	}
	bin := filepath.Join(dir, "bin")
	// -trimpath leaves the clone's directory out of the build's cache keys:
	// the commands as written, built from the cache from the second run on.
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -trimpath"))
	var last []byte
	for _, c := range cmds[1:] {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir, cmd.Env = clone, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		last = out
	}
	for _, want := range []string{"HOT KEYS", "OPS_LOG", "single_key", "read as DynamoDB Streams GetRecords output", "times in ISO 8601"} {
		if !bytes.Contains(last, []byte(want)) {
			t.Errorf("%s does not say %q:\n%s", cmds[2], want, last)
		}
	}
}

var (
	goTestCmd = regexp.MustCompile("`([^`]*go test [^`]*)`")
	pattern   = regexp.MustCompile(`-(?:test\.)?(run|bench) '([^']*)'`)
	pkgArg    = regexp.MustCompile(`\s(\./[\w/]+)`)
)

// TestREADMEGoTestCommandsRun: every `go test` command README shows can
// run as written: no placeholder (<case>), its packages exist, and each
// test or benchmark its -run or -bench names (each alternative, to its
// first '/') is one of theirs.
func TestREADMEGoTestCommandsRun(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{} // package -> its tests, benchmarks, examples and fuzz targets
	list := func(pkg string) []string {
		if n, ok := names[pkg]; ok {
			return n
		}
		cmd := exec.Command("go", "test", "-list", ".", pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go test -list . %s: %v", pkg, err)
		}
		names[pkg] = strings.Fields(string(out))
		return names[pkg]
	}
	n := 0
	for _, m := range goTestCmd.FindAllStringSubmatch(string(readme), -1) {
		c := m[1]
		n++
		if strings.ContainsAny(c, "<>") {
			t.Errorf("README shows a command with a placeholder: %s", c)
			continue
		}
		var pkgs []string
		for _, p := range pkgArg.FindAllStringSubmatch(c, -1) {
			pkgs = append(pkgs, p[1])
		}
		if len(pkgs) == 0 {
			if pattern.MatchString(c) {
				t.Errorf("README's command names no package: %s", c)
			}
			continue // a flag named in prose: go test -update
		}
		for _, p := range pattern.FindAllStringSubmatch(c, -1) {
			if p[2] == "^$" {
				continue
			}
			for alt := range strings.SplitSeq(p[2], "|") {
				top, _, _ := strings.Cut(alt, "/")
				re, err := regexp.Compile(top)
				if err != nil {
					t.Errorf("%s: %q is not a regexp: %v", c, top, err)
					continue
				}
				found := false
				for _, pkg := range pkgs {
					found = found || slices.ContainsFunc(list(pkg), func(name string) bool {
						return re.MatchString(name) && (p[1] == "run") != strings.HasPrefix(name, "Benchmark")
					})
				}
				if !found {
					t.Errorf("%s: -%s %q matches nothing in %v", c, p[1], alt, pkgs)
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("README shows %d go test commands: the figures lost their commands", n)
	}
}
