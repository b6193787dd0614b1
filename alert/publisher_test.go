package alert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakecloudwatch"
	"github.com/hotkeys-dev/hotkeys/report"
)

func newAPIPublisher(t *testing.T, cfg Config, srv *fakecloudwatch.Server, attempts int) (*Publisher, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	p, err := newTestPublisher(cfg, srv.Client(fakecloudwatch.FastRetries(attempts)), out)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

func noRejections(t *testing.T, srv *fakecloudwatch.Server) {
	t.Helper()
	if r := srv.Rejected(); len(r) > 0 {
		t.Fatalf("CloudWatch would have rejected %d requests, first: %s", len(r), r[0])
	}
}

// sameResult compares a Result whole. Errors match when errors.Is says so:
// want.APIError names the error expected, or is cmpopts.AnyError.
func sameResult(t *testing.T, want, got Result) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestPublishAPIWireFormat(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Namespace = "Team/HotKeys"
	p, out := newAPIPublisher(t, cfg, srv, 3)
	start := recentStart()
	reports := []report.Report{sampleReport("Orders", start), sampleReport("Payments", start.Add(-time.Minute))}
	reports[1].WCUIsLowerBound = true
	reports[1].HotKeys = reports[1].HotKeys[1:] // no critical key

	res, err := p.Publish(context.Background(), reports)
	if err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	var want []obs
	for _, r := range reports {
		want = append(want, expectedObs(r, r.HotKeys)...)
	}
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)

	sameResult(t, Result{MetricsSent: len(want), Requests: 1, FindingsLogged: 5}, res)
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if reqs[0].ContentEncoding != "gzip" || reqs[0].Namespace != "Team/HotKeys" {
		t.Errorf("request: encoding %q, namespace %q", reqs[0].ContentEncoding, reqs[0].Namespace)
	}
	for _, d := range srv.Data() {
		if d.StorageResolution != 60 {
			t.Fatalf("%s: StorageResolution %d, want 60", d.MetricName, d.StorageResolution)
		}
		if !d.Timestamp.Equal(start) && !d.Timestamp.Equal(start.Add(-time.Minute)) {
			t.Fatalf("%s: timestamp %v is not its window's start", d.MetricName, d.Timestamp)
		}
	}
	emf, logs := splitOutput(t, out.Bytes())
	if len(emf) != 0 || len(logs) != 5 {
		t.Errorf("%d EMF lines and %d log lines; want 0 and 5", len(emf), len(logs))
	}
}

// Every value published must be one the catalogue declares, with the
// catalogue's unit and dimensions: the template tests rely on it.
func TestPublishedMetricsAreCatalogued(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, _ := newAPIPublisher(t, DefaultConfig(), srv, 1)
	if _, err := p.Publish(context.Background(), []report.Report{sampleReport("Orders", recentStart())}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range srv.Data() {
		i := slices.IndexFunc(Metrics(), func(m MetricDefinition) bool { return m.Name == d.MetricName })
		if i < 0 {
			t.Fatalf("%s is published but not in Metrics()", d.MetricName)
		}
		def := Metrics()[i]
		var names []string
		for _, dim := range d.Dimensions {
			names = append(names, dim.Name)
		}
		if d.Unit != def.Unit || !slices.Equal(names, def.Dimensions) || d.Namespace != DefaultNamespace {
			t.Errorf("%s sent with unit %q dims %v in %q; catalogue says %q %v", d.MetricName, d.Unit, names, d.Namespace, def.Unit, def.Dimensions)
		}
		seen[d.MetricName] = true
	}
	for _, m := range Metrics() {
		if !seen[m.Name] {
			t.Errorf("catalogued metric %s was never published", m.Name)
		}
	}
}

func TestPublishSplitsAtThousandData(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, _ := newAPIPublisher(t, DefaultConfig(), srv, 1)
	start := recentStart()
	var reports []report.Report
	var want []obs
	for i := range 60 { // 21 values each
		r := sampleReport(fmt.Sprintf("Table%03d", i), start)
		reports = append(reports, r)
		want = append(want, expectedObs(r, r.HotKeys)...)
	}
	res, err := p.Publish(context.Background(), reports)
	if err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	reqs := srv.Requests()
	if len(want) <= 1000 || len(want) > 2000 {
		t.Fatalf("the test needs 1001-2000 values, has %d", len(want))
	}
	if len(reqs) != 2 || len(reqs[0].Data) != 1000 || len(reqs[1].Data) != len(want)-1000 {
		t.Fatalf("%d values in %d requests; want %d as 1000 + %d", len(want), len(reqs), len(want), len(want)-1000)
	}
	sameResult(t, Result{MetricsSent: len(want), Requests: 2, FindingsLogged: 3 * len(reports)}, res)
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)
}

func TestPublishSplitsAtOneMegabyte(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Top = MaxTop
	p, _ := newAPIPublisher(t, cfg, srv, 1)
	start := recentStart()
	var reports []report.Report
	var want []obs
	for i := range 3 {
		r := sampleReport(fmt.Sprintf("Table%d", i), start)
		r.HotKeys = nil
		for k := range MaxTop {
			// Keys of 1,000 printable characters: kept as is, and heavy.
			key := fmt.Sprintf("%d-%03d-", i, k) + strings.Repeat("x", 994)
			r.HotKeys = append(r.HotKeys, report.KeyReport{KeyFigures: report.KeyFigures{Key: key, Type: "S", WCU: uint64(10000 - k), Share: 0.001, PeakWCUPerSecond: 150, Severity: report.Warning}})
		}
		reports = append(reports, r)
		want = append(want, expectedObs(r, r.HotKeys)...)
	}
	if _, err := p.Publish(context.Background(), reports); err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	reqs := srv.Requests()
	if len(want) >= maxDatumsPerRequest || len(reqs) < 2 {
		t.Fatalf("%d values in %d requests: the split must come from size, not count", len(want), len(reqs))
	}
	for i, r := range reqs {
		if r.BodyBytes > fakecloudwatch.MaxBodyBytes || r.WireBytes > fakecloudwatch.MaxBodyBytes {
			t.Errorf("request %d: %d bytes of CBOR", i, r.BodyBytes)
		}
		// The size estimate must bound the real encoding, and not by so much
		// that requests are split for nothing.
		est := envelopeBytes
		for _, d := range r.Data {
			g := group{}
			for _, dim := range d.Dimensions {
				g.dims = append(g.dims, dimension{dim.Name, dim.Value})
			}
			est += datumBytes(&g, &value{name: d.MetricName, unit: d.Unit})
		}
		t.Logf("request %d: %d data, %d bytes of CBOR (%d gzipped), estimated %d", i, len(r.Data), r.BodyBytes, r.WireBytes, est)
		if est < r.BodyBytes || float64(est) > 1.25*float64(r.BodyBytes) {
			t.Errorf("request %d: estimated %d bytes for %d real", i, est, r.BodyBytes)
		}
	}
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)
}

func TestPublishTopKeysMostSevereFirst(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Top = 2
	p, out := newAPIPublisher(t, cfg, srv, 1)
	r := sampleReport("Orders", recentStart())
	w := func(key string, wcu uint64, s report.Severity) report.KeyReport {
		return report.KeyReport{KeyFigures: report.KeyFigures{Key: key, Type: "S", WCU: wcu, Share: float64(wcu) / 23456, PeakWCUPerSecond: float64(wcu) / 10, Severity: s}}
	}
	r.HotKeys = []report.KeyReport{w("heavy-warning", 9000, report.Warning), w("light-critical", 5000, report.Critical),
		w("heavy-critical", 8500, report.Critical), w("small-warning", 100, report.Warning)}
	if _, err := p.Publish(context.Background(), []report.Report{r}); err != nil {
		t.Fatal(err)
	}
	sameObs(t, "PutMetricData", apiObs(srv.Data()), expectedObs(r, []report.KeyReport{r.HotKeys[2], r.HotKeys[1]}))
	if _, logs := splitOutput(t, out.Bytes()); len(logs) != 4 {
		t.Errorf("%d findings lines: every flagged key is logged whatever Top is", len(logs))
	}

	srv.Reset()
	cfg.Top = 0
	p, _ = newAPIPublisher(t, cfg, srv, 1)
	if _, err := p.Publish(context.Background(), []report.Report{r}); err != nil {
		t.Fatal(err)
	}
	sameObs(t, "Top 0", apiObs(srv.Data()), expectedObs(r, nil))
}

// When CloudWatch keeps failing, the SDK retries (we do not), then the very
// values the API would have received go out as EMF, and Publish succeeds.
func TestPublishFallsBackToEMF(t *testing.T) {
	start := recentStart()
	reports := []report.Report{sampleReport("Orders", start), sampleReport("Payments", start)}
	var want []obs
	for _, r := range reports {
		want = append(want, expectedObs(r, r.HotKeys)...)
	}
	for _, tc := range []struct {
		name     string
		failure  fakecloudwatch.Failure
		attempts int // HTTP requests the server must see
		code     string
	}{
		{"500 retried by the SDK", fakecloudwatch.InternalError, 3, "InternalServiceFault"},
		{"503", fakecloudwatch.Failure{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable", Message: "down"}, 3, "ServiceUnavailable"},
		{"400 not retried", fakecloudwatch.Failure{Status: http.StatusBadRequest, Code: "InvalidParameterValueException", Message: "no"}, 1, "InvalidParameterValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer()
			defer srv.Close()
			srv.FailAll(tc.failure)
			p, out := newAPIPublisher(t, DefaultConfig(), srv, 3)
			res, err := p.Publish(context.Background(), reports)
			if err != nil {
				t.Fatalf("Publish failed the invocation: %v", err)
			}
			if srv.Attempts() != tc.attempts {
				t.Errorf("server saw %d attempts; want %d", srv.Attempts(), tc.attempts)
			}
			sameResult(t, Result{Requests: 1, MetricsEMF: len(want), FellBackToEMF: true, APIError: cmpopts.AnyError, FindingsLogged: 6}, res)
			if got := ErrorCode(res.APIError); !strings.HasPrefix(got, tc.code) {
				t.Errorf("error code %q, want %q", got, tc.code)
			}
			emf, logs := splitOutput(t, out.Bytes())
			sameObs(t, "EMF fallback", emfObs(emf), want)
			last := logs[len(logs)-1]
			if last["msg"] != MsgPutFailed || last["level"] != "ERROR" || last["emf_fallback"] != true || last["metrics_unsent"] != float64(len(want)) {
				t.Errorf("failure log line %v", last)
			}
			if strings.Contains(fmt.Sprint(last), "OPS_LOG") {
				t.Errorf("failure log line carries key material: %v", last)
			}
		})
	}
}

// CloudWatch failing mid-publish: what was accepted is not repeated, the
// rest goes out as EMF, and together they are exactly the full set.
func TestPublishPartialFallback(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	srv.FailAfter(1, fakecloudwatch.InternalError)
	p, out := newAPIPublisher(t, DefaultConfig(), srv, 2)
	start := recentStart()
	var reports []report.Report
	var want []obs
	for i := range 60 { // 21 values each
		r := sampleReport(fmt.Sprintf("Table%03d", i), start)
		reports = append(reports, r)
		want = append(want, expectedObs(r, r.HotKeys)...)
	}
	res, err := p.Publish(context.Background(), reports)
	if err != nil {
		t.Fatal(err)
	}
	emf, _ := splitOutput(t, out.Bytes())
	api := apiObs(srv.Data())
	sameResult(t, Result{
		MetricsSent: 1000, Requests: 2, MetricsEMF: len(want) - 1000, FellBackToEMF: true,
		APIError: cmpopts.AnyError, FindingsLogged: 3 * len(reports),
	}, res)
	sameObs(t, "API then EMF", append(api, emfObs(emf)...), want)
}

// reserveBounds returns the earliest and latest deadline apiContext can give
// the API, for a caller's deadline d, if it read the clock between before
// and after: the reserve is a fifth of the time left, at most
// maxFallbackReserve and never negative, so it is monotone in the time left.
func reserveBounds(d, before, after time.Time) (lo, hi time.Time) {
	reserve := func(left time.Duration) time.Duration { return max(min(left/5, maxFallbackReserve), 0) }
	return d.Add(-reserve(d.Sub(before))), d.Add(-reserve(d.Sub(after)))
}

// The API's deadline is bracketed by the clock readings around the call, so
// the checks hold however long the call takes.
func TestAPIContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		left time.Duration
	}{
		{"a fifth of a second left", time.Second},
		{"at most 500 ms", time.Hour},
		{"none once the deadline has passed", -time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now()
			parent, cancel := context.WithDeadline(context.Background(), before.Add(tc.left))
			defer cancel()
			ctx, cancel2 := apiContext(parent)
			after := time.Now()
			defer cancel2()
			d, _ := parent.Deadline()
			got, ok := ctx.Deadline()
			if lo, hi := reserveBounds(d, before, after); !ok || got.Before(lo) || got.After(hi) {
				t.Errorf("API deadline %v before the caller's; want between %v and %v", d.Sub(got), d.Sub(hi), d.Sub(lo))
			}
		})
	}
	before := time.Now()
	ctx, cancel := apiContext(context.Background())
	after := time.Now()
	defer cancel()
	if got, ok := ctx.Deadline(); !ok || got.Before(before.Add(defaultAPITimeout)) || got.After(after.Add(defaultAPITimeout)) {
		t.Errorf("without a caller's deadline: API deadline %v, %v; want %v from the call", got, ok, defaultAPITimeout)
	}
}

// deadlineSeen records the deadline of every PutMetricData call's context.
type deadlineSeen struct {
	MetricPutter
	mu        sync.Mutex
	deadlines []time.Time
}

func (d *deadlineSeen) PutMetricData(ctx context.Context, in *cloudwatch.PutMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.PutMetricDataOutput, error) {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.deadlines = append(d.deadlines, dl)
	d.mu.Unlock()
	return d.MetricPutter.PutMetricData(ctx, in, optFns...)
}

// A CloudWatch that hangs must not take the invocation's deadline with it:
// the API is cut off a fifth of the time left before the caller's deadline
// (at most 500 ms), and the values then go out as EMF. The test checks the
// API's deadline and the fallback, not the wall clock at return, which
// would depend on the machine's load.
func TestPublishKeepsToTheDeadline(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	srv.FailAll(fakecloudwatch.Failure{Stall: true})
	out := &syncBuffer{}
	api := &deadlineSeen{MetricPutter: srv.Client()} // the SDK's default retryer
	p, err := newTestPublisher(DefaultConfig(), api, out)
	if err != nil {
		t.Fatal(err)
	}
	r := sampleReport("Orders", recentStart())
	before := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := p.Publish(ctx, []report.Report{r})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	deadline, _ := ctx.Deadline()
	lo, hi := reserveBounds(deadline, before, after)
	if len(api.deadlines) != 1 || api.deadlines[0].Before(lo) || api.deadlines[0].After(hi) {
		t.Errorf("PutMetricData deadlines %v; want one, between %v and %v", api.deadlines, lo, hi)
	}
	want := expectedObs(r, r.HotKeys)
	sameResult(t, Result{Requests: 1, MetricsEMF: len(want), FellBackToEMF: true, APIError: context.DeadlineExceeded, FindingsLogged: 3}, res)
	emf, _ := splitOutput(t, out.Bytes())
	sameObs(t, "EMF fallback", emfObs(emf), want)
}

func TestPublishModes(t *testing.T) {
	r := sampleReport("Orders", recentStart())
	want := expectedObs(r, r.HotKeys)
	for _, tc := range []struct {
		mode          Mode
		fail          bool
		wantAPI       bool
		wantEMF       bool
		wantFellBack  bool
		wantAttempted bool
	}{
		{ModeEMF, false, false, true, false, false},
		{ModeOff, false, false, false, false, false},
		{ModeBoth, false, true, true, false, true},
		{ModeBoth, true, false, true, false, true},
	} {
		t.Run(fmt.Sprintf("%s/fail=%v", tc.mode, tc.fail), func(t *testing.T) {
			srv := newServer()
			defer srv.Close()
			if tc.fail {
				srv.FailAll(fakecloudwatch.InternalError)
			}
			cfg := DefaultConfig()
			cfg.Mode = tc.mode
			p, out := newAPIPublisher(t, cfg, srv, 2)
			res, err := p.Publish(context.Background(), []report.Report{r})
			if err != nil {
				t.Fatal(err)
			}
			emf, logs := splitOutput(t, out.Bytes())
			if tc.wantAPI {
				sameObs(t, "API", apiObs(srv.Data()), want)
			} else if len(srv.Data()) != 0 {
				t.Errorf("%d values reached the API", len(srv.Data()))
			}
			if tc.wantEMF {
				sameObs(t, "EMF", emfObs(emf), want)
			} else if len(emf) != 0 {
				t.Errorf("%d EMF lines", len(emf))
			}
			if (srv.Attempts() > 0) != tc.wantAttempted {
				t.Errorf("%d attempts", srv.Attempts())
			}
			// Findings are logged in every mode.
			wantRes := Result{FellBackToEMF: tc.wantFellBack, FindingsLogged: len(r.HotKeys)}
			if tc.wantEMF {
				wantRes.MetricsEMF = len(want)
			}
			if tc.wantAttempted {
				wantRes.Requests = 1
				if tc.fail {
					wantRes.APIError = cmpopts.AnyError
				} else {
					wantRes.MetricsSent = len(want)
				}
			}
			sameResult(t, wantRes, res)
			if !slices.ContainsFunc(logs, func(l map[string]any) bool { return l["key"] == "OPS_LOG" }) {
				t.Errorf("OPS_LOG's finding is not logged")
			}
		})
	}
	if _, err := NewPublisher(Config{Namespace: "N", Mode: ModeEMF, Top: 1, StorageResolution: 1}, nil, &syncBuffer{}); err != nil {
		t.Errorf("emf mode needs no client: %v", err)
	}
}

func TestPublishLeavesOutWhatCloudWatchRejects(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, out := newAPIPublisher(t, DefaultConfig(), srv, 1)
	fresh := sampleReport("Orders", recentStart())
	fresh.HotKeys[1].Share = math.NaN()
	fresh.HotKeys[2].PeakWCUPerSecond = math.Inf(1)
	fresh.TopKeys = nil
	stale := sampleReport("Orders", recentStart().Add(-15*24*time.Hour))
	future := sampleReport("Orders", recentStart().Add(3*time.Hour))

	res, err := p.Publish(context.Background(), []report.Report{stale, fresh, future})
	if err != nil {
		t.Fatal(err)
	}
	noRejections(t, srv)
	want := expectedObs(fresh, fresh.HotKeys)
	sameObs(t, "PutMetricData", apiObs(srv.Data()), want)
	staleN := len(expectedObs(stale, stale.HotKeys)) + len(expectedObs(future, future.HotKeys))
	// Every value outside the time range goes out as EMF instead.
	sameResult(t, Result{MetricsSent: len(want), Requests: 1, MetricsEMF: staleN, NonFinite: 2, OutsideTimeRange: staleN, FindingsLogged: 9}, res)
	// The findings are logged all the same, with valid JSON for the NaN,
	// and the values the API would refuse for their age go out as EMF.
	emf, logs := splitOutput(t, out.Bytes())
	sameObs(t, "EMF", emfObs(emf), append(expectedObs(stale, stale.HotKeys), expectedObs(future, future.HotKeys)...))
	if len(logs) != 9 {
		t.Errorf("%d log lines, want 9", len(logs))
	}
	if logs[4]["share"] != "NaN" {
		t.Errorf("NaN share logged as %v", logs[4]["share"])
	}
}

func TestPublishInvalidReport(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, _ := newAPIPublisher(t, DefaultConfig(), srv, 1)
	good := sampleReport("Orders", recentStart())
	for _, bad := range []report.Report{
		{Window: report.Window{Start: recentStart(), End: recentStart().Add(time.Minute)}},
		{Window: report.Window{Table: "Orders"}},
		{Window: report.Window{Table: "Orders", Start: recentStart(), End: recentStart().Add(-time.Second)}},
	} {
		srv.Reset()
		_, err := p.Publish(context.Background(), []report.Report{bad, good})
		if !errors.Is(err, ErrInvalidReport) {
			t.Errorf("report %+v: err = %v, want ErrInvalidReport", bad, err)
		}
		sameObs(t, "the valid report", apiObs(srv.Data()), expectedObs(good, good.HotKeys))
	}
}

func TestNewPublisherChecks(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	for _, tc := range []struct {
		name string
		cfg  Config
		api  MetricPutter
		out  *syncBuffer
		want error
	}{
		{"api mode without client", DefaultConfig(), nil, &syncBuffer{}, ErrNoClient},
		{"both mode without client", Config{Namespace: "N", Mode: ModeBoth, StorageResolution: 60}, nil, &syncBuffer{}, ErrNoClient},
		{"invalid config", Config{Mode: ModeAPI}, srv.Client(), &syncBuffer{}, ErrConfig},
		{"no stdout", DefaultConfig(), srv.Client(), nil, ErrConfig},
	} {
		var err error
		if tc.out == nil {
			_, err = NewPublisher(tc.cfg, tc.api, nil)
		} else {
			_, err = NewPublisher(tc.cfg, tc.api, tc.out)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestPublishReportsWriteErrors(t *testing.T) {
	p, err := newTestPublisher(Config{Namespace: "N", Mode: ModeEMF, Top: 10, StorageResolution: 60}, nil, failingWriter{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Publish(context.Background(), []report.Report{sampleReport("Orders", recentStart())})
	if err != nil {
		t.Fatal(err)
	}
	// The write error reported, nothing counted as written.
	sameResult(t, Result{WriteError: io.ErrClosedPipe}, res)
}

// Concurrent publishers share stdout line by line, never mid-line.
func TestPublishConcurrentLinesStayWhole(t *testing.T) {
	out := &syncBuffer{}
	p, err := newTestPublisher(Config{Namespace: "N", Mode: ModeEMF, Top: 10, StorageResolution: 60}, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			p.Publish(context.Background(), []report.Report{sampleReport(fmt.Sprintf("T%d", i), recentStart())})
		})
	}
	wg.Wait()
	emf, logs := splitOutput(t, out.Bytes())
	if len(emf) != 8*4 || len(logs) != 8*3 {
		t.Errorf("%d EMF and %d log lines, want 32 and 24", len(emf), len(logs))
	}
}

// A context already over means no API call at all: straight to EMF.
func TestPublishWithContextAlreadyDone(t *testing.T) {
	srv := newServer()
	defer srv.Close()
	p, out := newAPIPublisher(t, DefaultConfig(), srv, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := sampleReport("Orders", recentStart())
	res, err := p.Publish(ctx, []report.Report{r})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Attempts() != 0 {
		t.Errorf("%d attempts", srv.Attempts())
	}
	want := expectedObs(r, r.HotKeys)
	sameResult(t, Result{MetricsEMF: len(want), FellBackToEMF: true, APIError: context.Canceled, FindingsLogged: len(r.HotKeys)}, res)
	emf, _ := splitOutput(t, out.Bytes())
	sameObs(t, "EMF", emfObs(emf), want)
}
