// Package golden compares a test's whole output with a file in testdata,
// and reads the JSON-lines files that feed such tests.
//
// The golden files pin what other builds must read (encodings) and what
// users see (the CLI's text and JSON, logs, EMF): a test that passes shows
// the output is byte for byte what it was. `go test -update` rewrites them
// from what the tests produce; run it only with the build whose output is
// the reference, and say why in the commit: a changed golden file is a
// change of behaviour.
package golden

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata from what the tests produce (only ever with the build whose output is the reference)")

// write writes got to path when -update is given.
func write(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Equal fails t unless got is exactly the contents of the text file at
// path. It names the first line that differs, with both versions of it.
func Equal(t testing.TB, path string, got []byte) {
	t.Helper()
	write(t, path, got)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if i >= len(g) || i >= len(w) || !bytes.Equal(gl, wl) {
			t.Errorf("%s: output (%d bytes) differs from the golden file (%d bytes) at line %d:\n got: %q\nwant: %q",
				path, len(got), len(want), i+1, gl, wl)
			return
		}
	}
}

// Check fails t unless got is the content of the binary file at path, and
// returns that content, so that a test can go on to decode what an
// earlier build wrote.
func Check(t testing.TB, path string, got []byte) (want []byte) {
	t.Helper()
	write(t, path, got)
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

// Lines decodes the file at path, one JSON value of type T per line.
func Lines[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	var out []T
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s, line %d: %v", path, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// RawLines returns the lines of the file at path, without their newlines.
func RawLines(t testing.TB, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}
