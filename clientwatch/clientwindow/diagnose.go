package clientwindow

import (
	"fmt"
	"strings"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/report"
)

// saturatedClient is a saturated client key's opening: a sentence for each
// side pinned at its limit, in the stream side's words.
func saturatedClient(k *report.ClientKeyReport, cfg detector.Config) string {
	readHalf, write, need := SaturationLevels(cfg)
	var s []string
	if k.ReadSaturatedSeconds >= need {
		s = append(s, detector.SaturatedText("reads", float64(readHalf)/2, "RCU", k.ReadSaturatedSeconds, ""))
	}
	if k.SaturatedSeconds >= need {
		s = append(s, detector.SaturatedText("writes", float64(write), "WCU", k.SaturatedSeconds,
			fmt.Sprintf("; its recommended shard count (%d) is a lower bound", k.RecommendedShards)))
	}
	return strings.Join(s, " ")
}

// diagnoseClient explains a flagged client-side key: which of saturation,
// reads, writes, throttling and latency made it hot, and what to do about
// each.
func diagnoseClient(k *report.ClientKeyReport, cfg detector.Config) string {
	var b strings.Builder
	for _, cause := range k.HotFor {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch cause {
		case report.CauseSaturated:
			b.WriteString(saturatedClient(k, cfg))
		case report.CauseReads:
			fmt.Fprintf(&b, "Read-hot: %.0f%% of the window's RCU, peaking at %s RCU/s against the %s RCU/s per-partition read limit."+
				" Serve the item from a read-through cache (DAX, or an application cache with a short TTL), or use eventually consistent reads, which cost half.",
				k.ReadShare*100, report.Rate(k.PeakRCUPerSecond), report.Rate(cfg.ReadPartitionLimit))
		case report.CauseWrites:
			b.WriteString("Write-hot: ")
			b.WriteString(detector.Diagnose(k.Pattern, &k.KeyFigures, cfg.PartitionLimit))
		case report.CauseThrottling:
			fmt.Fprintf(&b, "Throttled: DynamoDB refused %d attempts on this key in the window", k.ThrottledAttempts)
			if k.UnprocessedItems > 0 {
				fmt.Fprintf(&b, " and left %d of its batch items unprocessed", k.UnprocessedItems)
			}
			if len(k.ThrottlingReasons) > 0 && k.ThrottlingReasons[0].Reason != "" {
				fmt.Fprintf(&b, " (%s", k.ThrottlingReasons[0].Reason)
				if len(k.ThrottlingReasons) > 1 {
					fmt.Fprintf(&b, " and %d more reasons", len(k.ThrottlingReasons)-1)
				}
				b.WriteByte(')')
			}
			b.WriteString(", so its true demand is higher than the figures show.")
			switch throttleKind(k.ThrottlingReasons) {
			case report.CauseReads:
				b.WriteString(" The reads are throttled: cache the item (DAX or an application cache).")
			case report.CauseWrites:
				b.WriteString(fmt.Sprintf(" The writes are throttled: write-shard the key into %d suffixes.", k.RecommendedShards))
			}
		case report.CauseLatency:
			fmt.Fprintf(&b, "Slow: p99 latency %.1f ms is over %d× the median key's p99 (%.1f ms), over %d calls: the first sign of a hot partition.",
				k.LatencyP99Ms, LatencyOutlierFactor, k.MedianKeyP99Ms, k.LatencySamples)
		}
	}
	return b.String()
}

// throttleKind says whether the reasons name reads or writes, or neither.
func throttleKind(rs []report.ThrottlingReasonCount) report.Cause {
	var reads, writes uint64
	for _, r := range rs {
		switch {
		case strings.Contains(r.Reason, "Read"):
			reads += r.Attempts
		case strings.Contains(r.Reason, "Write"):
			writes += r.Attempts
		}
	}
	switch {
	case reads > writes:
		return report.CauseReads
	case writes > reads:
		return report.CauseWrites
	}
	return ""
}
