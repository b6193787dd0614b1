//go:build !unix

package main

import (
	"errors"
	"os"
)

func setWinsize(*os.File, uint16) error { return errors.New("no terminal sizes here") }
