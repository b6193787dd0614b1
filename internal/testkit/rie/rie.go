// Package rie runs a Lambda function's bootstrap under the Lambda Runtime
// Interface Emulator (RIE), AWS's own emulator of the Lambda execution
// environment and the one `sam local invoke` runs in its container
// (github.com/aws/aws-lambda-runtime-interface-emulator, pinned as a tool in
// go.mod). It needs neither Docker nor an AWS account.
//
// An Emulator is one execution environment: the RIE process, which starts
// the bootstrap at the first invocation (the cold start), hands it each event
// through the Lambda Runtime API, stops it at the timeout
// (AWS_LAMBDA_FUNCTION_TIMEOUT) and starts it again after a crash.
//
// Where the RIE differs from Lambda, and what this package does about it:
//   - It does not refuse an event over Lambda's 6 MB limit: it cuts the body
//     at about 6,291,456 bytes and passes on the rest. Invoke refuses events
//     over MaxPayloadBytes instead.
//   - Its REPORT line's "Max Memory Used" is the configured memory size, not a
//     measurement. PeakMemory reads the bootstrap's VmHWM from /proc.
//   - A timeout is answered with status 200 and the text "Task timed out
//     after N.00 seconds", a failed cold start with 502 and no body, a
//     function error or a crash with 502 and the error document. Response.Err
//     tells them apart.
//   - A bootstrap that dies between invocations fails the next invocation
//     (Runtime.ExitError); the one after starts a new bootstrap.
//   - The function's stdout and stderr are one stream, the RIE's stdout,
//     with the RIE's START, END and REPORT lines, as CloudWatch Logs shows
//     them. Output returns it.
//
// Linux only: the emulator's ports and the bootstrap's memory are read from
// /proc.
package rie

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MaxPayloadBytes is the largest event Invoke sends. Lambda's limit on a
// synchronous invocation is 6 MB, and the event source mapping keeps a
// stream batch under it; the RIE enforces no limit but cuts the body at about
// 6,291,456 bytes, so a larger test event would reach the function mangled
// (a tumbling-window batch loses its envelope, which follows Records).
const MaxPayloadBytes = 6_000_000

// InvokePath is where the RIE takes invocations, as Lambda's Invoke API.
const InvokePath = "/2015-03-31/functions/function/invocations"

// Sentinel errors.
var (
	// ErrTimedOut: the function did not answer within
	// AWS_LAMBDA_FUNCTION_TIMEOUT; the RIE killed the bootstrap.
	ErrTimedOut = errors.New("rie: the function timed out")
	// ErrInitFailed: the bootstrap exited before it asked for the event,
	// so the RIE answered 502 with no error document (a failed cold start;
	// the function's output says why).
	ErrInitFailed = errors.New("rie: the function's cold start failed")
	// ErrPayloadTooLarge: the event is over MaxPayloadBytes.
	ErrPayloadTooLarge = errors.New("rie: event over Lambda's 6 MB invocation limit")
	// ErrExited: the emulator process itself is gone.
	ErrExited = errors.New("rie: the emulator exited")
	// ErrNoBootstrap: no bootstrap is running (none yet, or it crashed).
	ErrNoBootstrap = errors.New("rie: no bootstrap running")
	// ErrUnsupported: the package runs only on Linux.
	ErrUnsupported = errors.New("rie: needs Linux's /proc")
)

// Config says what to run.
type Config struct {
	// RIE is the path of the aws-lambda-rie binary.
	RIE string
	// Bootstrap is the path of the function's executable. It runs in its
	// own directory, as /var/task is LAMBDA_TASK_ROOT in Lambda.
	Bootstrap string
	// Env is the whole environment of the emulator, KEY=VALUE, and so of
	// the function: the RIE passes its own environment on, after setting
	// AWS_LAMBDA_RUNTIME_API. The RIE itself reads
	// AWS_LAMBDA_FUNCTION_TIMEOUT (seconds, default 300),
	// AWS_LAMBDA_FUNCTION_MEMORY_SIZE (only printed) and
	// AWS_LAMBDA_FUNCTION_NAME. Nothing of the caller's environment is
	// added.
	Env []string
}

// Emulator is one running RIE and the bootstrap it runs. Its methods are
// safe for concurrent use; invocations are handed over one at a time, as
// Lambda does to one execution environment.
type Emulator struct {
	cmd     *exec.Cmd
	dir     string // holds the output files; removed by Close
	addr    string // host:port of the invoke API
	exited  chan struct{}
	waitErr error // cmd.Wait's, once exited is closed

	invoking  sync.Mutex
	closeOnce sync.Once

	mu         sync.Mutex
	stdout     *os.File          // the function's output and the RIE's platform lines
	stderr     *os.File          // the RIE's own log
	bootstraps map[int]procStart // every bootstrap seen, killed by Close if alive
}

// Start starts the RIE. It returns once the emulator listens; the bootstrap
// starts at the first Invoke. ctx bounds the wait. Close the Emulator when
// done, also when a test fails.
func Start(ctx context.Context, cfg Config) (*Emulator, error) {
	if cfg.RIE == "" || cfg.Bootstrap == "" {
		return nil, errors.New("rie: Config needs RIE and Bootstrap")
	}
	for _, kv := range cfg.Env {
		if strings.HasPrefix(kv, "AWS_LAMBDA_MAX_CONCURRENCY=") {
			// With it the RIE emulates Lambda Managed Instances instead.
			return nil, errors.New("rie: AWS_LAMBDA_MAX_CONCURRENCY is set: the RIE would emulate Lambda Managed Instances, which this package does not drive")
		}
	}
	bootstrap, err := filepath.Abs(cfg.Bootstrap)
	if err != nil {
		return nil, fmt.Errorf("rie: %w", err)
	}
	if _, err := os.Stat(bootstrap); err != nil {
		return nil, fmt.Errorf("rie: the bootstrap: %w", err)
	}
	// The RIE binds the two addresses it is given (port 0 would not do: it
	// tells the bootstrap the address it was given, not the port it got).
	// A free port can be taken by someone else between our choice and the
	// RIE's bind; then the RIE exits, and the next attempt has new ports.
	const attempts = 5
	for i := 1; ; i++ {
		ports, err := freePorts(2)
		if err != nil {
			return nil, err
		}
		e, err := start(ctx, cfg, bootstrap, ports)
		if err == nil || !errors.Is(err, errPortTaken) || i == attempts {
			return e, err
		}
	}
}

var errPortTaken = errors.New("rie: a chosen port was taken before the RIE could bind it")

// start starts the RIE with its invoke API on ports[0] and its Runtime API
// on ports[1].
func start(ctx context.Context, cfg Config, bootstrap string, ports []int) (*Emulator, error) {
	dir, err := os.MkdirTemp("", "rie-")
	if err != nil {
		return nil, fmt.Errorf("rie: %w", err)
	}
	e := &Emulator{dir: dir, exited: make(chan struct{}), bootstraps: map[int]procStart{},
		addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))}
	if e.stdout, err = os.Create(filepath.Join(dir, "stdout")); err == nil {
		e.stderr, err = os.Create(filepath.Join(dir, "stderr"))
	}
	if err != nil {
		e.removeFiles()
		return nil, fmt.Errorf("rie: %w", err)
	}
	e.cmd = exec.Command(cfg.RIE,
		"--runtime-interface-emulator-address", e.addr,
		"--runtime-api-address", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1])),
		bootstrap)
	e.cmd.Dir = filepath.Dir(bootstrap)
	e.cmd.Env = append([]string{}, cfg.Env...)
	e.cmd.Stdout, e.cmd.Stderr = e.stdout, e.stderr
	e.cmd.SysProcAttr = sysProcAttr()
	if err := e.cmd.Start(); err != nil {
		e.removeFiles()
		return nil, fmt.Errorf("rie: starting %s: %w", cfg.RIE, err)
	}
	go func() {
		e.waitErr = e.cmd.Wait()
		close(e.exited)
	}()
	if err := e.awaitListening(ctx, ports); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("rie: choosing a port: %w", err)
		}
		defer l.Close() // held until all are chosen, so they differ
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// awaitListening waits until the RIE listens on both ports. The RIE says
// nothing when it does, so /proc is asked every few milliseconds whether
// this very process holds a listening socket on each port: a reply on the
// port could come from whoever took it first.
func (e *Emulator) awaitListening(ctx context.Context, ports []int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := listensOn(e.cmd.Process.Pid, ports)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-e.exited:
			log := e.Log()
			if strings.Contains(log, "address already in use") {
				return fmt.Errorf("%w: %s", errPortTaken, lastLines(log, 3))
			}
			return fmt.Errorf("%w before it listened (%v); its log:\n%s", ErrExited, e.waitErr, lastLines(log, 20))
		case <-ctx.Done():
			return fmt.Errorf("rie: the emulator is not listening on 127.0.0.1:%d and :%d: %w; its log:\n%s", ports[0], ports[1], ctx.Err(), lastLines(e.Log(), 20))
		case <-tick.C:
		}
	}
}

// Invoke hands the event to the function and waits for the RIE's answer.
// err is set when no answer came: ctx ended, the emulator exited, or the
// event is over MaxPayloadBytes. How the function fared is in the Response
// (see Response.Err).
func (e *Emulator) Invoke(ctx context.Context, event []byte) (Response, error) {
	if len(event) > MaxPayloadBytes {
		return Response{}, fmt.Errorf("%w: %d bytes, more than %d", ErrPayloadTooLarge, len(event), MaxPayloadBytes)
	}
	e.invoking.Lock()
	defer e.invoking.Unlock()
	select {
	case <-e.exited:
		return Response{}, fmt.Errorf("%w (%v)", ErrExited, e.waitErr)
	default:
	}
	id := newRequestID()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+e.addr+InvokePath, bytes.NewReader(event))
	if err != nil {
		return Response{}, fmt.Errorf("rie: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Amzn-RequestId", id)
	// The RIE answers on the connection it was asked on; a fresh one per
	// invocation keeps a dead emulator from being mistaken for a slow one.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	e.noteBootstrap()
	if err != nil {
		select {
		case <-e.exited:
			return Response{}, fmt.Errorf("%w (%v) during the invocation: %w", ErrExited, e.waitErr, err)
		default:
		}
		return Response{}, fmt.Errorf("rie: invoke: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("rie: reading the answer: %w", err)
	}
	return Response{RequestID: id, Status: resp.StatusCode, Body: body}, nil
}

// newRequestID makes an id shaped like Lambda's (a version 4 UUID).
func newRequestID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// noteBootstrap remembers the running bootstrap, with its start time, so
// that Close can tell it from a later process given the same pid.
func (e *Emulator) noteBootstrap() {
	pid, err := e.BootstrapPID()
	if err != nil {
		return
	}
	if st, err := startTime(pid); err == nil {
		e.mu.Lock()
		e.bootstraps[pid] = st
		e.mu.Unlock()
	}
}

// BootstrapPID returns the process id of the running bootstrap.
func (e *Emulator) BootstrapPID() (int, error) {
	kids, err := children(e.cmd.Process.Pid)
	if err != nil {
		return 0, err
	}
	if len(kids) != 1 {
		return 0, fmt.Errorf("%w: the emulator has %d child processes", ErrNoBootstrap, len(kids))
	}
	return kids[0], nil
}

// PeakMemory returns the running bootstrap's peak resident set size
// (VmHWM), in bytes: what Lambda's REPORT line reports as Max Memory Used,
// and the RIE's does not.
func (e *Emulator) PeakMemory() (int64, error) {
	pid, err := e.BootstrapPID()
	if err != nil {
		return 0, err
	}
	return peakRSS(pid)
}

// Output returns everything the function wrote so far, stdout and stderr as
// one stream, between the RIE's START, END and REPORT lines. Once an
// invocation has been answered, all the function wrote during it is there.
func (e *Emulator) Output() string { return e.read(func() *os.File { return e.stdout }) }

// Log returns the RIE's own log (its stderr).
func (e *Emulator) Log() string { return e.read(func() *os.File { return e.stderr }) }

func (e *Emulator) read(which func() *os.File) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := which()
	if f == nil {
		return ""
	}
	b, _ := os.ReadFile(f.Name())
	return string(b)
}

// Close stops the emulator and the bootstrap and removes the output files:
// Output and Log are empty afterwards. It returns once both processes are
// gone, and may be called more than once.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		e.noteBootstrap()
		// SIGTERM: the RIE kills the bootstrap with SIGKILL, then exits.
		e.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.exited:
		case <-time.After(5 * time.Second):
			e.cmd.Process.Kill()
			<-e.exited
		}
		e.mu.Lock()
		for pid, st := range e.bootstraps {
			// Gone already, unless the RIE failed to stop it. An orphan is
			// killed by its pid, and only if that pid is still the process
			// it was (same start time).
			if alive(pid, st) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		e.mu.Unlock()
		e.removeFiles()
	})
	return nil
}

func (e *Emulator) removeFiles() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range []*os.File{e.stdout, e.stderr} {
		if f != nil {
			f.Close()
		}
	}
	os.RemoveAll(e.dir)
	e.stdout, e.stderr = nil, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
