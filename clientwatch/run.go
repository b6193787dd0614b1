package clientwatch

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/report"
)

// What runs off the request path: Run and Reports build the closed
// windows' reports and hand them to the Publisher; Failures counts what
// went wrong there.

// Run publishes the closed windows' reports until ctx ends, closing quiet
// windows every second; then it closes and publishes every open window and
// returns. Without a Publisher the reports wait for Reports.
func (w *Watcher) Run(ctx context.Context) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	if w.hot != nil {
		// Hot keys go to OnHotKey as they come, apart from the reports,
		// which a slow Publisher may hold up; those still queued when ctx
		// ends are delivered before Run returns.
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.hot.deliver(ctx, w.log)
		}()
		defer func() { <-done }()
	}
	for {
		select {
		case cw := <-w.queue:
			w.deliver(ctx, []report.ClientReport{cw.Report(w.cfg)})
		case <-tick.C:
			w.Flush(w.now())
		case <-ctx.Done():
			for _, r := range w.closeAll() {
				w.deliver(context.WithoutCancel(ctx), []report.ClientReport{r})
			}
			return nil
		}
	}
}

// Reports closes every open window, builds the report of each closed one
// (oldest first), and returns them along with those Run kept for want of a
// Publisher. It is for tests, short programs and shutdown.
func (w *Watcher) Reports() []report.ClientReport {
	reps := w.closeAll()
	w.doneMu.Lock()
	kept := w.done
	w.done = nil
	w.doneMu.Unlock()
	return sortReports(append(kept, reps...))
}

func (w *Watcher) closeAll() []report.ClientReport {
	w.mu.Lock()
	var open []*clientwindow.Window
	for k, cw := range w.windows {
		open = append(open, cw)
		delete(w.windows, k)
		if w.hot != nil {
			w.hot.forget(k)
		}
	}
	w.gen++
	w.mu.Unlock()
	var reps []report.ClientReport
	for {
		select {
		case cw := <-w.queue:
			reps = append(reps, cw.Report(w.cfg))
			continue
		default:
		}
		break
	}
	for _, cw := range open {
		reps = append(reps, cw.Report(w.cfg))
	}
	reps = sortReports(reps)
	if len(reps) > 0 {
		// Counts that found no window to carry them yet go in the last.
		reps[len(reps)-1].Dropped += w.dropped.Swap(0)
		reps[len(reps)-1].InternalErrors += w.internal.Swap(0)
	}
	return reps
}

func (w *Watcher) deliver(ctx context.Context, reps []report.ClientReport) {
	if w.publisher == nil {
		w.doneMu.Lock()
		w.done = append(w.done, reps...)
		if n := len(w.done) - maxKept; n > 0 {
			// Nobody is reading them: keep the newest, count the rest.
			for _, r := range w.done[:n] {
				w.dropped.Add(r.Requests + r.Dropped)
			}
			w.done = slices.Delete(w.done, 0, n)
		}
		w.doneMu.Unlock()
		return
	}
	if err := w.publish(ctx, reps); err != nil {
		// Nothing here may reach a caller's call: the logger hears it.
		w.publishFailed.Add(uint64(len(reps)))
		w.log.LogAttrs(ctx, slog.LevelWarn, "clientwatch: publishing a window's report failed",
			slog.String("table", reps[0].Table), slog.String("index", reps[0].Index), slog.Time("start", reps[0].Start), slog.Any("error", err))
	}
}

// Failures counts what went wrong off the request path since New, beside
// what the Logger heard: for an application's health check or a metric of
// its own. None of it ever reached a caller's call.
type Failures struct {
	DescribeTable uint64 // DescribeTable calls that failed (a table's calls stay unattributed meanwhile)
	Publish       uint64 // reports the Publisher refused, or panicked on: lost
	PastCap       uint64 // calls on a table past MaxTables or MaxMemory, counted in OtherTables
	// HotKeysDropped counts announcements for OnHotKey dropped: its queue
	// was full, or a window had more hot keys than it keeps.
	HotKeysDropped uint64
}

// Failures returns the counts so far.
func (w *Watcher) Failures() Failures {
	f := Failures{DescribeTable: w.describeFailed.Load(), Publish: w.publishFailed.Load(), PastCap: w.pastCap.Load()}
	if w.hot != nil {
		f.HotKeysDropped = w.hot.lost.Load()
	}
	return f
}

// publish calls the Publisher, a panic in it turned into an error.
func (w *Watcher) publish(ctx context.Context, reps []report.ClientReport) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("clientwatch: the publisher panicked: %v", r)
		}
	}()
	return w.publisher.Publish(ctx, reps)
}

func sortReports(reps []report.ClientReport) []report.ClientReport {
	slices.SortStableFunc(reps, func(a, b report.ClientReport) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		switch {
		case a.Table < b.Table:
			return -1
		case a.Table > b.Table:
			return 1
		case a.Index < b.Index:
			return -1
		case a.Index > b.Index:
			return 1
		}
		return 0
	})
	return reps
}
