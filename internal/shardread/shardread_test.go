package shardread_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/shardread"
)

func TestRunStopsOnTheFirstFailure(t *testing.T) {
	var got []string
	r := shardread.NewRun(context.Background(), shardread.Handler{
		Batch: func(shard string, payload []byte) error {
			if string(payload) == "bad" {
				return errors.New("handler failed")
			}
			got = append(got, shard+":"+string(payload))
			return nil
		},
	})
	defer r.Stop()
	if err := r.Batch("s1", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := r.Batch("s1", []byte("bad")); !errors.Is(err, shardread.ErrStopped) {
		t.Errorf("a failing Batch: %v, want ErrStopped", err)
	}
	if err := r.Batch("s2", []byte("b")); !errors.Is(err, shardread.ErrStopped) {
		t.Errorf("Batch after the failure: %v, want ErrStopped", err)
	}
	r.Fail(errors.New("later"))
	if err := r.Err(); err == nil || err.Error() != "handler failed" {
		t.Errorf("Err = %v, want the handler's error, the first", err)
	}
	if r.Context().Err() == nil {
		t.Error("the run's context is not done")
	}
	if strings.Join(got, ",") != "s1:a" {
		t.Errorf("delivered %q", got)
	}
	r.Status("no Status set: %d", 1) // must not panic
	r.Lost("s1", errors.New("gone"))
}

func TestPace(t *testing.T) {
	var status []string
	r := shardread.NewRun(context.Background(), shardread.Handler{Status: func(m string) { status = append(status, m) }})
	defer r.Stop()
	p := shardread.Pace{Min: time.Microsecond, Max: 8 * time.Microsecond, Limit: 100}
	delay := p.Min
	for i, want := range []struct {
		n     int
		delay time.Duration
		idle  bool
	}{
		{100, time.Microsecond, false}, // full page: at once, delay kept
		{0, 2 * time.Microsecond, false},
		{0, 4 * time.Microsecond, false},
		{0, 8 * time.Microsecond, true}, // at Max: idle
		{0, 8 * time.Microsecond, true},
		{5, 8 * time.Microsecond, false}, // records: the caller resets delay
	} {
		var idle bool
		delay, idle = p.Pause(r, want.n, delay)
		if delay != want.delay || idle != want.idle {
			t.Errorf("step %d: Pause(%d) = %v, %v; want %v, %v", i, want.n, delay, idle, want.delay, want.idle)
		}
	}
	for range 5 {
		p.Retry(r, "shard-1", "GetRecords", errors.New("throttled"))
	}
	want := []string{"(1 in a row), retrying in 1µs", "(2 in a row), retrying in 2µs", "(4 in a row), retrying in 8µs"}
	if len(status) != len(want) {
		t.Fatalf("status %q: want lines at failures 1, 2 and 4", status)
	}
	for i, w := range want {
		if !strings.Contains(status[i], "shard shard-1: GetRecords failed "+w+": throttled") {
			t.Errorf("status[%d] = %q, want %q", i, status[i], w)
		}
	}
	p.Succeeded()
	p.Retry(r, "shard-1", "GetRecords", errors.New("again"))
	if !strings.Contains(status[len(status)-1], "(1 in a row)") {
		t.Errorf("after Succeeded: %q", status[len(status)-1])
	}
}

func TestTally(t *testing.T) {
	for _, tc := range []struct {
		t    shardread.Tally
		want string
	}{
		{shardread.Tally{Open: 1, Reading: 1}, "1 shard open, 0 closed: reading 1, 0 finished"},
		{shardread.Tally{Open: 3, Closed: 2, Reading: 3, Idle: 2, IdlePoll: 2 * time.Second, Waiting: 1, WaitingFor: "their parents", Finished: 1, Note: "the stream is disabled"},
			"3 shards open, 2 closed: reading 3 (2 idle, polled every 2s), 1 waiting for their parents, 1 finished; the stream is disabled"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
