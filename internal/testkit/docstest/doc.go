// Package docstest keeps README.md a front door and the documentation's
// links whole. Its tests, run by `go test ./internal/...`, fail when
// README.md grows past 300 lines, when README.md or a file in docs/ links
// to a file or a heading anchor that does not exist, when README's map
// of docs/ leaves a file out, and when README's Layout leaves out a package
// or names a folder that is not there. Two more hold the rule README's Layout
// states: outside internal/testkit/, only tests import it, so no binary
// links any of it; one that the binaries (main packages) live under lambda/
// and cmd/ only; and one that configuration is read only in the mains:
// only lambda/... and cmd/... import internal/envconfig.
//
// Anchors follow GitHub's rule for heading ids (github-slugger): the
// heading's text, lowercased, with every character that is not a letter, a
// mark, a decimal or letter number, a connector such as '_', a '-' or a
// space dropped, and each space turned into '-'; a repeated id gets -1, -2, …
//
// The package holds tests only: it is test support, so it lives under
// internal/testkit/ and nothing imports it.
package docstest
