package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/record"
)

const replayAbout = `Analyses captured DynamoDB stream records and prints a report per window.
Each FILE (or - for standard input) holds what the stream gave: the output of
'aws dynamodbstreams get-records' (AWS CLI v1 or v2: epoch or ISO 8601 times),
Lambda DynamoDB stream events (DynamoDBEvent or DynamoDBTimeWindowEvent, one
per line or in an array), what 'hotkeys watch --record FILE' saved, or stream
records alone. How to capture them: docs/replay.md. Files are read in the
order given; records are windowed by their ApproximateCreationDateTime, and
each file's line on standard error says what it was read as.

Malformed records are skipped, counted and reported; the rest is analysed. A
file that is not stream records (an SQS, Kinesis or S3 event, {}, null) is
named as what it looks like, and nothing of it is analysed.

The partition key: a table with a sort key needs --partition-key, or
--describe-table FILE (what ` + "`aws dynamodb describe-table --table-name NAME`" + ` prints),
which also gives the global secondary indexes: each gets windows of its own.
Without either, replay names the attribute the records suggest; with
--partition-key, it warns (exit status 4) when the attribute looks like the
sort key or records lack it.

Examples:
  hotkeys replay --partition-key PK events/captured/get-records-cli-v2.json
  hotkeys replay --partition-key PK events/hot-key-ops-log.json
  aws dynamodb describe-table --table-name Shop > shop.json
  hotkeys replay --describe-table shop.json --format json captured/*.json > report.json
`

func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("replay", "[flags] FILE... | -", replayAbout, stderr)
	o.registerStreamFlags(fs)
	fs.StringVar(&o.table, "table", "", "`name` of the table of records that name none (no eventSourceARN, no stream ARN in NextShardIterator)")
	if err := o.parse(fs, args); err != nil {
		return err
	}
	if err := o.requireIndexSource("replay"); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		fs.Usage()
		return usageError{fmt.Errorf("replay: name at least one FILE, or - for standard input")}
	}
	p, err := newPipeline("replay", o, o.output(stdout, false, true), stdout, stderr, time.Now, false)
	if err != nil {
		return err
	}
	var failed, refused []string
	for _, name := range files {
		if ctx.Err() != nil {
			break
		}
		payload, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "hotkeys: %v\n", err)
			failed = append(failed, name)
			continue
		}
		shape := record.Identify(payload)
		if !shape.Source.Readable() {
			msg := fmt.Sprintf("replay: %s looks like %s, not DynamoDB stream records%s: nothing of it is analysed (docs/replay.md: what replay reads)", name, shape, hint(shape.Source))
			if len(files) == 1 {
				return usageError{errors.New(msg)}
			}
			fmt.Fprintf(stderr, "hotkeys %s\n", msg)
			refused = append(refused, name)
			continue
		}
		read, iso, unnamed := p.read, p.dec.ISOTimes(), p.tables[""]
		err = p.feed(name, payload, "")
		if _, usage := err.(usageError); usage {
			return err
		}
		if err != nil {
			fmt.Fprintf(stderr, "hotkeys: %v\n", err)
			failed = append(failed, name)
		}
		sayRead(stderr, p, name, shape, read, iso, unnamed)
	}
	if err := p.finish(); err != nil {
		return err
	}
	return replayOutcome(p, files, failed, refused, stderr)
}

// sayRead tells on stderr what replay read of one input, given the
// pipeline's counts before it: how many records in which format and times,
// and that they name no table when this input is the first to.
func sayRead(stderr io.Writer, p *pipeline, name string, shape record.Shape, read, iso int, unnamed bool) {
	if n := p.read - read; n > 0 {
		fmt.Fprintf(stderr, "hotkeys replay: %s: %s read as %s, %s\n", name, plural(n, "record"), shape, timeFormat(p.dec.ISOTimes()-iso, n))
	}
	if p.tables[""] && !unnamed {
		fmt.Fprintf(stderr, "hotkeys replay: %s: records name no table (no eventSourceARN, no stream ARN in NextShardIterator): give it with --table NAME\n", name)
	}
}

// replayOutcome is a replay's exit status, most serious first: inputs that
// are not stream records, a doubtful partition key, inputs not read in full,
// nothing read, malformed records skipped.
func replayOutcome(p *pipeline, files, failed, refused []string, stderr io.Writer) error {
	switch {
	case len(refused) > 0:
		return usageError{fmt.Errorf("%d of %d inputs are not DynamoDB stream records (said above): %s", len(refused), len(files), strings.Join(refused, ", "))}
	case p.keyWarning() != nil:
		return p.keyWarning()
	case len(failed) > 0:
		return inputError{fmt.Sprintf("%d of %d inputs could not be read in full: %v", len(failed), len(files), failed)}
	case p.read == 0:
		fmt.Fprintf(stderr, "hotkeys replay: no stream records in %s: nothing to report\n", strings.Join(files, ", "))
	case p.malformed > 0:
		return p.malformedError()
	}
	return nil
}

// hint adds what to do about an input of another kind.
func hint(s record.Source) string {
	switch s {
	case record.SourceKinesis:
		return " (Kinesis Data Streams for DynamoDB is not read yet: capture the table's DynamoDB stream instead)"
	case record.SourceDescribeTable:
		return " (give it with --describe-table FILE, beside the records)"
	case record.SourceCloudWatchLogs:
		return " (its data is the function's log events, compressed: docs/replay.md shows how to take a stream Lambda's events from CloudWatch Logs)"
	}
	return ""
}

// timeFormat says how the record times of a file were written.
func timeFormat(iso, records int) string {
	switch {
	case iso == 0:
		return "times in epoch seconds"
	case iso == records:
		return "times in ISO 8601"
	}
	return fmt.Sprintf("times in ISO 8601 (%d) and epoch seconds", iso)
}

func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return b, nil
	}
	return os.ReadFile(name)
}
