package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hotkeys-dev/hotkeys/detector"
)

var errHelp = flag.ErrHelp

// options are the flags every command shares. They are named after the
// Lambda's environment variables (--share-threshold is
// HOTKEYS_SHARE_THRESHOLD), so a threshold tried here carries over as is.
type options struct {
	cfg          detector.Config
	partitionKey string
	format       string
	redaction    string
	heatmap      string
}

func newFlagSet(name, synopsis, about string, stderr io.Writer) (*flag.FlagSet, *options) {
	o := &options{cfg: detector.DefaultConfig()}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hotkeys %s %s\n\n%s\nFlags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	c := &o.cfg
	fs.DurationVar(&c.Window, "window", c.Window, "length of the tumbling `window`s, aligned to multiples of itself (1s to 15m)")
	fs.Float64Var(&c.ShareThreshold, "share-threshold", c.ShareThreshold, "flag a key whose `fraction` of the window's WCU is at least this (0.10 = 10 %) ...")
	fs.Float64Var(&c.MinWCUPerSecond, "min-wcu-per-second", c.MinWCUPerSecond, "... and whose peak WCU within one second is at least this `rate`")
	fs.Float64Var(&c.CriticalWCUPerSecond, "critical-wcu-per-second", c.CriticalWCUPerSecond, "critical when a key's peak reaches this `rate` (80 % of the partition limit)")
	fs.Float64Var(&c.PartitionLimit, "partition-limit", c.PartitionLimit, "DynamoDB's per-partition write limit in WCU/s, used for recommendations")
	fs.IntVar(&c.Top, "top", c.Top, "list the `n` heaviest keys of each window, whatever the thresholds")
	fs.StringVar(&o.partitionKey, "partition-key", "", "`name` of the partition-key attribute (needed when the table also has a sort key)")
	fs.StringVar(&o.format, "format", "table", "output `format`: table or json")
	fs.StringVar(&o.heatmap, "heatmap", "", "also draw the run as a heatmap of keys over time into `file`: one self-contained HTML page")
	fs.StringVar(&o.redaction, "key-redaction", "none", "`mode` none, or hash: print every key as a stable keyed hash (salt from $HOTKEYS_KEY_REDACTION_SALT)")
	return fs, o
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
	red, err := detector.ParseRedaction(o.redaction)
	if err != nil {
		return usageError{fmt.Errorf("--key-redaction: %v", err)}
	}
	o.cfg.Redaction = red
	o.cfg.RedactionSalt = os.Getenv("HOTKEYS_KEY_REDACTION_SALT")
	o.cfg.Lateness = o.cfg.Window
	if err := o.cfg.Validate(); err != nil {
		return usageError{flagError(err)}
	}
	return nil
}

// flagError turns "detector: invalid configuration: window 0s: ..." into
// "--window 0s: ...", the way the user typed it.
func flagError(err error) error {
	msg := strings.TrimPrefix(err.Error(), detector.ErrConfig.Error()+": ")
	return errors.New("--" + msg)
}
