package shardread

import (
	"fmt"
	"time"
)

// Pace paces one shard's reads: after a page, and after a failed call.
// The zero value is not usable: set Min, Max and Limit.
type Pace struct {
	Min, Max time.Duration // the pause after a page with records; the longest pause
	Limit    int           // a page this full is followed at once
	fails    int           // consecutive retried errors
}

// Pause waits before the next read after a page of n records: not at all
// when more is waiting, Min after records, and after an empty page delay,
// doubled each time up to Max. It returns the delay after the next empty
// page, and whether the shard now counts as idle (its pause is Max).
func (p *Pace) Pause(r *Run, n int, delay time.Duration) (next time.Duration, idle bool) {
	switch {
	case n >= p.Limit:
		// More is waiting: go on at once.
	case n > 0:
		r.Sleep(p.Min)
	default:
		r.Sleep(delay)
		delay = min(2*delay, p.Max)
		return delay, delay == p.Max
	}
	return delay, false
}

// Succeeded ends a run of failures.
func (p *Pace) Succeeded() { p.fails = 0 }

// Retry backs off after an error worth retrying, from Min doubling up to
// Max, telling Status on the first of a run of failures and then at each
// power of two.
func (p *Pace) Retry(r *Run, shardID, op string, err error) {
	p.fails++
	d := min(p.Min<<min(p.fails-1, 16), p.Max)
	if p.fails&(p.fails-1) == 0 {
		r.Status("shard %s: %s failed (%d in a row), retrying in %v: %v", shardID, op, p.fails, d, err)
	}
	r.Sleep(d)
}

// Tally counts a stream's shards for the status line.
type Tally struct {
	Open, Closed           int
	Reading, Idle, Waiting int
	Finished               int
	IdlePoll               time.Duration // how often an idle shard is polled
	WaitingFor             string        // "their parent", "their parents"
	Note                   string        // appended after "; ", if set
}

// String is the status line: "3 shards open, 1 closed: reading 3 (1 idle,
// polled every 2s), 1 finished".
func (t Tally) String() string {
	msg := fmt.Sprintf("%s open, %d closed: reading %d", Plural(t.Open, "shard"), t.Closed, t.Reading)
	if t.Idle > 0 {
		msg += fmt.Sprintf(" (%d idle, polled every %v)", t.Idle, t.IdlePoll)
	}
	if t.Waiting > 0 {
		msg += fmt.Sprintf(", %d waiting for %s", t.Waiting, t.WaitingFor)
	}
	msg += fmt.Sprintf(", %d finished", t.Finished)
	if t.Note != "" {
		msg += "; " + t.Note
	}
	return msg
}

// Plural is "1 shard", "2 shards".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
