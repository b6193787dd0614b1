//go:build unix

package clientwatch_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system. The
// benchmarks report it per op besides wall time, which says little on a
// busy 2-core machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
