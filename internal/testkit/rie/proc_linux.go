package rie

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr makes the kernel kill the emulator if the process that
// started it dies (a test binary killed at its timeout, say); the
// bootstrap then loses its Runtime API and exits by itself.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// procStart is a process's start time in clock ticks since boot: with the
// pid, it names one process, even after the pid is reused.
type procStart uint64

// stat returns the fields of /proc/pid/stat after the command name, which
// may itself hold spaces and parentheses: fields[0] is the state, [1] the
// parent's pid, [19] the start time.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("rie: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return nil, fmt.Errorf("rie: /proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}

// alive reports whether the process pid that started at st still runs:
// not gone, not a zombie, and not another process given the same pid.
func alive(pid int, st procStart) bool {
	f, err := stat(pid)
	if err != nil || f[0] == "Z" || f[0] == "X" {
		return false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return err == nil && procStart(n) == st
}

func startTime(pid int) (procStart, error) {
	f, err := stat(pid)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return procStart(n), err
}

// children returns the pids of the live (not zombie) children of pid.
func children(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	parent := strconv.Itoa(pid)
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := stat(child)
		if err != nil || f[1] != parent || f[0] == "Z" || f[0] == "X" {
			continue // gone since ReadDir, someone else's, or dead
		}
		out = append(out, child)
	}
	return out, nil
}

// peakRSS reads VmHWM, the peak resident set size, in bytes.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("rie: /proc/%d/status: VmHWM %q: %w", pid, v, err)
			}
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("rie: /proc/%d/status has no VmHWM", pid)
}

// listensOn reports whether process pid holds a listening TCP socket on
// 127.0.0.1 at each of ports: /proc/pid/net/tcp lists the sockets of the
// process's network namespace, /proc/pid/fd says which are its own.
func listensOn(pid int, ports []int) (bool, error) {
	own := map[string]bool{}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return false, nil // not started yet, or gone: the caller sees which
	}
	for _, fd := range fds {
		link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			own[strings.TrimSuffix(inode, "]")] = true
		}
	}
	table, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/net/tcp")
	if err != nil {
		if _, serr := os.Stat("/proc/self/net/tcp"); serr != nil {
			return false, fmt.Errorf("%w: %w", ErrUnsupported, serr)
		}
		return false, nil // the process is gone: the caller sees it exit
	}
	want := map[string]bool{}
	for _, p := range ports {
		// Local address as the kernel prints it: 127.0.0.1 in host byte
		// order, then the port, in hex.
		want[fmt.Sprintf("0100007F:%04X", p)] = true
	}
	found := 0
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(f) < 10 || f[3] != "0A" || !want[f[1]] || !own[f[9]] {
			continue
		}
		found++
		delete(want, f[1])
	}
	return found == len(ports), nil
}
