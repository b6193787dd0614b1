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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/kinesisstream"
	"github.com/hotkeys-dev/hotkeys/streams"
)

const watchAbout = `Reads a table's DynamoDB stream live and prints a report each time a window
closes, like 'nodetool toppartitions'. Ctrl-C (or --duration) reports the
window in progress and stops. Status goes to standard error.

--kinesis-stream reads the Kinesis data stream the table streams to
(Kinesis Data Streams for DynamoDB) instead: for a table whose DynamoDB
stream already has its two readers. It takes kinesis:ListShards,
GetShardIterator and GetRecords on that stream (AWS_ENDPOINT_URL_KINESIS
points it elsewhere). Its records name the table but not the key schema:
give --table (looked up) or --partition-key. A record Kinesis delivers
twice is counted once.

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
  hotkeys watch --table Shop --kinesis-stream arn:aws:kinesis:us-east-1:123456789012:stream/shop-changes
  hotkeys watch --table Shop --from trim_horizon --duration 10m --format json > shop.json
  hotkeys watch --table Shop --duration 5m --record shop-records.json
`

type watchFlags struct {
	table, streamARN, from, record string
	kinesisARN                     string
	duration                       time.Duration
	aws                            awsFlags
	described                      bool // the partition key came from DescribeTable
}

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("watch", "[flags] --table NAME | --stream-arn ARN | --kinesis-stream ARN", watchAbout, stderr)
	o.registerStreamFlags(fs)
	var wf watchFlags
	fs.StringVar(&wf.table, "table", "", "`name` of the table whose stream to read")
	fs.StringVar(&wf.streamARN, "stream-arn", "", "`ARN` of the stream to read (instead of --table)")
	fs.StringVar(&wf.kinesisARN, "kinesis-stream", "", "`ARN` of the Kinesis data stream the table streams to, read instead of its DynamoDB stream")
	fs.StringVar(&wf.from, "from", "latest", "where to start in each shard: `latest` (new writes only) or trim_horizon (the last 24 h)")
	durationFlag(fs, &wf.duration, "duration", 0, "stop after this `span` of time (0: until Ctrl-C)")
	fs.StringVar(&wf.record, "record", "", "also save every batch read into `file`, one Lambda event per line, for `hotkeys replay file`")
	wf.aws.register(fs)
	if err := o.parse(fs, args); err != nil {
		return err
	}
	if err := wf.check(o.partitionKey); err != nil {
		return err
	}
	if wf.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wf.duration)
		defer cancel()
	}
	reader, source, err := wf.open(ctx, o)
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
	fmt.Fprintf(stderr, "hotkeys watch: reading %s (partition key %q%s) from %s; Ctrl-C to stop\n", source, o.partitionKey, indexNote(o.indexDefs), wf.from)
	err = watchLoop(ctx, watchReader(reader), p, recorder{rec}, stderr, watchClock)
	if rec != nil {
		if cerr := rec.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--record %s: %w", wf.record, cerr)
		}
	}
	return err
}

// open loads the AWS configuration, finds the stream (and the key schema,
// unless given) and opens a reader of its shards; it says which stream.
func (wf *watchFlags) open(ctx context.Context, o *options) (streamReader, string, error) {
	awsCfg, err := wf.aws.load(ctx, "watch")
	if err != nil {
		return nil, "", err
	}
	ddb := dynamodb.NewFromConfig(awsCfg)
	if wf.kinesisARN != "" {
		r, err := wf.kinesisReader(ctx, awsCfg, ddb, o)
		return r, wf.kinesisARN, err
	}
	if err := wf.resolve(ctx, ddb, o); err != nil {
		return nil, "", err
	}
	scfg := streams.DefaultConfig()
	scfg.From = streams.StartPosition(wf.from)
	scfg.StreamARN = wf.streamARN
	if err := scfg.Validate(); err != nil {
		return nil, "", usageError{err}
	}
	reader, err := streams.NewReader(dynamodbstreams.NewFromConfig(awsCfg), scfg)
	if err != nil {
		return nil, "", usageError{err}
	}
	return reader, wf.streamARN, nil
}

// kinesisReader is the reader of --kinesis-stream: the key schema comes
// from --table's DescribeTable when the flags leave it open.
func (wf *watchFlags) kinesisReader(ctx context.Context, awsCfg aws.Config, ddb keyschema.DescribeTableAPI, o *options) (streamReader, error) {
	if wf.table != "" && o.describeTable == "" && (o.partitionKey == "" || o.indexes != "off") {
		s, err := keyschema.Lookup(ctx, ddb, wf.table)
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		if err := o.useSchema(s); err != nil {
			return nil, err
		}
		wf.described = true
	}
	kcfg := kinesisstream.DefaultConfig()
	kcfg.StreamARN, kcfg.From = wf.kinesisARN, kinesisstream.StartPosition(wf.from)
	if err := kcfg.Validate(); err != nil {
		return nil, usageError{fmt.Errorf("--kinesis-stream: %w", err)}
	}
	r, err := kinesisstream.NewReader(kinesis.NewFromConfig(awsCfg), kcfg)
	if err != nil {
		return nil, usageError{fmt.Errorf("--kinesis-stream: %w", err)}
	}
	return r, nil
}

// check refuses watch's own flags when they cannot work, before any call
// to AWS; partitionKey is --partition-key's.
func (wf *watchFlags) check(partitionKey string) error {
	if wf.record != "" {
		if err := checkWritable(wf.record); err != nil {
			return usageError{fmt.Errorf("--record %s: %w", wf.record, err)}
		}
	}
	switch {
	case wf.kinesisARN != "" && wf.streamARN != "":
		return usageError{fmt.Errorf("watch: give --kinesis-stream or --stream-arn, not both")}
	case wf.kinesisARN != "" && wf.table == "" && partitionKey == "":
		return usageError{fmt.Errorf("watch: --kinesis-stream's records do not say which key is the partition key: give --table NAME (looked up) or --partition-key")}
	case wf.kinesisARN == "" && (wf.table == "") == (wf.streamARN == ""):
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

// streamReader is what watch needs of streams.Reader and
// kinesisstream.Reader.
type streamReader interface {
	Run(ctx context.Context, h streams.Handler) error
}

// What watch takes from the world besides AWS: the clock, and the stream
// reader as built. Tests replace them to fix time and to see each batch
// once it has been analysed.
var (
	watchClock  = time.Now
	watchReader = func(r streamReader) streamReader { return r }
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
