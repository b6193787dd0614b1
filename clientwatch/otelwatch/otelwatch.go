// Package otelwatch exports the client-side detector's reports
// (clientwatch, report.ClientReport) as OpenTelemetry metrics, so that an
// application that already exports OpenTelemetry gets its hot keys
// without CloudWatch. It is a clientwatch.Publisher: set
// clientwatch.Options.Publisher to one made with New.
//
// Each closed window adds its figures to counters (requests, capacity,
// throttled attempts, unprocessed items…) and sets gauges (peaks,
// latency, severity), per table (and global secondary index). Keys carry
// an attribute of their own only on the per-key instruments, and only the
// window's flagged keys, then its heaviest, up to Options.Keys: the set of
// attribute values stays bounded however many keys the table has. Keys
// are as the reports give them, redacted when the detector redacts.
//
// Package clientwatch does not import this one: only an application that
// uses it links the OpenTelemetry API.
package otelwatch

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Attribute keys. Tables and indexes follow OpenTelemetry's semantic
// conventions for DynamoDB.
const (
	AttrTable             = attribute.Key("aws.dynamodb.table_names")
	AttrIndex             = attribute.Key("aws.dynamodb.index_name")
	AttrKey               = attribute.Key("hotkeys.partition_key")
	AttrKeyType           = attribute.Key("hotkeys.partition_key.type")
	AttrCapacityEstimated = attribute.Key("hotkeys.capacity_estimated")
)

// Options configures a Publisher.
type Options struct {
	// Keys bounds the keys that carry the key attribute per window: its
	// flagged keys first, then its heaviest. Zero: 10.
	Keys int
}

// DefaultKeys is Options.Keys' default.
const DefaultKeys = 10

// ErrOptions is wrapped by New's error for options out of range.
var ErrOptions = errors.New("otelwatch: invalid options")

// Publisher records reports on a meter's instruments.
type Publisher struct {
	keys int

	requests, wcu, throttled, unprocessed, conditional, unattributed, dropped, internal metric.Int64Counter
	rcu                                                                                 metric.Float64Counter
	hotKeys                                                                             metric.Int64Gauge

	keyRequests, keyWCU, keyThrottled, keyUnprocessed metric.Int64Counter
	keyRCU                                            metric.Float64Counter
	keyPeakRCU, keyPeakWCU, keyLatencyP99             metric.Float64Gauge
	keySeverity, keyReadSaturated, keyWriteSaturated  metric.Int64Gauge
}

// New makes the instruments on meter.
func New(meter metric.Meter, opts Options) (*Publisher, error) {
	if opts.Keys < 0 {
		return nil, fmt.Errorf("%w: Keys %d, want ≥ 0 (0: %d)", ErrOptions, opts.Keys, DefaultKeys)
	}
	if opts.Keys == 0 {
		opts.Keys = DefaultKeys
	}
	p := &Publisher{keys: opts.Keys}
	var errs []error
	counter := func(c *metric.Int64Counter, name, unit, desc string) {
		var err error
		*c, err = meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
	}
	fcounter := func(c *metric.Float64Counter, name, unit, desc string) {
		var err error
		*c, err = meter.Float64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
	}
	gauge := func(g *metric.Float64Gauge, name, unit, desc string) {
		var err error
		*g, err = meter.Float64Gauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
	}
	igauge := func(g *metric.Int64Gauge, name, unit, desc string) {
		var err error
		*g, err = meter.Int64Gauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
	}
	counter(&p.requests, "hotkeys.client.requests", "{request}", "calls the instrumented client completed (each with all its attempts)")
	fcounter(&p.rcu, "hotkeys.client.read_capacity_units", "{RCU}", "RCU the calls consumed: DynamoDB's ConsumedCapacity, or estimated from item sizes")
	counter(&p.wcu, "hotkeys.client.write_capacity_units", "{WCU}", "WCU the calls consumed: DynamoDB's ConsumedCapacity, or estimated from item sizes")
	counter(&p.throttled, "hotkeys.client.throttled_attempts", "{attempt}", "attempts DynamoDB throttled, retried ones included; a request once however many keys it names")
	counter(&p.unprocessed, "hotkeys.client.unprocessed_items", "{item}", "items batches handed back unprocessed (DynamoDB throttling part of a batch)")
	counter(&p.conditional, "hotkeys.client.conditional_check_failures", "{write}", "writes refused by their condition (charged, never streamed)")
	counter(&p.unattributed, "hotkeys.client.unattributed_requests", "{request}", "calls charged to no key")
	counter(&p.dropped, "hotkeys.client.dropped_calls", "{request}", "calls not recorded because the publishing queue was full")
	counter(&p.internal, "hotkeys.client.internal_errors", "{request}", "calls whose recording hit a bug of hotkeys (the call itself was untouched)")
	igauge(&p.hotKeys, "hotkeys.client.hot_keys", "{key}", "keys flagged in the last window")
	counter(&p.keyRequests, "hotkeys.client.key.requests", "{request}", "calls on a flagged or top key (an upper bound)")
	fcounter(&p.keyRCU, "hotkeys.client.key.read_capacity_units", "{RCU}", "RCU of a flagged or top key (best estimate)")
	counter(&p.keyWCU, "hotkeys.client.key.write_capacity_units", "{WCU}", "WCU of a flagged or top key (best estimate)")
	counter(&p.keyThrottled, "hotkeys.client.key.throttled_attempts", "{attempt}", "throttled attempts of a flagged or top key")
	counter(&p.keyUnprocessed, "hotkeys.client.key.unprocessed_items", "{item}", "items of a flagged or top key batches left unprocessed")
	gauge(&p.keyPeakRCU, "hotkeys.client.key.peak_rcu_per_second", "{RCU}/s", "highest RCU of the key within one second of the last window (the per-partition limit is 3,000)")
	gauge(&p.keyPeakWCU, "hotkeys.client.key.peak_wcu_per_second", "{WCU}/s", "highest WCU of the key within one second of the last window (the per-partition limit is 1,000)")
	gauge(&p.keyLatencyP99, "hotkeys.client.key.latency_p99", "ms", "p99 latency of the key's calls in the last window (0 when unmeasured)")
	igauge(&p.keySeverity, "hotkeys.client.key.severity", "1", "0 not flagged, 1 warning, 2 critical")
	igauge(&p.keyReadSaturated, "hotkeys.client.key.read_saturated_seconds", "s", "seconds of the last window the key's RCU was at 90 % of the 3,000 RCU/s limit or more (saturated at 3: most likely throttled)")
	igauge(&p.keyWriteSaturated, "hotkeys.client.key.saturated_seconds", "s", "seconds of the last window the key's WCU was at 90 % of the 1,000 WCU/s limit or more (saturated at 3: most likely throttled)")
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("otelwatch: %w", err)
	}
	return p, nil
}

// Publish records each report's figures. It never fails: OpenTelemetry's
// instruments report their own errors to its error handler.
func (p *Publisher) Publish(ctx context.Context, reps []report.ClientReport) error {
	for i := range reps {
		p.record(ctx, &reps[i])
	}
	return nil
}

func (p *Publisher) record(ctx context.Context, r *report.ClientReport) {
	table := tableAttrs(r)
	capacity := append(table[:len(table):len(table)], AttrCapacityEstimated.Bool(r.CapacityEstimated))
	t, c := metric.WithAttributes(table...), metric.WithAttributes(capacity...)
	p.requests.Add(ctx, int64(r.Requests), t)
	p.rcu.Add(ctx, r.RCU, c)
	p.wcu.Add(ctx, int64(r.WCU), c)
	p.throttled.Add(ctx, int64(r.ThrottledAttempts), t)
	p.unprocessed.Add(ctx, int64(r.UnprocessedItems), t)
	p.conditional.Add(ctx, int64(r.ConditionalCheckFailures), t)
	p.unattributed.Add(ctx, int64(r.UnattributedRequests), t)
	p.dropped.Add(ctx, int64(r.Dropped), t)
	p.internal.Add(ctx, int64(r.InternalErrors), t)
	p.hotKeys.Record(ctx, int64(len(r.HotKeys)), t)
	for _, k := range Keys(r, p.keys) {
		ka := append(table[:len(table):len(table)], AttrKey.String(k.Key), AttrKeyType.String(k.Type))
		kc := metric.WithAttributes(append(ka[:len(ka):len(ka)], AttrCapacityEstimated.Bool(r.CapacityEstimated))...)
		kt := metric.WithAttributes(ka...)
		p.keyRequests.Add(ctx, int64(k.Requests), kt)
		p.keyRCU.Add(ctx, k.RCU, kc)
		p.keyWCU.Add(ctx, int64(k.WCU), kc)
		p.keyThrottled.Add(ctx, int64(k.ThrottledAttempts), kt)
		p.keyUnprocessed.Add(ctx, int64(k.UnprocessedItems), kt)
		p.keyPeakRCU.Record(ctx, k.PeakRCUPerSecond, kt)
		p.keyPeakWCU.Record(ctx, k.PeakWCUPerSecond, kt)
		p.keyLatencyP99.Record(ctx, k.LatencyP99Ms, kt)
		p.keySeverity.Record(ctx, int64(k.Severity.Rank()), kt)
		p.keyReadSaturated.Record(ctx, int64(k.ReadSaturatedSeconds), kt)
		p.keyWriteSaturated.Record(ctx, int64(k.SaturatedSeconds), kt)
	}
}

func tableAttrs(r *report.ClientReport) []attribute.KeyValue {
	attrs := []attribute.KeyValue{AttrTable.StringSlice([]string{r.Table})}
	if r.Index != "" {
		attrs = append(attrs, AttrIndex.String(r.Index))
	}
	return attrs
}

// Keys returns the keys of r that carry a key attribute: its flagged keys,
// then its heaviest, at most n, each once.
func Keys(r *report.ClientReport, n int) []report.ClientKeyReport {
	type id struct{ key, typ string }
	seen := map[id]bool{}
	var out []report.ClientKeyReport
	for _, list := range [][]report.ClientKeyReport{r.HotKeys, r.TopKeys} {
		for _, k := range list {
			if len(out) == n {
				return out
			}
			if !seen[id{k.Key, k.Type}] {
				seen[id{k.Key, k.Type}] = true
				out = append(out, k)
			}
		}
	}
	return out
}
