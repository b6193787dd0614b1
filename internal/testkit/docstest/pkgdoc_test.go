package docstest

import (
	"strings"
	"testing"
)

// TestEveryPackageSaysWhatItIs: every package `go list ./...` finds, test
// support included, has a doc comment, and it begins as Go's convention
// has it, "Package name ..." or, for a main package, "Command name ...",
// so that `go doc` and `go list` give its contract in one sentence.
func TestEveryPackageSaysWhatItIs(t *testing.T) {
	root := repoRoot(t)
	module := modulePath(t, root)
	for _, line := range goListLines(t, root, "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Doc}}", "./...") {
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		pkg, name, doc := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/"), fields[1], fields[2]
		switch {
		case doc == "":
			t.Errorf("%s has no package doc comment: say what it is for, then how (a doc.go holds a long one)", pkg)
		case name == "main" && !strings.HasPrefix(doc, "Command "):
			t.Errorf("%s is a command; its doc begins %q, not \"Command ...\"", pkg, doc)
		case name != "main" && !strings.HasPrefix(doc, "Package "+name+" "):
			t.Errorf("%s's doc begins %q, not \"Package %s ...\"", pkg, doc, name)
		}
	}
}
