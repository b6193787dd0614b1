package clientwindow

import (
	"cmp"
	"slices"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Report judges every candidate key (the heaviest by calls, reads, writes
// and events) against the read and write thresholds, flags throttled keys
// whatever their share, applies the latency outlier rule, and says what
// to do.
func (w *Window) Report(cfg detector.Config) report.ClientReport {
	cfg = withDefaults(cfg)
	rep := report.ClientReport{
		Window:                   report.Window{Table: w.table, Index: w.index, Start: w.Start(), End: w.End()},
		Requests:                 w.requests,
		UnattributedRequests:     w.unattributed,
		WCU:                      w.wcu,
		RCU:                      float64(w.rcuHalf) / 2,
		UnattributedRCU:          float64(w.unattributedRCUHalf) / 2,
		UnattributedWCU:          w.unattributedW,
		ApportionedRCU:           float64(w.apportionedRCUHalf) / 2,
		ApportionedWCU:           w.apportionedW,
		ThrottledAttempts:        w.throttled,
		UnprocessedItems:         w.unprocessed,
		ConditionalCheckFailures: w.conditionalFailed,
		Dropped:                  w.dropped,
		InternalErrors:           w.internalErrors,
		CapacityEstimated:        w.estimated,
		HotKeys:                  []report.ClientKeyReport{},
		TopKeys:                  []report.ClientKeyReport{},
	}
	if w.calls != nil {
		rep.DistinctKeys = w.calls.Distinct()
	}
	if w.requests > w.unattributed && rep.DistinctKeys == 0 {
		rep.DistinctKeys = 1
	}
	j := judge{cfg: cfg, total: w.wcu, seconds: float64(w.end - w.start)}

	cands := w.candidates(cfg.Sketch.Counters)
	keys := make([]report.ClientKeyReport, len(cands))
	for i, key := range cands {
		keys[i] = w.keyReport(j, key)
	}
	w.latencyOutliers(keys)
	reads, writes := w.saturatedSeconds()
	for i := range keys {
		h := sketch.Hash(cands[i])
		keys[i].ReadSaturatedSeconds, keys[i].SaturatedSeconds = reads[h], writes[h]
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

// candidates are every tracked key of every sketch, once, typed: the
// events' keys without their kind byte.
func (w *Window) candidates(n int) [][]byte {
	seen := map[string]bool{}
	var cands [][]byte
	add := func(key []byte) {
		if len(key) > 0 && !seen[string(key)] {
			seen[string(key)] = true
			cands = append(cands, key)
		}
	}
	if w.events != nil {
		for _, e := range w.events.Top(n) {
			if eventKind(e.Key[0]) != eventApportioned {
				add(e.Key[1:])
			}
		}
	}
	for _, s := range []*sketch.Summary{w.reads, w.writes, w.calls} {
		if s != nil {
			for _, e := range s.Top(n) {
				add(e.Key)
			}
		}
	}
	return cands
}

// byClientLoad orders client-side keys: throttled first (throttled
// attempts, then unprocessed items), then by capacity (WCU weighs as 3
// RCU, DynamoDB's own exchange rate between the two per-partition limits),
// then by key.
func byClientLoad(a, b report.ClientKeyReport) int {
	load := func(k report.ClientKeyReport) float64 { return k.RCU + 3*float64(k.WCU) }
	return cmp.Or(cmp.Compare(b.ThrottledAttempts, a.ThrottledAttempts), cmp.Compare(b.UnprocessedItems, a.UnprocessedItems),
		cmp.Compare(load(b), load(a)), cmp.Compare(a.Key, b.Key))
}

// bounds is key's entry in s: tracked, or the count-min's bounds; zero
// when s was never made.
func bounds(s *sketch.Summary, key []byte) (e sketch.Entry) {
	if s == nil {
		return e
	}
	if got, ok := s.Lookup(key); ok {
		return got
	}
	e.Lower, e.Upper = s.Estimate(key)
	return e
}

// kindBounds is bounds of key under kind in s.
func (w *Window) kindBounds(s *sketch.Summary, kind byte, key []byte) sketch.Entry {
	if s == nil {
		return sketch.Entry{}
	}
	w.keyBuf = append(append(w.keyBuf[:0], kind), key...)
	return bounds(s, w.keyBuf)
}

func (w *Window) keyReport(j judge, key []byte) report.ClientKeyReport {
	calls, reads, writes := bounds(w.calls, key), bounds(w.reads, key), bounds(w.writes, key)
	// Throttles, unprocessed items and condition failures are exact for a
	// key tracked from its first one; Upper otherwise (never an
	// undercount).
	thr := w.kindBounds(w.events, byte(eventThrottle), key)
	unp := w.kindBounds(w.events, byte(eventUnprocessed), key)
	cond := w.kindBounds(w.events, byte(eventConditional), key)
	k := report.ClientKeyReport{
		KeyFigures:               j.cfg.KeyFigures(key, writes, j.total, j.seconds),
		Requests:                 calls.Upper,
		RCU:                      float64(reads.Upper) / 2,
		RCULower:                 float64(reads.Lower) / 2,
		RCUUpper:                 float64(reads.Upper) / 2,
		AvgRCUPerSecond:          float64(reads.Upper) / 2 / j.seconds,
		PeakRCUPerSecond:         float64(reads.Peak) / 2,
		ThrottledAttempts:        thr.Upper,
		UnprocessedItems:         unp.Upper,
		ConditionalCheckFailures: cond.Upper,
	}
	w.widen(&k, key)
	if w.rcuHalf > 0 {
		k.ReadShare = float64(reads.Upper) / float64(w.rcuHalf)
	}
	if w.kindBounds(w.events, byte(eventApportioned), key).Upper > 0 {
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

// widen moves k's bounds out by the slack of its apportioned shares: the
// units it may have been charged too many (below) or too few (above).
func (w *Window) widen(k *report.ClientKeyReport, key []byte) {
	if w.slack == nil {
		return
	}
	rb, ra := w.kindBounds(w.slack, byte(slackReadBelow), key).Upper, w.kindBounds(w.slack, byte(slackReadAbove), key).Upper
	wb, wa := w.kindBounds(w.slack, byte(slackWriteBelow), key).Upper, w.kindBounds(w.slack, byte(slackWriteAbove), key).Upper
	k.RCULower = max(k.RCULower-float64(rb)/2, 0)
	k.RCUUpper += float64(ra) / 2
	k.WCULower -= min(k.WCULower, wb)
	k.WCUUpper += wa
}

// latencyOutliers applies the outlier rule over the keys with enough
// samples: a p99 over 10× the median key's p99.
func (w *Window) latencyOutliers(keys []report.ClientKeyReport) {
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
func (w *Window) judgeKey(j judge, k *report.ClientKeyReport, key []byte) {
	cfg := j.cfg
	readSev := report.None
	switch {
	case k.PeakRCUPerSecond >= cfg.CriticalRCUPerSecond:
		readSev = report.Critical
	case k.ReadShare >= cfg.ShareThreshold && k.PeakRCUPerSecond >= cfg.MinRCUPerSecond:
		readSev = report.Warning
	}
	writeSev := cfg.Severity(k.Share, k.PeakWCUPerSecond)
	// Saturated on either side: pinned at a limit, most likely throttled
	// (the stream side's rule, Config.SaturationLevel, against both limits).
	_, need := cfg.SaturationLevel(cfg.PartitionLimit)
	readSat, writeSat := k.ReadSaturatedSeconds >= need, k.SaturatedSeconds >= need
	if readSat || writeSat {
		k.HotFor = append(k.HotFor, report.CauseSaturated)
		k.Saturated = true
		k.RecommendedShardsIsLowerBound = writeSat // write throttling hides write demand; read throttling does not
	}
	if readSev != report.None {
		k.HotFor = append(k.HotFor, report.CauseReads)
	}
	if writeSev != report.None {
		k.HotFor = append(k.HotFor, report.CauseWrites)
	}
	sev := readSev.Worse(writeSev)
	if k.Saturated {
		sev = report.Critical
	}
	if k.ThrottledAttempts > 0 || k.UnprocessedItems > 0 {
		k.HotFor = append(k.HotFor, report.CauseThrottling)
		sev = report.Critical // DynamoDB is refusing this key's requests now
	}
	if k.LatencyOutlier {
		k.HotFor = append(k.HotFor, report.CauseLatency)
		sev = sev.Worse(report.Warning)
	}
	k.Severity = sev
	if sev == report.None {
		return
	}
	k.RecommendedShards = detector.RecommendedShards(k.PeakWCUPerSecond, cfg.PartitionLimit)
	if writeSev != report.None {
		// A client cannot tell whether the table has a sort key, nor how
		// many items a key holds: only the key's shape explains it.
		k.Pattern = detector.Classify(ddb.Key{Type: ddb.KeyType(key[0]), Value: key[1:]}, true, true)
	}
	k.Diagnosis = diagnoseClient(k, cfg)
}

// judge holds what every key of a window is judged against.
type judge struct {
	cfg     detector.Config // the client defaults filled in (withDefaults)
	total   uint64          // the window's WCU
	seconds float64         // the window's length
}

// withDefaults fills the client-side thresholds a Config made for the
// stream side leaves at zero.
func withDefaults(c detector.Config) detector.Config {
	if c.ReadPartitionLimit <= 0 {
		c.ReadPartitionLimit = DefaultReadPartitionLimit
	}
	if c.CriticalRCUPerSecond <= 0 {
		c.CriticalRCUPerSecond = DefaultCriticalRCUPerSecond
	}
	if c.MinRCUPerSecond <= 0 {
		c.MinRCUPerSecond = DefaultMinRCUPerSecond
	}
	if c.PartitionLimit <= 0 {
		c.PartitionLimit = detector.DefaultPartitionLimit
	}
	return c
}
