package detector

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// DynamoDB's per-partition read cap, and the client-side defaults that
// follow from it the way the write defaults follow from 1,000 WCU/s.
const (
	DefaultReadPartitionLimit   = ddb.PartitionReadUnits
	DefaultCriticalRCUPerSecond = 2400
	DefaultMinRCUPerSecond      = 300
)

// ClientWindow summarises what an instrumented client saw of one table in
// one window: per partition key, the requests, the read and write capacity
// consumed (RCU in half units, the granularity DynamoDB charges reads in),
// the throttled attempts and their reasons, the conditional-check failures
// and the latency of the calls, with the same bounded sketches as Window.
// Requests DynamoDB charged but that name no partition key the client can
// see (a Scan page without items, a PartiQL statement without a key
// literal, a table whose key schema is not known yet) count in the totals
// as unattributed.
//
// A ClientWindow is not safe for concurrent use.
type ClientWindow struct {
	table      string
	start, end int64

	requests, unattributed             uint64
	rcuHalf, wcu                       uint64 // totals, exact, attributed or not
	unattributedRCUHalf, unattributedW uint64
	apportionedRCUHalf, apportionedW   uint64
	throttled, conditionalFailed       uint64
	dropped                            uint64

	calls, reads, writes, throttles, conditional, apportioned *sketch.Summary

	latency latencyTable
	reasons map[string]map[string]uint64 // typed key -> reason -> attempts; bounded by maxReasonKeys
	keyBuf  []byte
}

// maxReasonKeys bounds the keys whose throttling reasons are kept one by
// one; throttles beyond it are still counted, per key, in the sketches.
const maxReasonKeys = 256

// NewClientWindow returns an empty client-side window for table covering
// [start, end).
func NewClientWindow(cfg sketch.Config, table string, start, end time.Time) (*ClientWindow, error) {
	if !end.After(start) {
		return nil, fmt.Errorf("detector: window end %s is not after start %s", end, start)
	}
	w := &ClientWindow{table: table, start: start.Unix(), end: end.Unix(), reasons: map[string]map[string]uint64{}}
	for _, s := range []**sketch.Summary{&w.calls, &w.reads, &w.writes, &w.throttles, &w.conditional, &w.apportioned} {
		var err error
		if *s, err = sketch.NewSummary(cfg); err != nil {
			return nil, fmt.Errorf("detector: %w", err)
		}
	}
	return w, nil
}

// Table returns the window's table name.
func (w *ClientWindow) Table() string { return w.table }

// Start returns the window's first instant.
func (w *ClientWindow) Start() time.Time { return time.Unix(w.start, 0).UTC() }

// End returns the instant just after the window.
func (w *ClientWindow) End() time.Time { return time.Unix(w.end, 0).UTC() }

func (w *ClientWindow) typed(k ddb.Key) []byte {
	w.keyBuf = append(w.keyBuf[:0], byte(k.Type))
	w.keyBuf = append(w.keyBuf, k.Value...)
	return w.keyBuf
}

// AddRequest counts one call (all its attempts) on key k at time t, and,
// when withLatency (the call touched k alone), its latency as the caller
// saw it. A call on several keys is counted once per key, and once in the
// window's Requests when first is true.
func (w *ClientWindow) AddRequest(k ddb.Key, t time.Time, latency time.Duration, withLatency, first bool) {
	if first {
		w.requests++
	}
	key := w.typed(k)
	w.calls.Add(key, 1, t.Unix(), 0)
	if withLatency {
		w.latency.add(key, sketch.Hash(key), latency)
	}
}

// AddUnattributed counts one call whose capacity no key can be charged with.
func (w *ClientWindow) AddUnattributed(rcuHalf, wcu uint64) {
	w.requests++
	w.unattributed++
	w.rcuHalf += rcuHalf
	w.wcu += wcu
	w.unattributedRCUHalf += rcuHalf
	w.unattributedW += wcu
}

// AddCapacity charges key k with read capacity (in half RCU) and write
// capacity consumed at time t. apportioned says the figures are the key's
// share of a multi-key request, split by item sizes, rather than reported
// for the key alone.
func (w *ClientWindow) AddCapacity(k ddb.Key, t time.Time, rcuHalf, wcu uint64, apportioned bool) {
	key := w.typed(k)
	tick := t.Unix()
	w.rcuHalf += rcuHalf
	w.wcu += wcu
	if rcuHalf > 0 {
		w.reads.Add(key, rcuHalf, tick, 0)
	}
	if wcu > 0 {
		w.writes.Add(key, wcu, tick, 0)
	}
	if apportioned {
		w.apportionedRCUHalf += rcuHalf
		w.apportionedW += wcu
		w.apportioned.Add(key, 1, tick, 0) // counts the key's apportioned charges, 0-unit shares too
	}
}

// AddThrottle counts one throttled attempt on key k, with DynamoDB's
// ThrottlingReasons for it (none from older endpoints).
func (w *ClientWindow) AddThrottle(k ddb.Key, t time.Time, reasons []string) {
	key := w.typed(k)
	w.throttled++
	w.throttles.Add(key, 1, t.Unix(), 0)
	m := w.reasons[string(key)]
	if m == nil {
		if len(w.reasons) >= maxReasonKeys {
			return
		}
		m = map[string]uint64{}
		w.reasons[string(key)] = m
	}
	if len(reasons) == 0 {
		m[""]++
	}
	for _, r := range reasons {
		m[r]++
	}
}

// AddUnattributedThrottle counts a throttled attempt of a call that names
// no key.
func (w *ClientWindow) AddUnattributedThrottle() { w.throttled++ }

// AddConditionalCheckFailed counts a write on key k refused by its
// condition: DynamoDB still charges it, and hides it from streams.
func (w *ClientWindow) AddConditionalCheckFailed(k ddb.Key, t time.Time) {
	w.conditionalFailed++
	w.conditional.Add(w.typed(k), 1, t.Unix(), 0)
}

// AddDropped counts calls the client could not record (its queue was full).
func (w *ClientWindow) AddDropped(n uint64) { w.dropped += n }

// ReadCapacity and WriteCapacity return the window's exact totals.
func (w *ClientWindow) ReadCapacity() float64 { return float64(w.rcuHalf) / 2 }

// WriteCapacity returns the window's exact WCU total.
func (w *ClientWindow) WriteCapacity() uint64 { return w.wcu }

// Report judges every candidate key (the heaviest by calls, reads, writes
// and throttles) against the read and write thresholds, flags throttled
// keys whatever their share, applies the latency outlier rule, and says
// what to do.
func (w *ClientWindow) Report(cfg Config) report.ClientReport {
	cfg = cfg.withClientDefaults()
	rep := report.ClientReport{
		Window:                   report.Window{Table: w.table, Start: w.Start(), End: w.End()},
		Requests:                 w.requests,
		UnattributedRequests:     w.unattributed,
		WCU:                      w.wcu,
		RCU:                      float64(w.rcuHalf) / 2,
		UnattributedRCU:          float64(w.unattributedRCUHalf) / 2,
		UnattributedWCU:          w.unattributedW,
		ApportionedRCU:           float64(w.apportionedRCUHalf) / 2,
		ApportionedWCU:           w.apportionedW,
		ThrottledAttempts:        w.throttled,
		ConditionalCheckFailures: w.conditionalFailed,
		Dropped:                  w.dropped,
		DistinctKeys:             w.calls.Distinct(),
		HotKeys:                  []report.ClientKeyReport{},
		TopKeys:                  []report.ClientKeyReport{},
	}
	if w.requests > w.unattributed && rep.DistinctKeys == 0 {
		rep.DistinctKeys = 1
	}
	j := judge{cfg: cfg, total: w.wcu, seconds: float64(w.end - w.start)}

	// Candidates: every tracked key of every sketch, once.
	seen := map[string]bool{}
	var cands [][]byte
	for _, s := range []*sketch.Summary{w.throttles, w.reads, w.writes, w.calls} {
		for _, e := range s.Top(cfg.Sketch.Counters) {
			if !seen[string(e.Key)] {
				seen[string(e.Key)] = true
				cands = append(cands, e.Key)
			}
		}
	}
	keys := make([]report.ClientKeyReport, len(cands))
	for i, key := range cands {
		keys[i] = w.keyReport(j, key)
	}
	w.latencyOutliers(keys)
	for i := range keys {
		w.judgeKey(j, &keys[i], cands[i])
	}
	slices.SortStableFunc(keys, byClientLoad)
	for rank := range keys {
		if rank < cfg.Top {
			rep.TopKeys = append(rep.TopKeys, keys[rank])
		}
		if keys[rank].Severity != report.None {
			rep.HotKeys = append(rep.HotKeys, keys[rank])
		}
	}
	return rep
}

// byClientLoad orders client-side keys: throttled first, then by capacity
// (WCU weighs as 3 RCU, DynamoDB's own exchange rate between the two
// per-partition limits), then by key.
func byClientLoad(a, b report.ClientKeyReport) int {
	load := func(k report.ClientKeyReport) float64 { return k.RCU + 3*float64(k.WCU) }
	return cmp.Or(cmp.Compare(b.ThrottledAttempts, a.ThrottledAttempts), cmp.Compare(load(b), load(a)), cmp.Compare(a.Key, b.Key))
}

func bounds(s *sketch.Summary, key []byte) (e sketch.Entry) {
	if got, ok := s.Lookup(key); ok {
		return got
	}
	e.Lower, e.Upper = s.Estimate(key)
	return e
}

func (w *ClientWindow) keyReport(j judge, key []byte) report.ClientKeyReport {
	calls, reads, writes := bounds(w.calls, key), bounds(w.reads, key), bounds(w.writes, key)
	thr, cond := bounds(w.throttles, key), bounds(w.conditional, key)
	k := report.ClientKeyReport{
		KeyFigures:       j.figures(key, writes),
		Requests:         calls.Upper,
		RCU:              float64(reads.Upper) / 2,
		RCULower:         float64(reads.Lower) / 2,
		RCUUpper:         float64(reads.Upper) / 2,
		AvgRCUPerSecond:  float64(reads.Upper) / 2 / j.seconds,
		PeakRCUPerSecond: float64(reads.Peak) / 2,
		// Throttles and condition failures are exact for a key tracked
		// from its first one; Upper otherwise (never an undercount).
		ThrottledAttempts:        thr.Upper,
		ConditionalCheckFailures: cond.Upper,
	}
	if w.rcuHalf > 0 {
		k.ReadShare = float64(reads.Upper) / float64(w.rcuHalf)
	}
	if _, up := w.apportioned.Estimate(key); up > 0 {
		k.Apportioned = true
	}
	if m := w.reasons[string(key)]; len(m) > 0 {
		for r, n := range m {
			k.ThrottlingReasons = append(k.ThrottlingReasons, report.ThrottlingReasonCount{Reason: r, Attempts: n})
		}
		slices.SortFunc(k.ThrottlingReasons, func(a, b report.ThrottlingReasonCount) int {
			return cmp.Or(cmp.Compare(b.Attempts, a.Attempts), cmp.Compare(a.Reason, b.Reason))
		})
	}
	if s := w.latency.lookup(key, sketch.Hash(key)); s != nil {
		k.LatencySamples = s.samples
		k.LatencyP50Ms = float64(s.quantile(0.50)) / 1e6
		k.LatencyP99Ms = float64(s.quantile(0.99)) / 1e6
	}
	return k
}

// latencyOutliers applies the outlier rule over the keys with enough
// samples: a p99 over 10× the median key's p99.
func (w *ClientWindow) latencyOutliers(keys []report.ClientKeyReport) {
	var p99s []float64
	for _, k := range keys {
		if k.LatencySamples >= LatencyOutlierMinSamples {
			p99s = append(p99s, k.LatencyP99Ms)
		}
	}
	if len(p99s) < 2 {
		return
	}
	slices.Sort(p99s)
	median := p99s[(len(p99s)-1)/2]
	for i := range keys {
		if keys[i].LatencySamples >= LatencyOutlierMinSamples && keys[i].LatencyP99Ms > LatencyOutlierFactor*median {
			keys[i].LatencyOutlier = true
			keys[i].MedianKeyP99Ms = median
		}
	}
}

// judgeKey flags a key for what made it hot and writes its diagnosis.
func (w *ClientWindow) judgeKey(j judge, k *report.ClientKeyReport, key []byte) {
	cfg := j.cfg
	readSev := report.None
	switch {
	case k.PeakRCUPerSecond >= cfg.CriticalRCUPerSecond:
		readSev = report.Critical
	case k.ReadShare >= cfg.ShareThreshold && k.PeakRCUPerSecond >= cfg.MinRCUPerSecond:
		readSev = report.Warning
	}
	writeSev := j.severity(k.Share, k.PeakWCUPerSecond)
	if readSev != report.None {
		k.HotFor = append(k.HotFor, report.CauseReads)
	}
	if writeSev != report.None {
		k.HotFor = append(k.HotFor, report.CauseWrites)
	}
	sev := worse(readSev, writeSev)
	if k.ThrottledAttempts > 0 {
		k.HotFor = append(k.HotFor, report.CauseThrottling)
		sev = report.Critical // DynamoDB is refusing this key's requests now
	}
	if k.LatencyOutlier {
		k.HotFor = append(k.HotFor, report.CauseLatency)
		sev = worse(sev, report.Warning)
	}
	k.Severity = sev
	if sev == report.None {
		return
	}
	k.RecommendedShards = recommendedShards(k.PeakWCUPerSecond, cfg.PartitionLimit)
	if writeSev != report.None {
		k.Pattern = classify(keyShape{text: string(key[1:]), isString: ddb.KeyType(key[0]) == ddb.String, sortKeyed: true, manyItems: true})
	}
	k.Diagnosis = diagnoseClient(k, cfg)
}

// withClientDefaults fills the client-side thresholds a Config made for
// the stream side leaves at zero.
func (c Config) withClientDefaults() Config {
	if c.ReadPartitionLimit <= 0 {
		c.ReadPartitionLimit = DefaultReadPartitionLimit
	}
	if c.CriticalRCUPerSecond <= 0 {
		c.CriticalRCUPerSecond = DefaultCriticalRCUPerSecond
	}
	if c.MinRCUPerSecond <= 0 {
		c.MinRCUPerSecond = DefaultMinRCUPerSecond
	}
	return c
}

// Requests returns the calls counted in the window.
func (w *ClientWindow) Requests() uint64 { return w.requests }

// Dropped returns the calls counted as dropped in the window.
func (w *ClientWindow) Dropped() uint64 { return w.dropped }
