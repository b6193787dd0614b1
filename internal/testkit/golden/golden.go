// Package golden compares a test's whole output with a file in testdata,
// and reads the JSON-lines files that feed such tests.
//
// The golden files of the report vocabulary's move (issue 23) were written
// by the build before it, so a test that passes shows the output is byte
// for byte what it was. They are never rewritten by a flag: a change to one
// is a change of behaviour, made by hand and said in its commit.
package golden

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// Equal fails t unless got is exactly the contents of the file at path. It
// names the first line that differs, with both versions of it.
func Equal(t testing.TB, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
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
