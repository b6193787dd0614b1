//go:build unix

package clientwatch_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime is the CPU time this process has used, all its threads. The
// benchmarks report it per op besides wall time, which says little on a
// busy 2-core machine. It reads CLOCK_PROCESS_CPUTIME_ID, which the kernel
// keeps to the nanosecond from the scheduler's own accounting:
// getrusage's figures, which this used to read, advance by whole clock
// ticks (4 ms at HZ=250) on many kernels, coarser than a block of calls.
func cpuTime() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
