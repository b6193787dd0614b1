//go:build !linux

package rie

import "syscall"

// The RIE and this package's view of its processes need Linux; elsewhere
// the package builds, and Start fails with ErrUnsupported.

type procStart uint64

func sysProcAttr() *syscall.SysProcAttr { return nil }

func startTime(int) (procStart, error) { return 0, ErrUnsupported }

func alive(int, procStart) bool { return false }

func children(int) ([]int, error) { return nil, ErrUnsupported }

func peakRSS(int) (int64, error) { return 0, ErrUnsupported }

func listensOn(int, []int) (bool, error) { return false, ErrUnsupported }
