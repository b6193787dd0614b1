package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
)

const historyAbout = `Reads the window summaries the Lambda stored in its history table (one per
stream shard and window, and one per global secondary index written in it; see
docs/history.md) and merges them across shards into steps: the table-wide top
keys of each step with bounds that bracket the truth, distinct keys, the stream
shards' load, and the findings. It prints the same report as replay, one window
per step and per table or index ("index" names it), its "shards" naming the
stream shards merged; --heatmap draws one map per table and per index. An item
it cannot use (corrupt, another format version, written by something else) is
skipped with one warning, and the exit status is 1.

Where the stack's rollup function has merged a window (or an hour) of every
shard into one rollup, it reads the rollup, and the shards' windows only for
what is not rolled up yet (the last minute or two); it says on stderr which it
read. A rollup keeps its 1,000 heaviest keys and 100 busiest stream shards
(the others summed as "(other shards)"), and its bounds still bracket the
truth. A window rollup made before every shard's window could be stored (in
the 70 minutes after the window) may miss a window stored late: --source
settled reads the shards' windows instead of those. --source shards reads
only the shards' windows, as before rollups.

AWS configuration comes from the standard chain (AWS_PROFILE, AWS_REGION,
credentials files, SSO, instance roles); AWS_ENDPOINT_URL_DYNAMODB points it
elsewhere. It needs dynamodb:Query on the history table.

Examples (H: the stack's HistoryTable output):
  hotkeys history --table H --since 6h --step 5m
  hotkeys history --table H --since 720h --step 1h          # 30 days from hour rollups
  hotkeys history --table H --from 2026-11-22T00:00:00Z --to 2026-11-23T00:00:00Z --step 1h --heatmap day.html
`

type historyFlags struct {
	table, from, to, format, heatmap, source string
	since, step                              time.Duration
	top, writeShards, width, memory          int
	limit                                    float64
	aws                                      awsFlags
}

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	var f historyFlags
	from, to, err := f.parse(args, stderr, now())
	if err != nil {
		return err
	}
	awsCfg, err := f.aws.load(ctx, "history")
	if err != nil {
		return err
	}
	defer softMemoryLimit(f.memory)()
	width := f.width
	if width == 0 {
		width = cmp.Or(terminalWidth(stdout), defaultWidth)
	}
	out := newStreamWriter(outputOptions{format: f.format, table: tableOptions{width: max(width, minWidth), limit: f.limit, keyDoubt: func() string { return "" }}}, stdout)
	if f.heatmap != "" {
		cfg := detector.DefaultConfig()
		cfg.PartitionLimit = f.limit
		out = newHeatmapWriter(out, f.heatmap, cfg, now)
	}
	n, skipped, err := f.read(ctx, dynamodb.NewFromConfig(awsCfg, store.ClientOptions), from, to, out, stderr)
	if err != nil {
		return err
	}
	if err := out.Close(nil); err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(stderr, "hotkeys history: no stored windows in %s from %s to %s\n", f.table, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	if skipped > 0 {
		return inputError{fmt.Sprintf("%d stored item(s) could not be used and were skipped", skipped)}
	}
	return nil
}

// parse parses and checks history's flags, and returns the span to read.
func (f *historyFlags) parse(args []string, stderr io.Writer, now time.Time) (from, to time.Time, err error) {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hotkeys history [flags] --table NAME [--since 6h | --from T --to T]\n\n%s\nFlags:\n", historyAbout)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.table, "table", "", "`name` of the history table (the stack's HistoryTable output)")
	durationFlag(fs, &f.since, "since", 6*time.Hour, "the last `span` of time, up to now")
	fs.StringVar(&f.from, "from", "", "start `time`, RFC 3339 (2026-11-22T10:00:00Z), instead of --since")
	fs.StringVar(&f.to, "to", "", "end `time`, RFC 3339 (default: now)")
	durationFlag(fs, &f.step, "step", time.Minute, "length of each reported `step` (1m, 5m, 1h, ...): at least the stored windows' length")
	intFlag(fs, &f.top, "top", detector.DefaultTop, "list the `n` heaviest keys of each step")
	fs.StringVar(&f.source, "source", "auto", "`what` to read: auto (rollups where there are some, the shards' windows elsewhere), settled (the same, but only rollups no late window can be missing from), rollups (only them) or shards (only the shards' windows)")
	intFlag(fs, &f.writeShards, "write-shards", 0, "query `n` write shards of the shards' windows: the stack's HistoryWriteShards (default: what the rollups record, else 64)")
	fs.StringVar(&f.format, "format", "table", "output `format`: table or json")
	intFlag(fs, &f.width, "width", 0, "table output's width in `columns` (default: the terminal's, or 100 when not a terminal)")
	fs.StringVar(&f.heatmap, "heatmap", "", "also draw the steps as a heatmap into `file`: one self-contained HTML page")
	intFlag(fs, &f.memory, "memory", defaultHistoryMemory, "the `MiB` of memory to stay under: a soft limit (the Go runtime's, as GOMEMLIMIT sets, which wins when set) that makes the collector work harder as the reader nears it; 0 for none")
	floatFlag(fs, &f.limit, "partition-limit", detector.DefaultPartitionLimit, "per-partition write `rate` limit in WCU/s: the heatmap's scale, the keys' headroom")
	f.aws.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return from, to, errHelp
		}
		return from, to, usageError{err}
	}
	if from, to, err = f.span(fs, now); err != nil {
		return from, to, usageError{err}
	}
	switch {
	case f.table == "":
		return from, to, usageError{errors.New("history: --table NAME (the history table) is required")}
	case f.format != "table" && f.format != "json":
		return from, to, usageError{fmt.Errorf("--format %q: want table or json", f.format)}
	case f.top < 0 || f.top > 1000:
		return from, to, usageError{fmt.Errorf("--top %d: want 0 to 1000", f.top)}
	case !slices.Contains([]string{"auto", "settled", "rollups", "shards"}, f.source):
		return from, to, usageError{fmt.Errorf("--source %q: want auto, settled, rollups or shards", f.source)}
	case f.writeShards < 0 || f.writeShards > store.MaxWriteShards:
		return from, to, usageError{fmt.Errorf("--write-shards %d: want 1 to %d", f.writeShards, store.MaxWriteShards)}
	case f.memory < 0:
		return from, to, usageError{fmt.Errorf("--memory %d: want MiB, 0 for no limit", f.memory)}
	case !(f.limit > 0):
		return from, to, usageError{fmt.Errorf("--partition-limit %g: want > 0", f.limit)}
	}
	if _, err := history.NewMerger("", "", f.step, f.top); err != nil {
		return from, to, usageError{fmt.Errorf("--step: %w", err)}
	}
	return from, to, nil
}

// defaultHistoryMemory is --memory's default, in MiB: at 1,000 shards a
// day of 1-minute steps peaked at 1.1 GiB without a limit, at about 800
// MiB under GOMEMLIMIT=800MiB with the same output (issue 35): the excess
// was the collector's headroom over the hour of items decoded ahead.
const defaultHistoryMemory = 768

// softMemoryLimit sets the runtime's soft memory limit to mib MiB, unless
// mib is 0 or GOMEMLIMIT is set, and returns what restores the one before.
func softMemoryLimit(mib int) (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || mib <= 0 {
		return func() {}
	}
	before := debug.SetMemoryLimit(int64(mib) << 20)
	return func() { debug.SetMemoryLimit(before) }
}

// span resolves --since, --from and --to.
func (f *historyFlags) span(fs *flag.FlagSet, now time.Time) (from, to time.Time, err error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["since"] && (set["from"] || set["to"]) {
		return from, to, errors.New("history: give --since, or --from and --to, not both")
	}
	to = now.UTC()
	if f.to != "" {
		if to, err = time.Parse(time.RFC3339, f.to); err != nil {
			return from, to, fmt.Errorf("--to %q: want RFC 3339, e.g. 2026-11-22T10:00:00Z", f.to)
		}
	}
	if f.from == "" {
		if f.since <= 0 {
			return from, to, fmt.Errorf("--since %s: want > 0", f.since)
		}
		return to.Add(-f.since), to, nil
	}
	if from, err = time.Parse(time.RFC3339, f.from); err != nil {
		return from, to, fmt.Errorf("--from %q: want RFC 3339, e.g. 2026-11-22T10:00:00Z", f.from)
	}
	if !from.Before(to) {
		return from, to, fmt.Errorf("--from %s is not before --to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	return from.UTC(), to.UTC(), nil
}
