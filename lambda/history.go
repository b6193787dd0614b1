package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/report"
)

// MetricHistoryWriteErrors counts windows whose summary could not be
// stored in the history table. It goes out as an EMF line (no API call, no
// permission), and only when it happens.
const MetricHistoryWriteErrors = "HistoryWriteErrors"

// historyStore writes each closed tumbling window's summary to the history
// table (HOTKEYS_HISTORY_TABLE): the table's, and each global secondary
// index's that the window's records wrote. It never fails the batch: a
// write that still fails after its retries is logged and counted, and the
// window's metrics are published all the same.
type historyStore struct {
	// table spreads the items over its write shards
	// (HOTKEYS_HISTORY_WRITE_SHARDS) and keeps them its retention
	// (HOTKEYS_HISTORY_RETENTION_DAYS).
	table     *store.Table
	namespace string
	emf       io.Writer // where the HistoryWriteErrors EMF line goes (stdout)
	log       *slog.Logger
	now       func() time.Time
	// attempts and firstDelay bound the retries; each waits twice the
	// last, and none starts unless the deadline leaves reserve after it.
	attempts   int
	firstDelay time.Duration
	reserve    time.Duration
	// spread delays a final invoke's first write by store.WriteDelay of
	// its shard (HOTKEYS_HISTORY_WRITE_SPREAD), so that the shards'
	// writes, which all come when a window closes, do not land in the
	// same second.
	spread     time.Duration
	sleep      func(context.Context, time.Duration) // waits, or less when ctx ends
	delayedFor string                               // the shard and window last delayed for
}

// newHistoryStore returns the history store c configures, writing through
// api: nil when no table is set.
func newHistoryStore(c historyConfig, api store.API, namespace string, log *slog.Logger) (*historyStore, error) {
	if c.Table == "" {
		return nil, nil
	}
	table, err := c.Open(api)
	if err != nil {
		return nil, err
	}
	return &historyStore{table: table, namespace: namespace, emf: os.Stdout, log: log, now: time.Now,
		attempts: 5, firstDelay: 100 * time.Millisecond, reserve: 2 * time.Second, spread: c.spread, sleep: sleepCtx}, nil
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// delay waits, once per shard and window, the shard's share of the spread:
// never so long that less than twice the reserve of the deadline would be
// left for the writes (the batch must end in time), and not at all when
// nothing is left to spare.
func (s *historyStore) delay(ctx context.Context, shard string, start time.Time) {
	key := shard + "@" + start.Format(time.RFC3339)
	if s.spread <= 0 || s.delayedFor == key {
		return
	}
	s.delayedFor = key
	d := store.WriteDelay(shard, s.spread)
	if deadline, ok := ctx.Deadline(); ok {
		d = min(d, deadline.Sub(s.now())-2*s.reserve)
	}
	if d > 0 {
		s.sleep(ctx, d)
	}
}

// errNoTime: what is left of the invocation's deadline is its reserve.
var errNoTime = errors.New("too close to the invocation's deadline to start a write")

// write stores the window's summary; it returns whether it did. It starts
// no write within the reserve of the deadline: a window with many indexes
// has as many summaries, and the batch must end in time whatever they do.
func (s *historyStore) write(ctx context.Context, w *detector.Window, rep report.Report, shard string) bool {
	hll, err := w.AppendDistinct(nil)
	if deadline, ok := ctx.Deadline(); err == nil && (ctx.Err() != nil || (ok && deadline.Sub(s.now()) < s.reserve)) {
		err = errNoTime
	}
	if err == nil {
		s.delay(ctx, shard, rep.Start)
		sum := history.FromReport(rep, shard, hll)
		delay := s.firstDelay
		for attempt := 1; ; attempt++ {
			// The item's key is the window's start, table and shard: a
			// redelivered final invoke puts the same item again.
			if err = s.table.Put(ctx, sum); err == nil {
				return true
			}
			deadline, ok := ctx.Deadline()
			if attempt >= s.attempts || ctx.Err() != nil || (ok && deadline.Sub(s.now()) < delay+s.reserve) {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
			delay *= 2
		}
	}
	s.log.Error("history: the window's summary could not be stored; its metrics are published all the same",
		"error", err.Error(), "history_table", s.table.Name(), "table", rep.Table, "index", rep.Index, "shard", shard, "window_start", rep.Start.Format(time.RFC3339))
	s.emf.Write(alert.AppendEMFCount(nil, s.namespace, rep.Start, alert.DimensionTableName, rep.Table, MetricHistoryWriteErrors, 1))
	return false
}
