//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// setWinsize gives the terminal f the width cols.
func setWinsize(f *os.File, cols uint16) error {
	return unix.IoctlSetWinsize(int(f.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols})
}
