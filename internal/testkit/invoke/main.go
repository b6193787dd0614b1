// Command invoke is `make invoke`: the local equivalent of
// `sam local invoke HotKeysFunction -e FILE`, without Docker and without an
// AWS account. It runs the function's bootstrap under AWS's Lambda Runtime
// Interface Emulator (internal/testkit/rie), with the environment template.yaml
// gives the function for the template's parameter defaults and the
// overrides asked for (evaluated by internal/testkit/cfn, as the template tests
// do), posts the event, and prints the function's response on stdout, then
// its EMF lines and log lines on stderr.
//
// It is a tool of this repository, not a program to install: it reads
// template.yaml and runs the bootstrap built from this checkout, so it lives
// under internal/ rather than cmd/, whose commands `go install ./cmd/...`
// ships. Like every command here, it reads its configuration (flags and
// HOTKEYS_KEY_REDACTION_SECRET) in main only.
//
// Run `go run ./internal/testkit/invoke -h` for what it does with each AWS service.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK       = 0
	exitFailed   = 1 // the function failed: an error, a timeout, a failed cold start
	exitUsage    = 2 // the invocation could not be made as asked
	exitInternal = 3 // the emulator could not run
	// exitAllMalformed: the function succeeded, as it does on bad input,
	// but every record of the batch was malformed: nothing was analysed.
	exitAllMalformed = 4
)

// options are the flags, read in run.
type options struct {
	event, state, out     string
	params                string
	template, function    string
	bootstrap, rie        string
	dynamoDB              string
	redactionSecret       string // HOTKEYS_KEY_REDACTION_SECRET
	redactionSecretWasSet bool
}

const usage = `usage: make invoke EVENT=FILE [PARAMS="Name=Value ..."] [STATE=PREV.json] [OUT=RESP.json] [DYNAMODB=URL]
   or: go run ./internal/testkit/invoke -event FILE [flags]

The local 'sam local invoke HotKeysFunction -e FILE', without Docker and
without an AWS account. It runs the function's bootstrap (built for this
machine as 'sam build' builds it) under AWS's Lambda Runtime Interface
Emulator, the emulator SAM runs in its container, with the environment
template.yaml gives the function: the template's parameter defaults,
overridden as 'sam local invoke --parameter-overrides' does. It prints the
function's response on stdout, then its EMF lines and its log lines on
stderr, and what it flagged.

Examples:
  make invoke EVENT=events/hot-key-ops-log.json
  make invoke EVENT=events/global-counter.json PARAMS="PartitionKeyName="
  make invoke EVENT=events/hot-key-ops-log.json PARAMS="ShareThreshold=0.5"
  make invoke EVENT=events/tumbling-window-1.json OUT=w1.json
  make invoke EVENT=events/tumbling-window-2.json STATE=w1.json OUT=w2.json
  make invoke EVENT=events/tumbling-window-final.json STATE=w2.json
  make invoke-window              (the three above, in order)
  make invoke EVENT=events/x.json > response.json 2> logs.txt

No AWS account is used: every AWS call goes to this machine.
  CloudWatch        MetricsMode is emf here, as the template's default:
                    the metrics are the EMF lines the function prints, which
                    CloudWatch Logs turns into the same metrics. api and both
                    would call CloudWatch, and are refused.
  DescribeTable     IndexAnalysis is off here, and a table whose keys hold a
                    sort key needs PartitionKeyName (make invoke sets PK, the
                    samples' key): a lookup would be denied. With
                    -dynamodb-endpoint (DYNAMODB=, e.g. DynamoDB Local holding
                    the table) the function asks that endpoint instead, and
                    IndexAnalysis keeps the template's default.
  Secrets Manager   KeyRedaction=hash works: a local Secrets Manager holds the
                    secret, HOTKEYS_KEY_REDACTION_SECRET if set (the hashes are
                    then those 'hotkeys hash-key' prints), else a random one.
  SNS               NotifyTopicArn is off here (the template's default is the
                    alarm topic): the onset log lines name the key. Another
                    value's publish is answered AccessDeniedException, which
                    the function logs and counts.
  History table     History=on: the window summary goes to table
                    hotkeys-history at -dynamodb-endpoint; without one the
                    write is denied, and the function logs it and goes on.
  anything else     answered AccessDeniedException, as for a role without
                    that permission.

Exit status: 0 the function answered; 1 it failed (an error, a timeout, a
failed cold start); 2 the invocation could not be made as asked; 3 the
emulator could not run; 4 it answered, but every record of the batch was
malformed, so nothing was analysed (the function never fails a batch for its
records): most often the partition key, PartitionKeyName, is not the table's.

Flags:
`

// run is the command; it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("invoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.event, "event", "", "the event to post: a file of events/ (`FILE`, required; make's EVENT)")
	fs.StringVar(&o.params, "parameter-overrides", "", "template parameters, as sam local invoke takes them: `\"Name=Value ...\"` (make's PARAMS, after PartitionKeyName=PK)")
	fs.StringVar(&o.state, "state", "", "a previous response (`FILE`) whose tumbling-window state goes into the event, as the event source mapping carries it (make's STATE)")
	fs.StringVar(&o.out, "out", "", "also write the response to `FILE`, for the next -state (make's OUT)")
	fs.StringVar(&o.template, "template", "template.yaml", "the SAM template (`FILE`)")
	fs.StringVar(&o.function, "function", "HotKeysFunction", "the function's logical `ID` in the template")
	fs.StringVar(&o.bootstrap, "bootstrap", ".cache/invoke/bootstrap", "the function's executable (`FILE`), built for this machine (make builds it)")
	fs.StringVar(&o.rie, "rie", ".cache/aws-lambda-rie", "the Lambda Runtime Interface Emulator (`FILE`; make rie builds the one go.mod pins)")
	fs.StringVar(&o.dynamoDB, "dynamodb-endpoint", "", "send the function's DynamoDB calls (DescribeTable, the history table) to `URL`, such as DynamoDB Local's (make's DYNAMODB)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "invoke: unexpected arguments %q: the event is given with -event (make's EVENT)\n", fs.Args())
		return exitUsage
	}
	o.redactionSecret = getenv("HOTKEYS_KEY_REDACTION_SECRET")
	o.redactionSecretWasSet = o.redactionSecret != ""
	inv, err := prepare(o)
	if err != nil {
		fmt.Fprintf(stderr, "invoke: %s\n", strings.TrimSpace(err.Error()))
		return exitUsage
	}
	return inv.run(ctx, stdout, stderr)
}
