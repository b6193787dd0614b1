package alert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// ErrNoClient is returned by NewPublisher when the mode needs the API and no
// client was given.
var ErrNoClient = errors.New("alert: metrics mode needs a CloudWatch client")

// Publisher publishes window reports as CloudWatch metrics and findings logs.
// It is safe for concurrent use.
type Publisher struct {
	cfg Config
	api MetricPutter
	out *lockedWriter
	now func() time.Time
}

// NewPublisher returns a Publisher. api may be nil when cfg.Mode is emf or
// off. stdout receives the EMF lines and the findings log; in a Lambda it is
// os.Stdout, which CloudWatch Logs collects.
func NewPublisher(cfg Config, api MetricPutter, stdout io.Writer) (*Publisher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if api == nil && cfg.Mode.usesAPI() {
		return nil, fmt.Errorf("%w: mode %q", ErrNoClient, cfg.Mode)
	}
	if stdout == nil {
		return nil, fmt.Errorf("%w: nil stdout", ErrConfig)
	}
	return &Publisher{cfg: cfg, api: api, out: &lockedWriter{w: stdout}, now: time.Now}, nil
}

// Result says what one Publish did.
type Result struct {
	// MetricsSent counts the metric values PutMetricData accepted.
	MetricsSent int
	// Requests counts PutMetricData calls, each including the client's
	// retries; a failed call is counted too.
	Requests int
	// MetricsEMF counts the metric values written as EMF lines.
	MetricsEMF int
	// FellBackToEMF is true when, in api mode, some values could not be sent
	// and went out as EMF instead. (In both mode every value is already
	// written as EMF, so a failed call loses nothing and sets only APIError.)
	FellBackToEMF bool
	// APIError is the last error of PutMetricData, or the context's when the
	// time ran out before a call. Its message may quote what was sent,
	// partition keys included: log ErrorCode-like summaries, not the text.
	APIError error
	// NonFinite counts values left out because CloudWatch rejects them: NaN,
	// ±Inf, or beyond ±2^360. Maxima ignore such inputs.
	NonFinite int
	// OutsideTimeRange counts values not sent to PutMetricData because their
	// window starts more than two weeks back or two hours ahead, which
	// CloudWatch rejects (one such datum fails the whole request). EMF lines
	// are written for them all the same: CloudWatch keeps the line as a log
	// record and skips its metrics.
	OutsideTimeRange int
	// FindingsLogged counts the findings log lines (flagged keys and early
	// terminations) written; like MetricsEMF, not those stdout refused.
	FindingsLogged int
	// WriteError is the first error writing to stdout; the lines it hit are
	// lost.
	WriteError error
}

// Publish sends the metrics of every report and logs one findings line per
// flagged key. It never fails because CloudWatch is down: if PutMetricData
// still fails after the client's retries, or the deadline of ctx draws near,
// the values not yet accepted go out as EMF to stdout and the Result says
// so. It returns an error (wrapping ErrInvalidReport) only for a report it
// cannot publish: no table name, no start time, or an end before the start;
// the other reports are still published.
func (p *Publisher) Publish(ctx context.Context, reports []report.Report) (Result, error) {
	c := collector{top: p.cfg.Top, now: p.now()}
	for i := range reports {
		c.addStream(i, &reports[i])
	}
	// Findings first: they are cheap, and the most useful thing to have in
	// the log if the invocation runs out of time while publishing.
	w, log := p.logger()
	logFindings(ctx, log, reports)
	return p.send(ctx, &c, w, log)
}

// PublishClient is Publish for a client's reports (package clientwatch):
// their metrics are ClientMetrics. A client's report of an index cannot be
// published.
func (p *Publisher) PublishClient(ctx context.Context, reports []report.ClientReport) (Result, error) {
	c := collector{top: p.cfg.Top, now: p.now()}
	for i := range reports {
		c.addClient(i, &reports[i])
	}
	w, log := p.logger()
	logClientFindings(ctx, log, reports)
	return p.send(ctx, &c, w, log)
}

// logger returns the writer and the logger of one Publish call.
func (p *Publisher) logger() (*errWriter, *slog.Logger) {
	w := &errWriter{w: p.out}
	return w, newLogger(w)
}

// send writes the groups c collected as EMF and sends them to the API, as
// the mode says, and says what it did; the findings are already written.
func (p *Publisher) send(ctx context.Context, c *collector, w *errWriter, log *slog.Logger) (Result, error) {
	// Counted as written, like MetricsEMF: a line stdout refused is not
	// logged (slog writes each line with one Write).
	res := Result{NonFinite: c.nonFinite, FindingsLogged: w.lines}
	if p.cfg.Mode.usesEMF() {
		res.MetricsEMF += p.writeEMF(w, c.groups, p.cfg.StorageResolution)
	}
	if p.cfg.Mode.usesAPI() {
		if unsent := p.putAPI(ctx, c.groups, &res); unsent != nil {
			n := 0
			for _, g := range unsent {
				n += len(g.values)
			}
			fallback := p.cfg.Mode == ModeAPI
			logPutFailure(ctx, log, p.cfg.Namespace, res.APIError, n, fallback)
			if fallback {
				res.FellBackToEMF = true
				res.MetricsEMF += p.writeEMF(w, unsent, p.cfg.StorageResolution)
			}
		}
		if p.cfg.Mode == ModeAPI {
			// Values CloudWatch's API would refuse for their age still go
			// out as EMF: the log keeps them, even if CloudWatch skips the
			// metrics, so nothing counted is silently dropped.
			var outside []group
			for _, g := range c.groups {
				if g.outside {
					outside = append(outside, g)
				}
			}
			res.MetricsEMF += p.writeEMF(w, outside, p.cfg.StorageResolution)
		}
	}
	res.WriteError = w.err
	return res, c.err
}

// writeEMF writes one line per group at resolution (StorageResolution)
// and returns the number of values.
func (p *Publisher) writeEMF(w io.Writer, groups []group, resolution int) (values int) {
	var b []byte
	for i := range groups {
		if len(groups[i].values) == 0 {
			continue
		}
		b = appendEMF(b[:0], p.cfg.Namespace, resolution, &groups[i])
		if _, err := w.Write(b); err == nil {
			values += len(groups[i].values)
		}
	}
	return values
}

// lockedWriter makes each line one Write, whole, even when several
// Publish calls or loggers share stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// errWriter remembers the first write error of one Publish call.
type errWriter struct {
	w     io.Writer
	err   error
	lines int // successful writes
}

func (e *errWriter) Write(b []byte) (int, error) {
	n, err := e.w.Write(b)
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("alert: writing to stdout: %w", err)
	}
	if err == nil {
		e.lines++
	}
	return n, err
}
