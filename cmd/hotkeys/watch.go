package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/streams"
)

const watchAbout = `Reads a table's DynamoDB stream live and prints a report each time a window
closes, like 'nodetool toppartitions'. Ctrl-C (or --duration) reports the
window in progress and stops. Status goes to standard error.

AWS configuration comes from the standard chain (AWS_PROFILE, AWS_REGION,
credentials files, SSO, instance roles); AWS_ENDPOINT_URL_DYNAMODB and
AWS_ENDPOINT_URL_DYNAMODB_STREAMS point it elsewhere (e.g. DynamoDB Local).
It needs dynamodb:DescribeTable on the table and DescribeStream,
GetShardIterator and GetRecords on its stream. A shard serves at most 2
readers at once (1 on global tables): watch is one of them while it runs.

An onset (a key crossing the critical rate inside its window) is printed
the moment a batch shows it, with its pattern so far; the window's report
follows at its close. --record FILE saves every batch read, one Lambda event
per line, for 'hotkeys replay FILE' to read back later (docs/replay.md).

Examples:
  hotkeys watch --table Shop
  hotkeys watch --table Shop --from trim_horizon --duration 10m --format json > shop.json
  hotkeys watch --table Shop --duration 5m --record shop-records.json
`

type watchFlags struct {
	table, streamARN, from, record string
	duration                       time.Duration
	aws                            awsFlags
	described                      bool // the partition key came from DescribeTable
}

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("watch", "[flags] --table NAME | --stream-arn ARN", watchAbout, stderr)
	o.registerStreamFlags(fs)
	var wf watchFlags
	fs.StringVar(&wf.table, "table", "", "`name` of the table whose stream to read")
	fs.StringVar(&wf.streamARN, "stream-arn", "", "`ARN` of the stream to read (instead of --table)")
	fs.StringVar(&wf.from, "from", "latest", "where to start in each shard: `latest` (new writes only) or trim_horizon (the last 24 h)")
	durationFlag(fs, &wf.duration, "duration", 0, "stop after this `span` of time (0: until Ctrl-C)")
	fs.StringVar(&wf.record, "record", "", "also save every batch read into `file`, one Lambda event per line, for `hotkeys replay file`")
	wf.aws.register(fs)
	if err := o.parse(fs, args); err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	if wf.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wf.duration)
		defer cancel()
	}
	reader, err := wf.open(ctx, o)
	if err != nil {
		return err
	}
	p, err := newPipeline("watch", o, o.output(stdout, true, false), stdout, stderr, watchClock, wf.described)
	if err != nil {
		return err
	}
	var rec *os.File
	if wf.record != "" {
		if rec, err = os.Create(wf.record); err != nil {
			return usageError{fmt.Errorf("--record: %w", err)}
		}
		defer rec.Close()
	}
	fmt.Fprintf(stderr, "hotkeys watch: reading %s (partition key %q%s) from %s; Ctrl-C to stop\n", wf.streamARN, o.partitionKey, indexNote(o.indexDefs), wf.from)
	err = watchLoop(ctx, watchReader(reader), p, recorder{rec}, stderr, watchClock)
	if rec != nil {
		if cerr := rec.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--record %s: %w", wf.record, cerr)
		}
	}
	return err
}

// open loads the AWS configuration, finds the stream (and the key schema,
// unless given) and opens a reader of its shards.
func (wf *watchFlags) open(ctx context.Context, o *options) (*streams.Reader, error) {
	awsCfg, err := wf.aws.load(ctx, "watch")
	if err != nil {
		return nil, err
	}
	if err := wf.resolve(ctx, dynamodb.NewFromConfig(awsCfg), o); err != nil {
		return nil, err
	}
	scfg := streams.DefaultConfig()
	scfg.From = streams.StartPosition(wf.from)
	scfg.StreamARN = wf.streamARN
	if err := scfg.Validate(); err != nil {
		return nil, usageError{err}
	}
	reader, err := streams.NewReader(dynamodbstreams.NewFromConfig(awsCfg), scfg)
	if err != nil {
		return nil, usageError{err}
	}
	return reader, nil
}

// check refuses watch's own flags when they cannot work, before any call
// to AWS.
func (wf *watchFlags) check() error {
	if wf.record != "" {
		if err := checkWritable(wf.record); err != nil {
			return usageError{fmt.Errorf("--record %s: %w", wf.record, err)}
		}
	}
	if (wf.table == "") == (wf.streamARN == "") {
		return usageError{fmt.Errorf("watch: give exactly one of --table or --stream-arn")}
	}
	if wf.duration < 0 {
		return usageError{fmt.Errorf("--duration %s: want ≥ 0", wf.duration)}
	}
	if from := streams.StartPosition(wf.from); from != streams.Latest && from != streams.TrimHorizon {
		return usageError{fmt.Errorf("--from %q: want latest (new writes only) or trim_horizon (the last 24 h)", wf.from)}
	}
	return nil
}

// recorder saves watch's batches for replay (--record): each a line, the
// Lambda event watch analysed with the shard it came from, which replay
// reads as it is.
type recorder struct{ f *os.File }

func (r recorder) save(shard string, payload []byte) error {
	if r.f == nil {
		return nil
	}
	line := make([]byte, 0, len(payload)+len(shard)+16)
	line = append(line, `{"shardId":`...)
	line = strconv.AppendQuote(line, shard)
	line = append(line, ',')
	line = append(line, payload[1:]...) // payload is {"Records":[...]}
	line = append(line, '\n')
	if _, err := r.f.Write(line); err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	return nil
}

// resolve fills in what the flags left to the table: the stream's ARN, the
// partition key and the indexes, from one DescribeTable when any is
// missing.
func (wf *watchFlags) resolve(ctx context.Context, ddb keyschema.DescribeTableAPI, o *options) error {
	table := wf.table
	if table == "" {
		var err error
		if table, err = keyschema.TableFromARN(wf.streamARN); err != nil {
			return usageError{fmt.Errorf("--stream-arn: %w", err)}
		}
	}
	if wf.streamARN != "" && o.partitionKey != "" && (o.indexes == "off" || o.describeTable != "") {
		return nil
	}
	s, err := keyschema.Lookup(ctx, ddb, table)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if wf.streamARN == "" {
		if err := s.RequireStream(); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		wf.streamARN = s.StreamARN
	}
	if o.describeTable == "" {
		wf.described = true
		return o.useSchema(s)
	}
	return nil
}

// streamReader is what watch needs of streams.Reader.
type streamReader interface {
	Run(ctx context.Context, h streams.Handler) error
}

// What watch takes from the world besides AWS: the clock, and the stream
// reader as built. Tests replace them to fix time and to see each batch
// once it has been analysed.
var (
	watchClock  = time.Now
	watchReader = func(r *streams.Reader) streamReader { return r }
)

// watchBatch is one batch of a shard's records, handed from the reader's
// goroutine to the pipeline's; done carries the pipeline's verdict back.
type watchBatch struct {
	shard   string
	payload []byte
	done    chan error
}

// watchLoop feeds the pipeline from the reader and, once a second, closes
// the windows that the clock (now) has left behind, so a table that goes
// quiet still gets its report. One goroutine owns the pipeline.
func watchLoop(ctx context.Context, reader streamReader, p *pipeline, rec recorder, stderr io.Writer, now func() time.Time) error {
	batches := make(chan watchBatch)
	readErr := make(chan error, 1)
	var lost atomic.Int64 // read after the reader goroutine ends
	go func() { readErr <- reader.Run(ctx, watchHandler(ctx, batches, stderr, &lost)) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var runErr error
loop:
	for {
		select {
		case b := <-batches:
			if err := rec.save(b.shard, b.payload); err != nil {
				b.done <- err
				runErr = err
				break loop
			}
			err := p.feed(b.shard, b.payload, b.shard)
			if _, isInput := err.(inputError); isInput {
				fmt.Fprintf(stderr, "hotkeys watch: %v\n", err)
				err = nil
			}
			b.done <- err
		case <-tick.C:
			p.det.Advance(now().Add(-p.det.Config().Window - p.det.Config().Lateness))
			if err := p.emit(p.det.Onsets(nil), p.det.Flush()); err != nil {
				runErr = err
				break loop
			}
		case runErr = <-readErr:
			break loop
		}
	}
	if err := p.finish(); err != nil {
		return err
	}
	var err error
	switch {
	case runErr != nil && ctx.Err() == nil:
		err = fmt.Errorf("watch: %w", runErr)
	case lost.Load() > 0:
		err = inputError{fmt.Sprintf("%d shard(s) reported data lost (trimmed past the stream's 24 h retention)", lost.Load())}
	case p.malformed > 0:
		err = p.malformedError()
	}
	if w := p.keyWarning(); w != nil { // the key's warning wins (exit status 4); the rest is still said
		if err != nil {
			fmt.Fprintf(stderr, "hotkeys: %v\n", err)
		}
		return w
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "hotkeys watch: stopped")
	return nil
}

// watchHandler hands the reader's batches to the pipeline's goroutine and
// waits for each to be analysed; it tells status and data lost on stderr,
// counting the shards that lost data in lost.
func watchHandler(ctx context.Context, batches chan<- watchBatch, stderr io.Writer, lost *atomic.Int64) streams.Handler {
	return streams.Handler{
		Batch: func(shard string, payload []byte) error {
			b := watchBatch{shard, payload, make(chan error, 1)}
			select {
			case batches <- b:
				return <-b.done
			case <-ctx.Done():
				return nil
			}
		},
		Status: func(msg string) { fmt.Fprintf(stderr, "hotkeys watch: %s\n", msg) },
		Lost: func(shard string, err error) {
			lost.Add(1)
			fmt.Fprintf(stderr, "hotkeys watch: DATA LOST on %s: %v\n", shard, err)
		},
	}
}

// indexNote names the indexes analysed, for the start-up line.
func indexNote(defs []ddb.Index) string {
	if len(defs) == 0 {
		return ""
	}
	names := make([]string, len(defs))
	for k, def := range defs {
		names[k] = def.Name
	}
	return ", indexes " + strings.Join(names, ", ")
}
