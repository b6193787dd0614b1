// Package rollup is the history table's scheduled job: it merges every
// stream shard's stored window of a closed window into one rollup per
// table and per global secondary index, and each closed hour's rollups
// into one per hour, so that `hotkeys history` reads a day at 1,000 stream
// shards as 1,440 items instead of 1.44 million.
//
// A rollup is a merged step (history.Merger), kept to its heaviest keys
// and shards (history.Summary.Compact) and stored as one item of up to
// 400 KB (store.Table.PutRollup). Its bounds stay honest: every key it
// leaves out is under its other_keys_wcu_upper.
//
// Windows close late: Lambda delivers a window's final invoke after the
// window ends, a function that falls behind its stream delivers it later
// (records up to an hour old are still analysed: the template's
// MaximumRecordAgeInSeconds), and EventBridge Scheduler fires up to 59 s
// after the scheduled minute. So each window is rolled up twice:
//
//   - first, one Grace (60 s) after it ends: a rollup marked not settled,
//     which a window stored later is missing;
//   - again, Settle (70 min) after it ends, when every window it covers
//     that will ever be stored is: the rollup is replaced if it merged more
//     windows, and marked settled. The hour's rollup is made once its last
//     window is settled, from settled rollups only (a window rollup that
//     is missing or not settled then is rolled up there and then).
//
// Readers see which rollups are settled (store.Coverage), and
// `hotkeys history` says so. Each run works on the times its scheduled
// time fixes, not on the clock: a retried or repeated run does the same
// work and stores the same items (PutRollup never replaces a rollup by one
// of fewer windows).
package rollup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
)

// Grace and Settle: how long after a window's end it is first rolled up,
// and rolled up again for good. Settle covers the hour for which the
// template's event source mapping still delivers a record
// (MaximumRecordAgeInSeconds 3600), and ten minutes for the final invoke
// that follows.
const (
	Grace  = time.Minute
	Settle = 70 * time.Minute
)

// Config is the job's configuration beside its table.
type Config struct {
	// Window is the length of the stored windows (HOTKEYS_WINDOW); it
	// must divide an hour. A rollup covers the shortest whole number of
	// windows that is a whole number of minutes.
	Window time.Duration
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("rollup: invalid configuration")

// Job is the rollup job.
type Job struct {
	table  *store.Table
	cfg    Config
	length time.Duration // of a window rollup
	shards *store.Reader
	exact  *store.Reader // consistent reads: of what this run just wrote
	log    *slog.Logger
	now    func() time.Time
}

// New returns the job of table, which it reads under the table's write
// shards (those the stream function writes under) and whose rollups live
// the table's retention.
func New(table *store.Table, cfg Config, log *slog.Logger, now func() time.Time) (*Job, error) {
	if cfg.Window < time.Second || cfg.Window%time.Second != 0 || time.Hour%cfg.Window != 0 {
		return nil, fmt.Errorf("%w: window %s: rollups need whole seconds that divide an hour (60s, 5m, ...)", ErrConfig, cfg.Window)
	}
	if table.Retention() <= 0 {
		return nil, fmt.Errorf("%w: retention %s", ErrConfig, table.Retention())
	}
	exact := table.Reader(0)
	exact.ConsistentRead()
	return &Job{table: table, cfg: cfg, length: rollupLength(cfg.Window), shards: table.Reader(0), exact: exact, log: log, now: now}, nil
}

// rollupLength is the least common multiple of window and a minute: it
// divides an hour when window does.
func rollupLength(window time.Duration) time.Duration {
	a, b := int64(window/time.Second), int64(60)
	for b != 0 {
		a, b = b, a%b
	}
	return time.Duration(int64(window/time.Second)*60/a) * time.Second
}

// Result is what a run did.
type Result struct {
	// First, Settled and Hour are the starts of the window rolled up
	// first, of the window settled, and of the hour rolled up; zero when
	// the run had none to do.
	First, Settled, Hour time.Time
	// Rollups counts the rollups stored, Sources the shard windows they
	// merged, Skipped the items that could not be used.
	Rollups, Sources, Skipped int
}

// Run does the work of the run scheduled at scheduled (truncated to the
// minute): it rolls up the window that ended Grace before, settles the
// one that ended Settle before and, when that one ends an hour, rolls up
// the hour. It does all it can and returns every error, joined: a run
// that fails is run again by Lambda (asynchronous invocations are retried)
// and redoes the same work.
func (j *Job) Run(ctx context.Context, scheduled time.Time) (Result, error) {
	t := scheduled.UTC().Truncate(time.Minute)
	var res Result
	var errs []error
	if end := t.Add(-Grace); end.Unix()%int64(j.length/time.Second) == 0 {
		res.First = end.Add(-j.length)
		errs = append(errs, j.rollWindow(ctx, res.First, false, &res))
	}
	if end := t.Add(-Settle); end.Unix()%int64(j.length/time.Second) == 0 {
		res.Settled = end.Add(-j.length)
		err := j.rollWindow(ctx, res.Settled, true, &res)
		errs = append(errs, err)
		if end.Unix()%3600 == 0 && err == nil {
			res.Hour = end.Add(-time.Hour)
			errs = append(errs, j.rollHour(ctx, res.Hour, &res))
		}
	}
	err := errors.Join(errs...)
	j.log.Info("rollup run", "scheduled", t.Format(time.RFC3339), "first", stamp(res.First), "settled", stamp(res.Settled), "hour", stamp(res.Hour),
		"rollups", res.Rollups, "sources", res.Sources, "skipped", res.Skipped, "ok", err == nil)
	return res, err
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// rollWindow rolls up the window rollup starting at start: every shard's
// window in it, merged per table and index, then marks it rolled up.
func (j *Job) rollWindow(ctx context.Context, start time.Time, settled bool, res *Result) error {
	end := start.Add(j.length)
	mergers := newMergers(j.length, j.skip(res))
	err := j.shards.Shards(ctx, start, end, mergers.add, j.skip(res))
	if err != nil {
		return fmt.Errorf("rollup: read the windows of %s: %w", start.Format(time.RFC3339), err)
	}
	if err := j.put(ctx, store.Windows, mergers, settled, res); err != nil {
		return err
	}
	return j.table.MarkWindow(ctx, start, j.length, settled)
}

// rollHour rolls up the hour starting at hour from its window rollups,
// once they are all settled: a window whose rollup is missing or not
// settled (its run failed, or was never scheduled) is settled first.
func (j *Job) rollHour(ctx context.Context, hour time.Time, res *Result) error {
	cov, err := j.exact.Coverage(ctx, hour, hour.Add(time.Hour))
	if err != nil {
		return fmt.Errorf("rollup: read the coverage of %s: %w", hour.Format(time.RFC3339), err)
	}
	for w := hour; w.Before(hour.Add(time.Hour)); w = w.Add(j.length) {
		if !cov.Windows[w.Unix()] {
			if err := j.rollWindow(ctx, w, true, res); err != nil {
				return err
			}
		}
	}
	mergers := newMergers(time.Hour, j.skip(res))
	if err := j.exact.Rollups(ctx, store.Windows, hour, hour.Add(time.Hour), mergers.add, j.skip(res)); err != nil {
		return fmt.Errorf("rollup: read the window rollups of %s: %w", hour.Format(time.RFC3339), err)
	}
	if err := j.put(ctx, store.Hours, mergers, true, res); err != nil {
		return err
	}
	return j.table.MarkHour(ctx, hour)
}

// put compacts and stores the mergers' rollups.
func (j *Job) put(ctx context.Context, level store.Level, m *mergers, settled bool, res *Result) error {
	for _, id := range m.order {
		for _, s := range m.byID[id].Flush(time.Unix(math.MaxInt64/2, 0)) {
			s.Compact(history.RollupKeys, history.RollupShards)
			if _, err := j.table.PutRollup(ctx, level, s, j.now(), settled); err != nil {
				return err
			}
			res.Rollups++
			res.Sources += int(s.Sources)
		}
	}
	return nil
}

func (j *Job) skip(res *Result) func(key string, err error) {
	return func(key string, err error) {
		res.Skipped++
		j.log.Warn("rollup: skipped an item it cannot use", "key", key, "error", err.Error())
	}
}

// mergers merges summaries into one Merger per table and index.
type mergers struct {
	step  time.Duration
	byID  map[source]*history.Merger
	order []source
	skip  func(key string, err error)
}

type source struct{ table, index string }

func newMergers(step time.Duration, skip func(key string, err error)) *mergers {
	return &mergers{step: step, byID: map[source]*history.Merger{}, skip: skip}
}

// add merges s in. One it cannot merge is skipped with the reason: a
// window longer than the rollup (stored before HOTKEYS_WINDOW was
// shortened) cannot be split; `hotkeys history --source shards` with a
// step of its length still reads it.
func (m *mergers) add(s *history.Summary) error {
	id := source{s.Table, s.Index}
	mg := m.byID[id]
	if mg == nil {
		mg, _ = history.NewMerger(s.Table, s.Index, m.step, 0) // whole seconds, checked by New
		m.byID[id] = mg
		m.order = append(m.order, id)
	}
	if err := mg.Add(s); err != nil {
		m.skip(fmt.Sprintf("%s shard %s %s", history.Source(s.Table, s.Index), s.Shard, s.Start.Format(time.RFC3339)), err)
	}
	return nil
}
