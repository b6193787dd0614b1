// Package docstest keeps README.md a front door, the documentation's
// links whole, and what the docs say of the code's shape true. Its tests,
// run by `go test ./internal/...`, fail when README.md grows past 300
// lines, when README.md or a file in docs/ links to a file or a heading
// anchor that does not exist, when README's map of docs/ leaves a file
// out, when README's Layout leaves out a package or names a folder that is
// not there, and when docs/layout.md's import graph is not `go list`'s.
// Two more hold the rule README's Layout states: outside internal/testkit/,
// only tests import it, so no binary links any of it; one that the binaries
// (main packages) live under lambda/ and cmd/ only; and one that
// configuration is read only in the mains: only lambda/... and cmd/...
// import internal/envconfig. The last two hold the house style: every
// package has a doc comment, and no function outside tests is longer than
// 60 lines unless a line of its doc comment starts "Long because" and
// says why.
//
// Anchors follow GitHub's rule for heading ids (github-slugger): the
// heading's text, lowercased, with every character that is not a letter, a
// mark, a decimal or letter number, a connector such as '_', a '-' or a
// space dropped, and each space turned into '-'; a repeated id gets -1, -2, …
//
// The package holds tests only: it is test support, so it lives under
// internal/testkit/ and nothing imports it.
package docstest
