package clientwatch_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/detector"
)

// settableClock reads a time the test sets.
type settableClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *settableClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *settableClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func getItems(t *testing.T, c *dynamodb.Client, n int) {
	t.Helper()
	table := "Users"
	for range n {
		if _, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("user#1")}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueueFullDropsAndCounts: with no one reading the queue, a window
// closed while it is full is dropped, never waited for, and its calls are
// counted in a later report.
func TestQueueFullDropsAndCounts(t *testing.T) {
	srv := instantServer(t)
	clock := &settableClock{t: t0}
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	opts.Queue = 1
	opts.Now = clock.Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(srv.URL, w, srv.Client())
	getItems(t, c, 3) // window 1: queued when window 2 opens
	clock.Set(t0.Add(time.Minute))
	getItems(t, c, 5) // window 2: dropped when window 3 opens, the queue being full
	clock.Set(t0.Add(2 * time.Minute))
	getItems(t, c, 7) // window 3: open
	var got [][2]uint64
	for _, r := range w.Reports() {
		got = append(got, [2]uint64{r.Requests, r.Dropped})
	}
	if diff := cmp.Diff([][2]uint64{{3, 0}, {7, 5}}, got); diff != "" {
		t.Errorf("reports' [requests, dropped] (-want +got):\n%s", diff)
	}
}

// TestRunPublishes: Run publishes closed windows through the alert
// package's adapter, and every open window when it stops.
func TestRunPublishes(t *testing.T) {
	srv := instantServer(t)
	clock := &settableClock{t: t0}
	var out bytes.Buffer
	cfg := alert.DefaultConfig()
	cfg.Mode = alert.ModeEMF
	pub, err := alert.NewPublisher(cfg, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	opts.Publisher = alert.ClientPublisher{Publisher: pub}
	opts.Now = clock.Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(srv.URL, w, srv.Client())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	getItems(t, c, 2)
	clock.Set(t0.Add(time.Minute))
	getItems(t, c, 4)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var requests []string
	for line := range strings.Lines(out.String()) {
		if i := strings.Index(line, `"ClientRequests":`); i >= 0 {
			requests = append(requests, strings.TrimRight(strings.SplitN(line[i+len(`"ClientRequests":`):], ",", 2)[0], "}\n"))
		}
	}
	// Run may publish window 1 before or after the cancellation: either
	// way both windows go out, once.
	if diff := cmp.Diff([]string{"2", "4"}, requests); diff != "" {
		t.Errorf("ClientRequests per EMF line (-want +got):\n%s\n%s", diff, out.String())
	}
}

func TestNewRejects(t *testing.T) {
	for _, opts := range []clientwatch.Options{
		{},
		{Detector: detector.DefaultConfig(), Queue: -1},
		{Detector: detector.DefaultConfig(), PartitionKeys: map[string]string{"Users": ""}},
	} {
		if _, err := clientwatch.New(opts); !errors.Is(err, clientwatch.ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", opts, err)
		}
	}
}

// TestConcurrentCalls: calls from many goroutines are all counted, exactly
// (run it with -race).
func TestConcurrentCalls(t *testing.T) {
	srv := instantServer(t)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"Users": "pk"}
	opts.Now = (&fakeClock{t: t0, step: time.Microsecond}).Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(srv.URL, w, srv.Client())
	var wg sync.WaitGroup
	table := "Users"
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if _, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": s("user#1")}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	reps := w.Reports()
	if len(reps) != 1 || reps[0].Requests != 800 || reps[0].RCU != 400 || len(reps[0].TopKeys) != 1 || reps[0].TopKeys[0].RCU != 400 {
		t.Errorf("reports %+v", reps)
	}
}
