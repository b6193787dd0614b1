// Command hotkeys finds the hot partition keys of a DynamoDB table from its
// stream records, and explains them.
//
//	hotkeys demo                      simulated traffic with every anti-pattern; no AWS needed
//	hotkeys replay [flags] FILE...|-  analyse captured Lambda stream events
//	hotkeys watch  [flags] --table T  analyse a table's stream live
//	hotkeys hash-key [flags] KEY...   a key's redacted form, to match it in the outputs
//	hotkeys history --table H         merge the windows the Lambda stored, table-wide
//	hotkeys client-demo --endpoint U  the client-side detector on a skewed workload
//
// Exit status: 0 clean, 1 the input had errors or could not be read
// (malformed records, a file that is not JSON, data lost from the stream,
// an AWS call that failed), 2 usage or configuration, or an input that is
// not DynamoDB stream records, 3 a bug in hotkeys, 4 analysed with a
// warning (the partition key looks wrong). docs/cli.md has them in full.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
)

// Exit statuses, documented in docs/cli.md ("Exit status") and in -h.
const (
	exitOK         = 0
	exitInputError = 1
	exitUsage      = 2
	exitInternal   = 3
	exitWarning    = 4
)

const usage = `hotkeys finds the partition keys that take too much of a DynamoDB table's
write capacity (every partition is capped at 1,000 WCU/s), from its stream.

Usage:
  hotkeys demo   [flags]                 simulated traffic showing every anti-pattern (no AWS needed)
  hotkeys replay [flags] FILE... | -     analyse captured Lambda DynamoDB stream events
  hotkeys watch  [flags] --table NAME    analyse a table's stream live (Ctrl-C to stop)
  hotkeys hash-key [flags] KEY...        print each KEY as --key-redaction hash shows it
  hotkeys history [flags] --table NAME   merge the windows the Lambda stored in its history table
  hotkeys client-demo --endpoint URL     the client-side detector (reads, throttles, latency per key)
                                         on a skewed workload against DynamoDB Local

  hotkeys --version                      the version, from the build

Run 'hotkeys COMMAND -h' for a command's flags and examples. To start:
  hotkeys demo
  hotkeys replay --partition-key PK events/captured/get-records-cli-v2.json

Exit status:
  0  analysed, nothing wrong (whether or not keys were flagged)
  1  the input had errors or could not be read (malformed records, a file not
     JSON, data lost from the stream, an AWS call that failed): the rest was
     analysed
  2  usage or configuration error, or an input that is not DynamoDB stream
     records (an SQS or Kinesis event, {}, null): nothing was analysed of it
  3  an internal error: a bug in hotkeys (please report it with the stack shown)
  4  analysed, with a warning: the partition key named looks like the sort key,
     or records lack it, so the figures may be by the wrong attribute
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "demo":
		err = runDemo(ctx, args[1:], stdout, stderr)
	case "replay":
		err = runReplay(ctx, args[1:], stdin, stdout, stderr)
	case "watch":
		err = runWatch(ctx, args[1:], stdout, stderr)
	case "hash-key":
		err = runHashKey(args[1:], stdout, stderr)
	case "history":
		err = runHistory(ctx, args[1:], stdout, stderr, time.Now)
	case "client-demo":
		err = runClientDemo(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, version())
		return exitOK
	default:
		fmt.Fprintf(stderr, "hotkeys: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return exitCode(err, stderr)
}

// usageError is a bad flag or argument: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// inputError says the input had errors but the run went on: exit status 1.
type inputError struct{ msg string }

func (e inputError) Error() string { return e.msg }

// warningError says the run analysed everything, with a warning that
// its figures may be wrong: exit status 4.
type warningError struct{ msg string }

func (e warningError) Error() string { return e.msg }

func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	var ie inputError
	var we warningError
	var internal *detector.InternalError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "hotkeys: %v\n", err)
		return exitUsage
	case errors.As(err, &we):
		fmt.Fprintf(stderr, "hotkeys: %v\n", err)
		return exitWarning
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "hotkeys: %v\n", err)
		return exitInputError
	case errors.As(err, &internal):
		fmt.Fprintf(stderr, "hotkeys: %v\nThis is a bug in hotkeys, not a fault of the input: please report it with this stack.\n%s", err, internal.Stack)
		return exitInternal
	}
	fmt.Fprintf(stderr, "hotkeys: %v\n", err)
	return exitInputError
}
