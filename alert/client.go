package alert

import (
	"context"
	"errors"
	"slices"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Metric names of the client-side detector (ClientReports, from package
// clientwatch). They are named apart from the stream's: an
// application's client and the table's stream describe the same table, and
// must not land on the same metric.
const (
	MetricClientRequests                 = "ClientRequests"
	MetricClientReadCapacityUnits        = "ClientReadCapacityUnits"
	MetricClientWriteCapacityUnits       = "ClientWriteCapacityUnits"
	MetricClientThrottledAttempts        = "ClientThrottledAttempts"
	MetricClientConditionalCheckFailures = "ClientConditionalCheckFailures"
	MetricClientUnattributedRequests     = "ClientUnattributedRequests"
	MetricClientHotKeys                  = "ClientHotKeys"
	MetricClientMaxKeyPeakRCUPerSecond   = "ClientMaxKeyPeakRCUPerSecond"
	MetricClientMaxKeyPeakWCUPerSecond   = "ClientMaxKeyPeakWCUPerSecond"
	MetricClientDroppedCalls             = "ClientDroppedCalls"
	MetricClientUnprocessedItems         = "ClientUnprocessedItems"
	MetricClientInternalErrors           = "ClientInternalErrors"

	MetricClientKeyReadCapacityUnits  = "ClientKeyReadCapacityUnits"
	MetricClientKeyWriteCapacityUnits = "ClientKeyWriteCapacityUnits"
	MetricClientKeyPeakRCUPerSecond   = "ClientKeyPeakRCUPerSecond"
	MetricClientKeyThrottledAttempts  = "ClientKeyThrottledAttempts"
	MetricClientKeyUnprocessedItems   = "ClientKeyUnprocessedItems"
	MetricClientKeyLatencyP99         = "ClientKeyLatencyP99"
)

// UnitMilliseconds is CloudWatch's unit for the latency metric.
const UnitMilliseconds = "Milliseconds"

var clientCatalogue = []MetricDefinition{
	{MetricClientRequests, UnitCount, tableDims, "calls the instrumented client completed in the window (each with all its attempts)", nil},
	{MetricClientReadCapacityUnits, UnitCount, tableDims, "RCU the calls consumed, from DynamoDB's ConsumedCapacity (exact)", nil},
	{MetricClientWriteCapacityUnits, UnitCount, tableDims, "WCU the calls consumed, from DynamoDB's ConsumedCapacity (exact)", nil},
	{MetricClientThrottledAttempts, UnitCount, tableDims, "attempts DynamoDB throttled, those the SDK retried included", nil},
	{MetricClientConditionalCheckFailures, UnitCount, tableDims, "writes refused by their condition (charged, never streamed)", nil},
	{MetricClientUnattributedRequests, UnitCount, tableDims, "calls charged to no key: no key visible, or the table's key schema not known yet", nil},
	{MetricClientHotKeys, UnitCount, tableDims, "keys flagged for reads, writes, throttling or latency", nil},
	{MetricClientMaxKeyPeakRCUPerSecond, UnitCountPerSecond, tableDims, "highest per-second RCU of one reported key (the per-partition limit is 3,000)", nil},
	{MetricClientMaxKeyPeakWCUPerSecond, UnitCountPerSecond, tableDims, "highest per-second WCU of one reported key (the per-partition limit is 1,000)", nil},
	{MetricClientDroppedCalls, UnitCount, tableDims, "calls not recorded because the publishing queue was full", nil},
	{MetricClientUnprocessedItems, UnitCount, tableDims, "items batches handed back unprocessed: DynamoDB throttling part of a batch", nil},
	{MetricClientInternalErrors, UnitCount, tableDims, "calls whose recording hit a bug of hotkeys (the call itself was untouched)", nil},
	{MetricClientKeyReadCapacityUnits, UnitCount, keyDims, "RCU of a flagged key in the window (best estimate)", nil},
	{MetricClientKeyWriteCapacityUnits, UnitCount, keyDims, "WCU of a flagged key in the window (best estimate)", nil},
	{MetricClientKeyPeakRCUPerSecond, UnitCountPerSecond, keyDims, "highest RCU of a flagged key within one second (a lower bound)", nil},
	{MetricClientKeyThrottledAttempts, UnitCount, keyDims, "throttled attempts of a flagged key, retried ones included", nil},
	{MetricClientKeyUnprocessedItems, UnitCount, keyDims, "items of a flagged key batches handed back unprocessed", nil},
	{MetricClientKeyLatencyP99, UnitMilliseconds, keyDims, "p99 latency of a flagged key's calls as the application saw them (0 when unmeasured)", nil},
}

// ClientMetrics returns the catalogue of the client-side detector's
// metrics, in publishing order: table metrics, then key metrics. Callers
// own the returned slice.
func ClientMetrics() []MetricDefinition {
	out := make([]MetricDefinition, len(clientCatalogue))
	for i, d := range clientCatalogue {
		d.Dimensions = slices.Clone(d.Dimensions)
		out[i] = d // no IndexDimensions: a client's reports describe tables
	}
	return out
}

// addClient collects a client report's table metrics, and its published
// keys'.
func (c *collector) addClient(i int, r *report.ClientReport) {
	g, ok := c.window(i, r.Window, report.SourceClient)
	if !ok {
		return
	}
	c.clientValues(&g, r)
	c.groups = append(c.groups, g)
	for _, k := range publishedKeys(len(r.HotKeys), func(k int) *report.KeyFigures { return &r.HotKeys[k].KeyFigures }, c.top) {
		kg := keyGroup(g, &r.HotKeys[k].KeyFigures)
		c.clientKeyValues(&kg, &r.HotKeys[k])
		c.groups = append(c.groups, kg)
	}
}

// clientValues puts a client report's table metrics into g.
func (c *collector) clientValues(g *group, r *report.ClientReport) {
	var maxRCU, maxWCU float64
	for _, ks := range [][]report.ClientKeyReport{r.HotKeys, r.TopKeys} {
		for k := range ks {
			maxRCU = maxFinite(maxRCU, ks[k].PeakRCUPerSecond)
			maxWCU = maxFinite(maxWCU, ks[k].PeakWCUPerSecond)
		}
	}
	c.put(g, MetricClientRequests, float64(r.Requests))
	c.put(g, MetricClientReadCapacityUnits, r.RCU)
	c.put(g, MetricClientWriteCapacityUnits, float64(r.WCU))
	c.put(g, MetricClientThrottledAttempts, float64(r.ThrottledAttempts))
	c.put(g, MetricClientConditionalCheckFailures, float64(r.ConditionalCheckFailures))
	c.put(g, MetricClientUnattributedRequests, float64(r.UnattributedRequests))
	c.put(g, MetricClientHotKeys, float64(len(r.HotKeys)))
	c.put(g, MetricClientMaxKeyPeakRCUPerSecond, maxRCU)
	c.put(g, MetricClientMaxKeyPeakWCUPerSecond, maxWCU)
	c.put(g, MetricClientDroppedCalls, float64(r.Dropped))
	c.put(g, MetricClientUnprocessedItems, float64(r.UnprocessedItems))
	c.put(g, MetricClientInternalErrors, float64(r.InternalErrors))
}

// clientKeyValues puts a flagged key's metrics into g.
func (c *collector) clientKeyValues(g *group, k *report.ClientKeyReport) {
	c.put(g, MetricClientKeyReadCapacityUnits, k.RCU)
	c.put(g, MetricClientKeyWriteCapacityUnits, float64(k.WCU))
	c.put(g, MetricClientKeyPeakRCUPerSecond, k.PeakRCUPerSecond)
	c.put(g, MetricClientKeyThrottledAttempts, float64(k.ThrottledAttempts))
	c.put(g, MetricClientKeyUnprocessedItems, float64(k.UnprocessedItems))
	c.put(g, MetricClientKeyLatencyP99, k.LatencyP99Ms)
}

// ClientPublisher publishes what package clientwatch reports through a
// Publisher: set clientwatch.Options.Publisher to
// alert.ClientPublisher{Publisher: p}. It is the CloudWatch side of
// clientwatch's Publisher interface, kept here so that an application using
// clientwatch without CloudWatch does not link the CloudWatch SDK, and so
// that clientwatch never names this package.
type ClientPublisher struct {
	Publisher *Publisher
}

// Publish publishes reports with PublishClient. Its error joins what was
// not delivered as asked: the reports that could not be published
// (ErrInvalidReport), the lines stdout refused, and a PutMetricData that
// failed, whose values went out as EMF instead in api mode (named by its
// error code alone: the service's message may quote partition keys).
func (c ClientPublisher) Publish(ctx context.Context, reports []report.ClientReport) error {
	res, err := c.Publisher.PublishClient(ctx, reports)
	errs := []error{err, res.WriteError}
	if res.APIError != nil {
		errs = append(errs, putError{res.APIError})
	}
	return errors.Join(errs...)
}

// putError is PutMetricData's failure, told by its error code alone.
type putError struct{ err error }

func (e putError) Error() string {
	return "alert: cloudwatch PutMetricData failed: " + ErrorCode(e.err)
}

func (e putError) Unwrap() error { return e.err }
