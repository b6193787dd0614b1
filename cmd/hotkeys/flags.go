package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/redact"
)

var errHelp = flag.ErrHelp

// options are the flags every command shares. They are named after the
// Lambda's environment variables (--share-threshold is
// HOTKEYS_SHARE_THRESHOLD), so a threshold tried here carries over as is.
type options struct {
	cfg          detector.Config
	partitionKey string
	format       string
	redaction    redactionFlags

	describeTable string      // --describe-table FILE
	indexes       string      // --indexes auto, on or off
	indexDefs     []ddb.Index // the indexes to analyse, once resolved
	described     string      // the table --describe-table describes
	heatmap       string      // --heatmap FILE
	table         string      // replay's --table: the table of records that name none

	width    int  // --width: table output's columns (0: the terminal's, else defaultWidth)
	all      bool // --all: nothing folded in table output
	topGiven bool // --top was given: the top keys listed in full
}

// newFlagSet returns the flag set of command name with the flags every
// command shares. The flags about a table's stream (its partition key, its indexes, the
// heatmap of its windows) are registered by registerStreamFlags, for the
// commands that read a stream: client-demo has none of them, rather than
// flags it would ignore.
func newFlagSet(name, synopsis, about string, stderr io.Writer) (*flag.FlagSet, *options) {
	o := &options{cfg: detector.DefaultConfig(), indexes: "off"} // registerStreamFlags makes it auto
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hotkeys %s %s\n\n%s\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	c := &o.cfg
	durationFlag(fs, &c.Window, "window", c.Window, "length of the tumbling `window`s, aligned to multiples of itself (1s to 15m)")
	floatFlag(fs, &c.ShareThreshold, "share-threshold", c.ShareThreshold, "flag a key whose `fraction` of the window's WCU is at least this (0.10 = 10 %) ...")
	floatFlag(fs, &c.MinWCUPerSecond, "min-wcu-per-second", c.MinWCUPerSecond, "... and whose peak WCU within one second is at least this `rate`")
	floatFlag(fs, &c.CriticalWCUPerSecond, "critical-wcu-per-second", c.CriticalWCUPerSecond, "critical when a key's peak reaches this `rate` (80 % of the partition limit)")
	floatFlag(fs, &c.PartitionLimit, "partition-limit", c.PartitionLimit, "DynamoDB's per-partition write `rate` limit in WCU/s, used for recommendations")
	floatFlag(fs, &c.SaturationFraction, "saturation-fraction", c.SaturationFraction, "a key or stream shard whose WCU (a client's key: or RCU, of 3,000) within one second is at least this `fraction` of the partition limit ...")
	fs.IntVar(&c.SaturationSeconds, "saturation-seconds", c.SaturationSeconds, "... for this many `seconds` of a window is saturated: pinned at the limit, most likely throttled")
	intFlag(fs, &c.Top, "top", c.Top, "list the `n` heaviest keys of each window, whatever the thresholds (table output: given, it lists them\nall; else keys under 0.1 % of a window's WCU are folded into one line)")
	fs.StringVar(&o.format, "format", "table", "output `format`: table or json")
	intFlag(fs, &o.width, "width", 0, "table output's width in `columns` (default: the terminal's, or 100 when not a terminal)")
	o.redaction.register(fs, redact.None)
	return fs, o
}

// registerStreamFlags adds the flags of the commands that read a table's
// stream (replay, demo, watch).
func (o *options) registerStreamFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.partitionKey, "partition-key", "", "`name` of the partition-key attribute, e.g. PK (needed when the table also has a sort key)")
	fs.StringVar(&o.heatmap, "heatmap", "", "also draw the run as a heatmap of keys over time into `file`: one self-contained HTML page")
	fs.StringVar(&o.describeTable, "describe-table", "", "`file` holding the output of `aws dynamodb describe-table --table-name NAME`: gives the partition key\nand the global secondary indexes (watch then takes them from it rather than from DynamoDB)")
	fs.StringVar(&o.indexes, "indexes", "auto", "analyse the global secondary indexes' hot keys: `mode` auto (when the table has GSIs), on or off")
	fs.BoolVar(&o.all, "all", false, "table output: list every top key and stream shard, none folded")
}

// parse parses args and checks the shared flags. It returns errHelp for -h.
func (o *options) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	switch o.format {
	case "table", "json":
	default:
		return usageError{fmt.Errorf("--format %q: want table or json", o.format)}
	}
	if o.width != 0 && o.width < minWidth {
		return usageError{fmt.Errorf("--width %d: want at least %d columns (0: the terminal's)", o.width, minWidth)}
	}
	fs.Visit(func(f *flag.Flag) { o.topGiven = o.topGiven || f.Name == "top" })
	if o.heatmap != "" {
		if err := checkWritable(o.heatmap); err != nil {
			return usageError{fmt.Errorf("--heatmap %s: %w", o.heatmap, err)}
		}
	}
	h, err := o.redaction.hasher(os.Getenv)
	if err != nil {
		return err
	}
	o.cfg.Redactor = h
	if h.Unsalted() {
		fmt.Fprintln(fs.Output(), unsaltedNote)
	}
	switch o.indexes {
	case "auto", "on", "off":
	default:
		return usageError{fmt.Errorf("--indexes %q: want auto, on or off", o.indexes)}
	}
	if o.describeTable != "" {
		if err := o.readDescribeTable(); err != nil {
			return err
		}
	}
	o.cfg.Lateness = o.cfg.Window
	if err := o.cfg.Validate(); err != nil {
		return usageError{flagError(err)}
	}
	return nil
}

// output returns how the command writes to stdout: tables to the
// width asked for, else the terminal's, else defaultWidth.
func (o *options) output(stdout io.Writer, live, onsets bool) outputOptions {
	width := o.width
	if width == 0 {
		width = terminalWidth(stdout)
	}
	if width < minWidth {
		width = defaultWidth
	}
	return outputOptions{format: o.format, live: live, onsets: onsets, table: tableOptions{width: width, all: o.all, top: o.topGiven}}
}

// checkWritable says why a file could not be written at path, before any
// work is done: a --heatmap path is written only at the end of the run.
func checkWritable(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return errors.New("is a directory: name the file to write")
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("its directory %s does not exist", dir)
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".hotkeys-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// readDescribeTable reads --describe-table: the partition key, unless
// --partition-key names it, and the indexes, unless --indexes is off.
func (o *options) readDescribeTable() error {
	f, err := os.Open(o.describeTable)
	if err != nil {
		return usageError{fmt.Errorf("--describe-table: %w", err)}
	}
	defer f.Close()
	s, err := keyschema.ParseDescribeTable(f)
	if err != nil {
		return usageError{fmt.Errorf("--describe-table %s: %w", o.describeTable, err)}
	}
	o.described = s.Table
	return o.useSchema(s)
}

// useSchema takes the partition key and the indexes from a table's schema.
func (o *options) useSchema(s keyschema.Schema) error {
	switch {
	case o.partitionKey == "":
		o.partitionKey = s.PartitionKey
	case o.partitionKey != s.PartitionKey:
		return usageError{fmt.Errorf("--partition-key %q, but table %q's partition key is %q", o.partitionKey, s.Table, s.PartitionKey)}
	}
	if o.indexes != "off" {
		o.indexDefs = s.Indexes
	}
	if o.indexes == "on" && len(s.Indexes) == 0 {
		return usageError{fmt.Errorf("--indexes on, but table %q has no global secondary index", s.Table)}
	}
	return nil
}

// requireIndexSource refuses --indexes on when nothing can say what the
// indexes are.
func (o *options) requireIndexSource(cmd string) error {
	if o.indexes == "on" && o.describeTable == "" {
		return usageError{fmt.Errorf("%s: --indexes on needs --describe-table FILE (the output of `aws dynamodb describe-table`)", cmd)}
	}
	return nil
}

// configFlags names the fields of c the flags set by the flag that sets
// each (Lateness follows --window), keyed by the fields' addresses, as
// detector.FieldError.Message takes them: a renamed field does not
// compile.
func configFlags(c *detector.Config) map[any]string {
	return map[any]string{
		&c.Window:               "--window",
		&c.Lateness:             "--window",
		&c.ShareThreshold:       "--share-threshold",
		&c.MinWCUPerSecond:      "--min-wcu-per-second",
		&c.CriticalWCUPerSecond: "--critical-wcu-per-second",
		&c.PartitionLimit:       "--partition-limit",
		&c.SaturationFraction:   "--saturation-fraction",
		&c.SaturationSeconds:    "--saturation-seconds",
		&c.Top:                  "--top",
	}
}

// flagError words a configuration error in the flags the user typed:
// "--share-threshold 2: want a fraction in (0, 1], e.g. 0.10". A field no
// flag sets keeps its Go name.
func flagError(err error) error {
	var fe *detector.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var c detector.Config
	return errors.New(fe.Message(&c, configFlags(&c)))
}
