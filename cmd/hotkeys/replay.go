package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

const replayAbout = `Analyses captured DynamoDB stream records and prints a report per window.
Each FILE (or - for standard input) holds Lambda DynamoDB Streams events
(DynamoDBEvent or DynamoDBTimeWindowEvent), a JSON array of them, or one
record per line. Malformed records are skipped, counted and reported; the rest
of the input is still analysed. Files are read in the order given, and records
are windowed by their ApproximateCreationDateTime.

With --describe-table FILE (what ` + "`aws dynamodb describe-table --table-name NAME`" + ` prints), the
table's partition key comes from the file, and every global secondary index
gets windows of its own: the WCU each write cost the index, from the stream's
images, and the index's hot keys (a throttled index throttles the table).

Examples:
  hotkeys replay --partition-key PK events/hot-key-ops-log.json
  aws dynamodb describe-table --table-name Shop > shop.json
  hotkeys replay --describe-table shop.json --format json captured/*.json > report.json
`

func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, files, err := parseFileCommand("replay", replayAbout, args, stderr)
	if err != nil {
		return err
	}
	p, err := newPipeline(o, newReportWriter(o.format, stdout, false), stderr, time.Now)
	if err != nil {
		return err
	}
	var failed []string
	for _, name := range files {
		if ctx.Err() != nil {
			break
		}
		payload, err := readInput(name, stdin)
		if err == nil {
			err = p.feed(name, payload, "")
		}
		if _, usage := err.(usageError); usage {
			return err
		}
		if err != nil {
			fmt.Fprintf(stderr, "hotkeys: %v\n", err)
			failed = append(failed, name)
		}
	}
	if err := p.finish(); err != nil {
		return err
	}
	switch {
	case len(failed) > 0:
		return inputError{fmt.Sprintf("%d of %d inputs could not be read in full: %v", len(failed), len(files), failed)}
	case p.read == 0:
		fmt.Fprintf(stderr, "hotkeys replay: no stream records in %s: nothing to report\n", strings.Join(files, ", "))
	case p.malformed > 0:
		return p.malformedError()
	}
	return nil
}

// parseFileCommand parses the flags of a command that reads stream events
// from FILE... | - (replay, audit) and returns its options and files.
func parseFileCommand(name, about string, args []string, stderr io.Writer) (*options, []string, error) {
	fs, o := newFlagSet(name, "[flags] FILE... | -", about, stderr)
	o.registerStreamFlags(fs)
	if err := o.parse(fs, args); err != nil {
		return nil, nil, err
	}
	if err := o.requireIndexSource(name); err != nil {
		return nil, nil, err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return nil, nil, usageError{fmt.Errorf("%s: name at least one FILE, or - for standard input", name)}
	}
	return o, fs.Args(), nil
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
