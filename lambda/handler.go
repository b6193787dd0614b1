package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// schemaLookup is what the handler needs of keyschema.Cache.
type schemaLookup interface {
	Lookup(ctx context.Context, table string) (keyschema.Schema, error)
}

// publisher is what the handler needs of alert.Publisher.
type publisher interface {
	Publish(ctx context.Context, reps []report.Report) (alert.Result, error)
	PublishOnsets(ctx context.Context, onsets []report.Onset) (alert.Result, error)
}

// feeder is what the handler needs of detector.Feed.
type feeder interface {
	Decode(payload []byte, sink detector.Sink, h detector.Hooks) (detector.Counts, error)
	SetPartitionKey(name string)
}

// tableFinder is what the handler needs of the record.Decoder it probes
// batches with.
type tableFinder interface {
	FirstTable(payload []byte) string
}

// handler is the function. It implements lambda.Handler on the raw payload,
// because decoding through aws-lambda-go's typed events is 20× slower and
// fails a whole batch on one odd attribute.
type handler struct {
	cfg     detector.Config
	probe   tableFinder // finds a batch's table without decoding it
	feed    feeder
	schemas schemaLookup
	pub     publisher
	log     *slog.Logger
	now     func() time.Time

	// Plain (non-tumbling) batches: windows kept in the warm container, and
	// the event ids recently counted, so a redelivered batch counts once.
	det  *detector.Detector
	seen *detector.RecentIDs

	// history stores each closed tumbling window's summary; nil when
	// HOTKEYS_HISTORY_TABLE is empty.
	history *historyStore

	// indexes keeps the decoder's global secondary indexes in step with
	// the table's (HOTKEYS_INDEXES).
	indexes *indexSource

	// notify sends each onset to an SNS topic; nil when
	// HOTKEYS_NOTIFY_TOPIC_ARN is empty.
	notify *notifier

	// done is what this container has published (once.go), so that a
	// batch delivered again publishes nothing twice.
	done *recentIDs

	// coldStart is the time the container's start took (the secret's
	// read included), charged to its first invocation's budget.
	coldStart time.Duration
}

// newHandler returns the function.
func newHandler(cfg detector.Config, partitionKey string, mode indexMode, schemas schemaLookup, pub publisher, log *slog.Logger, now func() time.Time) (*handler, error) {
	dec, err := record.NewDecoder(record.Config{PartitionKey: partitionKey})
	if err != nil {
		return nil, err
	}
	probe, err := record.NewDecoder(record.Config{PartitionKey: partitionKey})
	if err != nil {
		return nil, err
	}
	det, err := detector.New(cfg)
	if err != nil {
		return nil, err
	}
	return &handler{cfg: cfg, probe: probe, feed: detector.NewFeed(dec, now), schemas: schemas, pub: pub, log: log, now: now,
		det: det, seen: detector.NewRecentIDs(1 << 16), done: newRecentIDs(doneMemory),
		indexes: &indexSource{mode: mode, schemas: schemas, dec: dec, log: log, now: now, emf: io.Discard}}, nil
}

// Invoke handles one batch: probe, decode and count, then close and
// publish. Every step that can fail is here.
//
// It fails the batch only when it cannot count it as it should: the
// key-schema lookup a table with a sort key needs failed (without the
// partition key no record can be counted; Lambda retries the batch, then
// hands its place in the stream to the dead-letter queue, whose alarm
// fires, so it can be replayed once the cause is fixed), or, with
// HOTKEYS_INDEXES=on, the index lookup failed for a reason that may pass.
// A bad record, a bad state, a bug of ours or a CloudWatch outage never
// blocks the shard.
//
// Every call out (DescribeTable, PutMetricData, the history's PutItem, SNS)
// takes its deadline from the invocation's budget (budget.go), so that the
// invocation ends within a fifth of the function's timeout whatever its
// dependencies do.
func (h *handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	// The wall clock: deadlines are, whatever clock the detector is given.
	b := newBudget(ctx, time.Now(), h.coldStart, time.Now)
	h.coldStart = 0

	// Probe: the batch's table, read without decoding a record, so that
	// the decoder has the table's indexes before its first record.
	table := h.firstTable(payload)
	if err := h.indexes.prepare(ctx, &b, table); err != nil {
		return nil, err
	}

	// Decode and count: the Feed hands the event to inv, which chooses its
	// sink (a tumbling window's set restored from the state, or the
	// container's detector); the Feed then counts each record into it.
	inv := h.newInvocation(table)
	err := inv.decode(payload)
	var amb *record.AmbiguousKeyError
	if errors.As(err, &amb) {
		// The table has a sort key and HOTKEYS_PARTITION_KEY is not set:
		// ask DynamoDB once per container which attribute is the hash
		// key, and count the batch afresh.
		if err := h.lookUpPartitionKey(ctx, &b, amb.Table); err != nil {
			return nil, err
		}
		inv = h.newInvocation(table)
		err = inv.decode(payload)
	}
	if err != nil {
		// What the decoder could not read is counted all the same.
		inv.countUnread(payload, err)
	}

	// Announce, close and publish: the keys that crossed the critical
	// rate in what this batch counted are announced before the batch
	// returns, whatever the window; a tumbling window goes back to Lambda
	// in the state, or is stored and published on its last batch; a plain
	// batch closes the container's windows its records and the clock have
	// passed.
	return inv.sink.finish(ctx, &b)
}

// firstTable returns the table the batch's first eventSourceARN names (""
// when none does), reading no record: the probe skips everything else. A
// panic in it (a bug of ours) is logged and leaves the indexes as they
// are; the batch's own decoding then meets the same bug, recovered and
// counted there.
func (h *handler) firstTable(payload []byte) (table string) {
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("internal error: a bug in hotkeys; the batch's table was not found, its indexes stay as they were",
				"error", fmt.Sprint(p), "stack", string(debug.Stack()))
			table = ""
		}
	}()
	return h.probe.FirstTable(payload)
}

// lookUpPartitionKey asks DynamoDB which of table's key attributes is the
// partition key, and decodes with it from now on.
func (h *handler) lookUpPartitionKey(ctx context.Context, b *budget, table string) error {
	ctx, cancel := b.call(ctx, callDescribeTable)
	defer cancel()
	s, err := h.schemas.Lookup(ctx, table)
	if err != nil {
		return fmt.Errorf("hotkeys: %w (set HOTKEYS_PARTITION_KEY to avoid the lookup)", err)
	}
	h.feed.SetPartitionKey(s.PartitionKey)
	h.log.Info("partition key looked up", "table", table, "partition_key", s.PartitionKey)
	return nil
}
