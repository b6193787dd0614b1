package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
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
// write that fails (after the client's retries, within its call's cap) is
// logged and counted, and the window's metrics are published all the same.
type historyStore struct {
	// table spreads the items over its write shards
	// (HOTKEYS_HISTORY_WRITE_SHARDS) and keeps them its retention
	// (HOTKEYS_HISTORY_RETENTION_DAYS).
	table     *store.Table
	namespace string
	emf       io.Writer // where the HistoryWriteErrors EMF line goes (stdout)
	log       *slog.Logger
	// spread delays a final invoke's first write by store.WriteDelay of
	// its shard (HOTKEYS_HISTORY_WRITE_SPREAD), so that the shards'
	// writes, which all come when a window closes, do not land in the
	// same second.
	spread     time.Duration
	delayedFor string // the shard and window last delayed for
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
	return &historyStore{table: table, namespace: namespace, emf: os.Stdout, log: log, spread: c.spread}, nil
}

// delay waits, once per shard and window, the shard's share of the
// spread, out of the budget (budget.wait: the calls after it keep their
// time).
func (s *historyStore) delay(ctx context.Context, b *budget, shard string, start time.Time) {
	key := shard + "@" + start.Format(time.RFC3339)
	if s.spread <= 0 || s.delayedFor == key {
		return
	}
	s.delayedFor = key
	b.wait(ctx, store.WriteDelay(shard, s.spread))
}

// store writes the summaries of a final batch's windows (wins, the
// table's first, with their reports), all at once, each under its own
// deadline, as batch stored them (store.Table.PutOnce), leaving out those
// the container knows it stored (done). It returns whether the table's
// window was already stored by this very batch: the batch is delivered
// again, and an earlier delivery stored it, and published it first.
func (s *historyStore) store(ctx context.Context, b *budget, wins []*detector.Window, reps []report.Report, shard string, batch uint64, done *recentIDs) (again bool) {
	s.delay(ctx, b, shard, reps[0].Start)
	id := fmt.Sprintf("%016x", batch)
	type outcome struct {
		stored bool
		err    error
	}
	out := make([]outcome, len(wins))
	var wg sync.WaitGroup
	for i, w := range wins {
		if done.has(storedID(batch, i)) {
			continue
		}
		wg.Go(func() { out[i].stored, out[i].err = s.write(ctx, *b, w, reps[i], shard, id) })
	}
	wg.Wait()
	for i := range wins {
		if done.has(storedID(batch, i)) {
			continue
		}
		if out[i].err != nil {
			s.failed(out[i].err, reps[i], shard)
			continue
		}
		done.add(storedID(batch, i))
		if i == 0 && !out[i].stored {
			again = true
		}
	}
	return again
}

// write stores the window's summary as batch stores it, under its call's
// deadline; stored is false when batch had stored it already.
func (s *historyStore) write(ctx context.Context, b budget, w *detector.Window, rep report.Report, shard, batch string) (stored bool, err error) {
	hll, err := w.AppendDistinct(nil)
	if err != nil {
		return false, err
	}
	ctx, cancel := b.call(ctx, callHistoryPut)
	defer cancel()
	return s.table.PutOnce(ctx, history.FromReport(rep, shard, hll), batch)
}

// failed logs and counts a window whose summary was not stored.
func (s *historyStore) failed(err error, rep report.Report, shard string) {
	s.log.Error("history: the window's summary could not be stored; its metrics are published all the same",
		"error", err.Error(), "error_code", alert.ErrorCode(err), "history_table", s.table.Name(), "table", rep.Table, "index", rep.Index,
		"shard", shard, "window_start", rep.Start.Format(time.RFC3339))
	s.emf.Write(alert.AppendEMFCount(nil, s.namespace, rep.Start, alert.DimensionTableName, rep.Table, MetricHistoryWriteErrors, 1))
}
