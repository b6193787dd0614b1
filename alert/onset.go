package alert

import (
	"context"
	"log/slog"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Onsets: a key announced inside its window, the second it crossed the
// critical rate (package detector). They go out at once, as high-resolution
// EMF lines stamped with that second, whatever the mode but off: EMF costs
// the invocation no call, and CloudWatch extracts the metrics from the log
// group within seconds; an alarm with a 10-second period can then fire.
// Their findings line, MsgOnset, names the key.

// MsgOnset is the message of an onset's log line.
const MsgOnset = "hot partition key onset"

// MetricOnsetPeakWCUPerSecond is the table metric of an onset: the WCU the
// key certainly wrote in the second it crossed.
const MetricOnsetPeakWCUPerSecond = "OnsetPeakWCUPerSecond"

// onsetResolution is the StorageResolution of onset metrics: 1 s, so that
// an alarm may have a 10-second period.
const onsetResolution = 1

var onsetCatalogue = []MetricDefinition{
	{MetricOnsetPeakWCUPerSecond, UnitCountPerSecond, tableDims,
		"WCU a key certainly wrote in the second it crossed the critical rate, stamped with that second, at 1-second resolution; an index's onset is published under TableName alone as well, so that one alarm per table covers its indexes", indexDims},
	{MetricKeyPeakWCUPerSecond, UnitCountPerSecond, keyDims,
		"at an onset: the WCU the key certainly wrote in the second it crossed, stamped with that second, at 1-second resolution", indexKeyDims},
}

// OnsetMetrics returns the catalogue of onset metrics, published by
// PublishOnsets as EMF at StorageResolution 1. Both are in the namespace of
// the others. An index's OnsetPeakWCUPerSecond goes under its
// IndexDimensions and under Dimensions (TableName alone) too. Callers own
// the returned slice.
func OnsetMetrics() []MetricDefinition { return cloneDefinitions(onsetCatalogue) }

// PublishOnsets logs one MsgOnset line per onset (ERROR) and, unless the
// mode is off, writes its metrics as EMF lines at 1-second resolution:
// OnsetPeakWCUPerSecond, and the key's KeyPeakWCUPerSecond unless
// Config.Top is 0. It returns an error (wrapping ErrInvalidReport) only
// for an onset it cannot publish; the others are still published.
func (p *Publisher) PublishOnsets(ctx context.Context, onsets []report.Onset) (Result, error) {
	c := collector{top: p.cfg.Top, now: p.now()}
	for i := range onsets {
		c.addOnset(i, &onsets[i])
	}
	w, log := p.logger()
	logOnsets(ctx, log, onsets)
	res := Result{NonFinite: c.nonFinite, FindingsLogged: w.lines}
	if p.cfg.Mode != ModeOff {
		res.MetricsEMF = p.writeEMF(w, c.groups, onsetResolution)
	}
	res.WriteError = w.err
	return res, c.err
}

// addOnset collects an onset's metrics, stamped with its second.
func (c *collector) addOnset(i int, o *report.Onset) {
	g, ok := c.window(i, o.Window, "")
	if !ok {
		return
	}
	g.timestamp = o.Second.UTC()
	g.alsoTable = g.index
	c.put(&g, MetricOnsetPeakWCUPerSecond, float64(o.SecondWCULower))
	c.groups = append(c.groups, g)
	if c.top > 0 {
		kg := keyGroup(g, &o.Key)
		kg.alsoTable = false
		c.put(&kg, MetricKeyPeakWCUPerSecond, float64(o.SecondWCULower))
		c.groups = append(c.groups, kg)
	}
}

// logOnsets writes one line per onset: the key, the second it crossed, its
// WCU in that second with bounds, and its pattern and fix so far.
func logOnsets(ctx context.Context, log *slog.Logger, onsets []report.Onset) {
	for i := range onsets {
		o := &onsets[i]
		attrs := append(keyAttrs(o.Window, &o.Key),
			slog.String("second", formatTime(o.Second)),
			slog.Uint64("second_wcu", o.SecondWCULower),
			slog.Uint64("second_wcu_lower", o.SecondWCULower),
			slog.Uint64("second_wcu_upper", o.SecondWCUUpper),
			slog.Bool("second_so_far", o.SecondSoFar),
		)
		log.LogAttrs(ctx, slog.LevelError, MsgOnset, append(attrs, windowAttrs(o.Window)...)...)
	}
}
