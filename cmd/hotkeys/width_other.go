//go:build !unix

package main

import "io"

// terminalWidth returns 0: the width of a terminal is known only on unix
// systems, and table output elsewhere is drawn to defaultWidth or --width.
func terminalWidth(io.Writer) int { return 0 }
