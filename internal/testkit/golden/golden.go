// Package golden compares what a test produces with a file in testdata,
// byte for byte: encodings that other builds must read stay as they were.
// `go test -update` writes the files from what the test produced; run it
// only with the build whose output is the reference.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata from what the tests produce (only ever with the build whose output is the reference)")

// Check fails t unless got is the content of the file at path, and
// returns that content, so that a test can go on to decode what an
// earlier build wrote. With -update it first writes got to path.
func Check(t testing.TB, path string, got []byte) (want []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes differ from the golden file's %d:\n got %x\nwant %x", path, len(got), len(want), head(got), head(want))
	}
	return want
}

// head is enough of an encoding to see where it starts to differ.
func head(b []byte) []byte { return b[:min(len(b), 64)] }
