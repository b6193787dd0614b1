// Command kinesisgen writes the Kinesis samples of events/kinesis/ from the
// DynamoDB stream samples of events/, as Kinesis Data Streams for DynamoDB
// would deliver the same writes (internal/testkit/kinesisbridge):
//
//	go run ./internal/testkit/kinesisgen            # rewrite them
//	go run ./internal/testkit/kinesisgen -check     # exit 1 if one differs
//
// docs/events.md says what each sample holds and what it should give.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kinesisgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("events", "events", "the `folder` of the DynamoDB stream samples; the Kinesis ones go to its kinesis/")
	check := fs.Bool("check", false, "write nothing: exit 1 if a sample differs from what would be written")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	files, err := generate(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "kinesisgen:", err)
		return 1
	}
	status := 0
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(*dir, name)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, files[name]) {
				fmt.Fprintf(stderr, "kinesisgen: %s is not what kinesisgen writes: run go run ./internal/testkit/kinesisgen\n", path)
				status = 1
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(stderr, "kinesisgen:", err)
			return 1
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintln(stderr, "kinesisgen:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", path, len(files[name]))
	}
	return status
}
