package report

import (
	"encoding/json"
	"errors"
	"fmt"
)

// SourceClient is the "source" of a ClientReport's JSON: it tells a
// client's report from a stream's, which has none.
const SourceClient = "client"

// ClientReport is what an instrumented DynamoDB client (package
// clientwatch) saw of one table in one closed window: the calls, what they
// cost and how they fared, per partition key. Totals are exact: the sum of
// the ConsumedCapacity DynamoDB returned.
type ClientReport struct {
	Window

	Requests             uint64  // calls completed (each with all its attempts)
	WCU                  uint64  // write capacity consumed
	RCU                  float64 // read capacity consumed
	DistinctKeys         uint64  // HyperLogLog estimate of the keys called
	UnattributedRequests uint64  // calls that named no key the client could see (see docs/client.md)
	UnattributedRCU      float64 // of RCU, charged to no key
	UnattributedWCU      uint64  // of WCU, charged to no key
	ApportionedRCU       float64 // of RCU, split over several keys by item size
	ApportionedWCU       uint64  // of WCU, split over several keys by item size
	// ThrottledAttempts counts the attempts DynamoDB throttled, retried
	// ones included, whatever ended the call: a throttled request counts
	// once however many keys it names (each key counts it once).
	ThrottledAttempts uint64
	// UnprocessedItems counts the items batches handed back unprocessed
	// (UnprocessedItems, UnprocessedKeys): DynamoDB's throttling of part
	// of a batch, apart from ThrottledAttempts.
	UnprocessedItems         uint64
	ConditionalCheckFailures uint64 // writes refused by their condition (still charged)
	Dropped                  uint64 // calls not recorded: the client's queue was full
	// InternalErrors counts calls whose recording hit a bug of ours (a
	// panic, recovered): the call itself was not touched.
	InternalErrors uint64
	// CapacityEstimated is true when the window's RCU and WCU were
	// estimated from item sizes (clientwatch's EstimateCapacity mode), not
	// read from DynamoDB's ConsumedCapacity: lower bounds, not exact.
	CapacityEstimated bool

	HotKeys []ClientKeyReport // flagged keys: throttled first, then by load
	TopKeys []ClientKeyReport // the Top heaviest keys, flagged or not, in the same order
}

// ClientKeyReport describes one partition key as the client saw it. RCU
// figures are bounded like WCU's: the truth is within [RCULower, RCUUpper].
type ClientKeyReport struct {
	KeyFigures

	Requests         uint64  `json:"requests,omitempty"` // calls on the key (an upper bound)
	RCU              float64 `json:"rcu,omitempty"`      // best estimate
	RCULower         float64 `json:"rcu_lower,omitempty"`
	RCUUpper         float64 `json:"rcu_upper,omitempty"`
	ReadShare        float64 `json:"read_share,omitempty"` // RCU / window RCU
	AvgRCUPerSecond  float64 `json:"avg_rcu_per_second,omitempty"`
	PeakRCUPerSecond float64 `json:"peak_rcu_per_second,omitempty"` // highest RCU within one second (a lower bound)
	// ReadSaturatedSeconds counts the seconds of the window in which the
	// key's RCU was at the saturation level (by default 90 % of the
	// 3,000 RCU/s read limit) or more: the read side of KeyFigures'
	// SaturatedSeconds, which counts its WCU. They are kept apart because
	// the fixes differ (a cache for reads, write sharding for writes), and
	// a key may be pinned at both limits at once.
	ReadSaturatedSeconds int `json:"read_saturated_seconds,omitempty"`
	// Apportioned is true when some of the key's capacity is its share of a
	// multi-key request (batch, transaction, Scan), split by item sizes:
	// the request's total is exact, the split follows DynamoDB's size rules.
	Apportioned              bool                    `json:"apportioned,omitempty"`
	ThrottledAttempts        uint64                  `json:"throttled_attempts,omitempty"`
	ThrottlingReasons        []ThrottlingReasonCount `json:"throttling_reasons,omitempty"`
	UnprocessedItems         uint64                  `json:"unprocessed_items,omitempty"` // items of the key batches left unprocessed
	ConditionalCheckFailures uint64                  `json:"conditional_check_failures,omitempty"`
	// Latency of the key's calls as the application saw them, retries
	// included; quantiles are bucket upper edges (at most 19 % high).
	LatencySamples uint64  `json:"latency_samples,omitempty"`
	LatencyP50Ms   float64 `json:"latency_p50_ms,omitempty"`
	LatencyP99Ms   float64 `json:"latency_p99_ms,omitempty"`
	LatencyOutlier bool    `json:"latency_outlier,omitempty"`   // p99 over 10× the median key's, ≥ 20 samples each
	MedianKeyP99Ms float64 `json:"median_key_p99_ms,omitempty"` // set with LatencyOutlier
	// HotFor says what flagged the key.
	HotFor []Cause `json:"hot_for,omitempty"`
}

// Cause is what flagged a client-side key.
type Cause string

// Causes, in the order a key's HotFor lists them.
const (
	// CauseSaturated: its reads or writes stayed at the saturation level
	// for the configured seconds (Saturated): most likely throttled.
	CauseSaturated  Cause = "saturated"
	CauseReads      Cause = "reads"
	CauseWrites     Cause = "writes"
	CauseThrottling Cause = "throttling"
	CauseLatency    Cause = "latency"
)

// ThrottlingReasonCount is how many throttled attempts of a key DynamoDB
// gave one reason for (ThrottlingReasons[].reason, e.g.
// TableReadKeyRangeThroughputExceeded; "" when the error carried none).
type ThrottlingReasonCount struct {
	Reason   string `json:"reason"`
	Attempts uint64 `json:"attempts"`
}

// clientJSON is a ClientReport's JSON: the stream report's shape, so that
// one reader reads both, with "source" first, the stream's own counts at
// zero, and the client's totals after distinct_keys. The client's WCU is
// DynamoDB's own figure, never a lower bound, and it lists no stream
// shards.
type clientJSON struct {
	Source string `json:"source"`
	Window
	Totals              // the stream's counters: the client's WCU and internal errors, the rest 0
	DistinctKeys uint64 `json:"distinct_keys"`

	Requests                 uint64  `json:"requests,omitempty"`
	RCU                      float64 `json:"rcu,omitempty"`
	UnattributedRequests     uint64  `json:"unattributed_requests,omitempty"`
	UnattributedRCU          float64 `json:"unattributed_rcu,omitempty"`
	UnattributedWCU          uint64  `json:"unattributed_wcu,omitempty"`
	ApportionedRCU           float64 `json:"apportioned_rcu,omitempty"`
	ApportionedWCU           uint64  `json:"apportioned_wcu,omitempty"`
	ThrottledAttempts        uint64  `json:"throttled_attempts,omitempty"`
	UnprocessedItems         uint64  `json:"unprocessed_items,omitempty"`
	ConditionalCheckFailures uint64  `json:"conditional_check_failures,omitempty"`
	Dropped                  uint64  `json:"dropped,omitempty"`
	CapacityEstimated        bool    `json:"capacity_estimated,omitempty"`

	HotKeys           []ClientKeyReport `json:"hot_keys"`
	TopKeys           []ClientKeyReport `json:"top_keys"`
	OtherKeysWCUUpper uint64            `json:"other_keys_wcu_upper"`
	Shards            [0]ShardReport    `json:"shards"`
}

var (
	_ json.Marshaler   = ClientReport{}
	_ json.Unmarshaler = (*ClientReport)(nil)
)

// MarshalJSON writes the report in the `--format json` shape (clientJSON).
func (r ClientReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(clientJSON{
		Source: SourceClient, Window: r.Window,
		Totals: Totals{WCU: r.WCU, InternalErrors: r.InternalErrors}, DistinctKeys: r.DistinctKeys,
		Requests: r.Requests, RCU: r.RCU,
		UnattributedRequests: r.UnattributedRequests, UnattributedRCU: r.UnattributedRCU, UnattributedWCU: r.UnattributedWCU,
		ApportionedRCU: r.ApportionedRCU, ApportionedWCU: r.ApportionedWCU,
		ThrottledAttempts: r.ThrottledAttempts, UnprocessedItems: r.UnprocessedItems,
		ConditionalCheckFailures: r.ConditionalCheckFailures, Dropped: r.Dropped,
		CapacityEstimated: r.CapacityEstimated, HotKeys: r.HotKeys, TopKeys: r.TopKeys,
	})
}

// ErrNotClient is returned by ClientReport.UnmarshalJSON for a report
// whose source is not "client": a stream's, whose figures are not a
// client's. A reader of mixed windows decodes those as a Report.
var ErrNotClient = errors.New("report: not a client's report")

// UnmarshalJSON reads what MarshalJSON writes; it returns an error
// wrapping ErrNotClient for any other source.
func (r *ClientReport) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil // as encoding/json does for any value
	}
	var j clientJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Source != SourceClient {
		return fmt.Errorf("%w: source %q", ErrNotClient, j.Source)
	}
	*r = ClientReport{
		Window: j.Window,
		WCU:    j.WCU, DistinctKeys: j.DistinctKeys,
		Requests: j.Requests, RCU: j.RCU,
		UnattributedRequests: j.UnattributedRequests, UnattributedRCU: j.UnattributedRCU, UnattributedWCU: j.UnattributedWCU,
		ApportionedRCU: j.ApportionedRCU, ApportionedWCU: j.ApportionedWCU,
		ThrottledAttempts: j.ThrottledAttempts, UnprocessedItems: j.UnprocessedItems,
		ConditionalCheckFailures: j.ConditionalCheckFailures, Dropped: j.Dropped,
		InternalErrors: j.InternalErrors, CapacityEstimated: j.CapacityEstimated,
		HotKeys: j.HotKeys, TopKeys: j.TopKeys,
	}
	return nil
}
