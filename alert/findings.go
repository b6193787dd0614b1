package alert

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Messages of the findings log, for Logs Insights filters.
const (
	MsgHotKey          = "hot partition key"
	MsgShardSaturated  = "stream shard saturated"
	MsgTerminatedEarly = "window terminated early"
	MsgPutFailed       = "cloudwatch PutMetricData failed"
)

// newLogger writes one JSON object per line. The time attribute is dropped:
// CloudWatch Logs stamps every line on ingestion, the window's own times are
// fields, and leaving it out makes the output reproducible.
func newLogger(w *errWriter) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// logFindings writes one line per flagged key of a stream's reports (ERROR
// when critical, WARN otherwise) and one per window that Lambda terminated
// early. The key is printed exactly as the detector reported it;
// ShardedKeyPart keys are not printed, only the write shards' number and
// load.
func logFindings(ctx context.Context, log *slog.Logger, reports []report.Report) {
	for i := range reports {
		r := &reports[i]
		window := windowAttrs(r.Window)
		if r.TerminatedEarly {
			log.LogAttrs(ctx, slog.LevelWarn, MsgTerminatedEarly, append([]slog.Attr{
				slog.String("table", r.Table),
				slog.Uint64("records", r.Records),
				slog.Uint64("wcu", r.WCU),
				slog.Int("hot_keys", len(r.HotKeys)),
			}, window...)...)
		}
		for k := range r.HotKeys {
			key := &r.HotKeys[k]
			attrs := keyAttrs(r.Window, &key.KeyFigures)
			if len(key.Shards) > 0 {
				wcu := make([]uint64, len(key.Shards))
				for s := range key.Shards {
					wcu[s] = key.Shards[s].WCU
				}
				attrs = append(attrs, slog.Int("write_shards", len(wcu)), slog.Any("write_shard_wcu", wcu))
			}
			attrs = append(attrs, slog.Bool("wcu_is_lower_bound", r.WCUIsLowerBound))
			if key.SaturatedSeconds > 0 {
				attrs = append(attrs, slog.Int("saturated_seconds", key.SaturatedSeconds), slog.Bool("saturated", key.Saturated),
					slog.Bool("recommended_shards_is_lower_bound", key.RecommendedShardsIsLowerBound))
			}
			if r.TerminatedEarly {
				attrs = append(attrs, slog.Bool("terminated_early", true))
			}
			log.LogAttrs(ctx, level(key.Severity), MsgHotKey, append(attrs, window...)...)
		}
		logSaturatedShards(ctx, log, r, window)
	}
}

// logSaturatedShards writes one ERROR line per saturated stream shard: its
// partition was pinned at the limit, whether or not one key alone was.
func logSaturatedShards(ctx context.Context, log *slog.Logger, r *report.Report, window []slog.Attr) {
	for _, s := range r.Shards {
		if !s.Saturated {
			continue
		}
		log.LogAttrs(ctx, slog.LevelError, MsgShardSaturated, append([]slog.Attr{
			slog.String("table", r.Table),
			slog.String("shard", s.Shard),
			slog.Int("saturated_seconds", s.SaturatedSeconds),
			floatAttr("peak_wcu_per_second", s.PeakWCUPerSecond),
			slog.Uint64("wcu", s.WCU),
			slog.String("diagnosis", "Successful writes pinned at the partition limit: the partition's writes are most likely being throttled, and its true demand is at least what was observed, whichever keys share it. The hot keys of this window, if any, are the likely cause; otherwise spread the keys that share it."),
		}, window...)...)
	}
}

// logClientFindings writes one line per flagged key of a client's reports:
// a stream's line, and what the client saw of the key.
func logClientFindings(ctx context.Context, log *slog.Logger, reports []report.ClientReport) {
	for i := range reports {
		r := &reports[i]
		window := windowAttrs(r.Window)
		for k := range r.HotKeys {
			key := &r.HotKeys[k]
			attrs := append(keyAttrs(r.Window, &key.KeyFigures),
				slog.String("source", report.SourceClient),
				slog.Any("hot_for", key.HotFor),
				floatAttr("rcu", key.RCU),
				floatAttr("peak_rcu_per_second", key.PeakRCUPerSecond),
				slog.Uint64("throttled_attempts", key.ThrottledAttempts),
				floatAttr("latency_p99_ms", key.LatencyP99Ms),
				// DynamoDB's own figure, never a lower bound: said, so that
				// a client's line has every field a stream's has.
				slog.Bool("wcu_is_lower_bound", false),
			)
			if key.SaturatedSeconds > 0 || key.ReadSaturatedSeconds > 0 {
				attrs = append(attrs, slog.Int("saturated_seconds", key.SaturatedSeconds), slog.Int("read_saturated_seconds", key.ReadSaturatedSeconds),
					slog.Bool("saturated", key.Saturated), slog.Bool("recommended_shards_is_lower_bound", key.RecommendedShardsIsLowerBound))
			}
			log.LogAttrs(ctx, level(key.Severity), MsgHotKey, append(attrs, window...)...)
		}
	}
}

// keyAttrs are what a findings line says of any flagged key, in a slice
// with room for what either kind of line adds (at most 13 attributes, a
// saturated client key's with its window: one allocation a line).
func keyAttrs(w report.Window, key *report.KeyFigures) []slog.Attr {
	attrs := make([]slog.Attr, 1, 28)
	attrs[0] = slog.String("table", w.Table)
	if w.Index != "" {
		attrs = append(attrs, slog.String("index", w.Index))
	}
	return append(attrs,
		slog.String("key", key.Key),
		slog.String("type", key.Type),
		slog.String("dimension", DimensionValue(key.Key)),
		slog.String("severity", string(key.Severity)),
		slog.String("pattern", string(key.Pattern)),
		slog.String("diagnosis", key.Diagnosis),
		slog.Uint64("wcu", key.WCU),
		slog.Uint64("wcu_lower", key.WCULower),
		slog.Uint64("wcu_upper", key.WCUUpper),
		floatAttr("share", key.Share),
		floatAttr("avg_wcu_per_second", key.AvgWCUPerSecond),
		floatAttr("peak_wcu_per_second", key.PeakWCUPerSecond),
		slog.Int("recommended_shards", key.RecommendedShards),
	)
}

// windowAttrs close every findings line: the window it is of.
func windowAttrs(w report.Window) []slog.Attr {
	return []slog.Attr{
		slog.String("window_start", formatTime(w.Start)),
		slog.String("window_end", formatTime(w.End)),
	}
}

// level is ERROR for a critical key, WARN otherwise.
func level(s report.Severity) slog.Level {
	if s == report.Critical {
		return slog.LevelError
	}
	return slog.LevelWarn
}

// logPutFailure records a failed PutMetricData by error code only: the
// service's message may quote dimension values, that is, partition keys.
func logPutFailure(ctx context.Context, log *slog.Logger, namespace string, err error, unsent int, fallback bool) {
	log.LogAttrs(ctx, slog.LevelError, MsgPutFailed,
		slog.String("namespace", namespace),
		slog.String("error_code", ErrorCode(err)),
		slog.Int("metrics_unsent", unsent),
		slog.Bool("emf_fallback", fallback),
	)
}

// ErrorCode names an AWS SDK error by its code (or the context's end, or
// a transport error) without quoting its message, which may repeat what
// was sent, partition keys included: for log lines.
func ErrorCode(err error) string {
	var apiErr smithy.APIError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.ErrorCode()
	case errors.Is(err, context.DeadlineExceeded):
		return "DeadlineExceeded"
	case errors.Is(err, context.Canceled):
		return "Canceled"
	}
	return "TransportError"
}

// floatAttr keeps the line valid JSON when a figure is not finite.
func floatAttr(key string, v float64) slog.Attr {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return slog.String(key, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return slog.Float64(key, v)
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
