package alert

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// Dimension names.
const (
	DimensionTableName    = "TableName"
	DimensionPartitionKey = "PartitionKey"
	// DimensionIndexName names the global secondary index whose window a
	// metric describes. A table's own windows never carry it, so an index's
	// figures never mix into the table's: CloudWatch tells metrics apart by
	// their whole set of dimensions.
	DimensionIndexName = "IndexName"
)

// Metric names: the table metrics, one value per report.
const (
	MetricWriteCapacityUnits       = "WriteCapacityUnits"
	MetricStreamRecords            = "StreamRecords"
	MetricDistinctPartitionKeys    = "DistinctPartitionKeys"
	MetricMaxKeyWCUShare           = "MaxKeyWCUShare"
	MetricMaxKeyPeakWCUPerSecond   = "MaxKeyPeakWCUPerSecond"
	MetricHotKeys                  = "HotKeys"
	MetricCriticalHotKeys          = "CriticalHotKeys"
	MetricMalformedRecords         = "MalformedRecords"
	MetricInternalErrors           = "InternalErrors"
	MetricTTLDeletes               = "TTLDeletes"
	MetricWCUIsLowerBound          = "WCUIsLowerBound"
	MetricMaxShardPeakWCUPerSecond = "MaxShardPeakWCUPerSecond"
)

// MetricMinDaysToLimit is the rollup function's daily forecast, per table
// and index: the fewest days until any key's daily peak reaches the
// partition limit (AppendEMFTableValue).
const MetricMinDaysToLimit = "MinDaysToLimit"

// Metric names: the key metrics, one value per published flagged key.
const (
	MetricKeyWriteCapacityUnits = "KeyWriteCapacityUnits"
	MetricKeyWCUShare           = "KeyWCUShare"
	MetricKeyPeakWCUPerSecond   = "KeyPeakWCUPerSecond"
)

// CloudWatch standard units used by the catalogue.
const (
	UnitCount          = "Count"
	UnitCountPerSecond = "Count/Second"
	UnitNone           = "None"
)

// MetricDefinition describes one metric the package can publish.
type MetricDefinition struct {
	Name       string
	Unit       string   // a CloudWatch standard unit
	Dimensions []string // dimension names, in the order they are sent
	// Description says what the value means, for docs/metrics.md and dashboards.
	Description string
	// IndexDimensions are the dimension names, in the order they are sent,
	// when the value describes a global secondary index's window: those of
	// Dimensions with IndexName after TableName. Nil when an index's window
	// does not publish the metric: malformed records, internal errors and
	// stream shards belong to the stream as a whole, and are published once,
	// on the table's window (an index's would always be 0, and billed).
	IndexDimensions []string
}

var (
	tableDims      = []string{DimensionTableName}
	keyDims        = []string{DimensionTableName, DimensionPartitionKey}
	indexDims      = []string{DimensionTableName, DimensionIndexName}
	indexKeyDims   = []string{DimensionTableName, DimensionIndexName, DimensionPartitionKey}
	streamOnlyDims []string // a table metric an index's window does not publish
)

// catalogue lists every metric in the order it is published.
var catalogue = []MetricDefinition{
	{MetricWriteCapacityUnits, UnitCount, tableDims, "WCU of the window's analysed writes (exact; a lower bound when WCUIsLowerBound is 1)", indexDims},
	{MetricStreamRecords, UnitCount, tableDims, "stream records analysed in the window (malformed ones excluded)", indexDims},
	{MetricDistinctPartitionKeys, UnitCount, tableDims, "distinct partition keys written in the window (HyperLogLog estimate)", indexDims},
	{MetricMaxKeyWCUShare, UnitNone, tableDims, "largest share of the window's WCU taken by one reported key, a fraction from 0 to 1", indexDims},
	{MetricMaxKeyPeakWCUPerSecond, UnitCountPerSecond, tableDims, "highest per-second WCU of one reported key (the per-partition limit is 1,000)", indexDims},
	{MetricHotKeys, UnitCount, tableDims, "keys flagged warning or critical", indexDims},
	{MetricCriticalHotKeys, UnitCount, tableDims, "keys flagged critical (peak near the per-partition limit)", indexDims},
	{MetricMalformedRecords, UnitCount, tableDims, "records skipped as malformed", streamOnlyDims},
	{MetricInternalErrors, UnitCount, tableDims, "records lost to a bug in hotkeys (a recovered panic), never the input's fault", streamOnlyDims},
	{MetricTTLDeletes, UnitCount, tableDims, "TTL deletes in the window (0 WCU)", indexDims},
	{MetricWCUIsLowerBound, UnitNone, tableDims, "1 when some record lacked the image needed to size it, so WCU figures are lower bounds; else 0", indexDims},
	{MetricMaxShardPeakWCUPerSecond, UnitCountPerSecond, tableDims, "highest per-second WCU of one stream shard, roughly one table partition", streamOnlyDims},
	{MetricKeyWriteCapacityUnits, UnitCount, keyDims, "WCU of a flagged key in the window (best estimate)", indexKeyDims},
	{MetricKeyWCUShare, UnitNone, keyDims, "share of the window's WCU taken by a flagged key, a fraction from 0 to 1", indexKeyDims},
	{MetricKeyPeakWCUPerSecond, UnitCountPerSecond, keyDims, "highest WCU of a flagged key within one second of the window (a lower bound)", indexKeyDims},
}

// Metrics returns the catalogue of every metric the package can publish, in
// publishing order: the table metrics, then the key metrics. Callers own the
// returned slice.
func Metrics() []MetricDefinition { return cloneDefinitions(catalogue) }

// cloneDefinitions copies a catalogue, its slices too, for callers to own.
func cloneDefinitions(c []MetricDefinition) []MetricDefinition {
	out := make([]MetricDefinition, len(c))
	for i, d := range c {
		d.Dimensions = slices.Clone(d.Dimensions)
		d.IndexDimensions = slices.Clone(d.IndexDimensions)
		out[i] = d
	}
	return out
}

// definitionOf returns the catalogue's entry for a metric name.
func definitionOf(name string) *MetricDefinition {
	for _, c := range [][]MetricDefinition{catalogue, clientCatalogue, onsetCatalogue} {
		for i := range c {
			if c[i].Name == name {
				return &c[i]
			}
		}
	}
	panic("alert: metric " + name + " is not in the catalogue")
}

// A group is the values that share one timestamp and one set of dimensions:
// one EMF line, or a run of PutMetricData datums.
type group struct {
	timestamp time.Time
	dims      []dimension
	values    []value
	// outside is true when CloudWatch would reject the timestamp: the API
	// must not get it (one such datum fails the whole request), while an EMF
	// line is still written, as a log record whose metrics CloudWatch skips.
	outside bool
	// index is true for a global secondary index's window: only metrics
	// with IndexDimensions go in.
	index bool
	// alsoTable puts the values under TableName alone too, as a second
	// EMF dimension set: an index's onsets, so that one alarm per table
	// covers its indexes (EMF only; the API path never sees such a group).
	alsoTable bool
}

type dimension struct{ name, value string }

type value struct {
	name, unit string
	v          float64
}

// CloudWatch accepts timestamps from two weeks back to two hours ahead and
// values within ±2^360; values nearer to zero than 2^-260 are rejected too.
// The margins leave room for clock skew and for the request's own time.
const (
	maxAge       = 14*24*time.Hour - 10*time.Minute
	maxAhead     = 2*time.Hour - 10*time.Minute
	maxMagnitude = 0x1p360
	minMagnitude = 0x1p-260
)

// collector turns reports into groups and counts what it had to leave out.
type collector struct {
	top       int
	now       time.Time
	groups    []group
	nonFinite int
	err       error
}

// addStream collects a stream report's table metrics, and its published
// keys'.
func (c *collector) addStream(i int, r *report.Report) {
	g, ok := c.window(i, r.Window, "")
	if !ok {
		return
	}
	c.tableValues(&g, r)
	c.groups = append(c.groups, g)
	for _, k := range publishedKeys(len(r.HotKeys), func(k int) *report.KeyFigures { return &r.HotKeys[k].KeyFigures }, c.top) {
		kg := keyGroup(g, &r.HotKeys[k].KeyFigures)
		c.put(&kg, MetricKeyWriteCapacityUnits, float64(r.HotKeys[k].WCU))
		c.put(&kg, MetricKeyWCUShare, r.HotKeys[k].Share)
		c.put(&kg, MetricKeyPeakWCUPerSecond, r.HotKeys[k].PeakWCUPerSecond)
		c.groups = append(c.groups, kg)
	}
}

// window returns the group that a report's table metrics go in, or false
// (and the reason in c.err) when the report cannot be published: no table,
// no start, an end before the start, or a client's report of an index.
func (c *collector) window(i int, w report.Window, source string) (group, bool) {
	if w.Table == "" || w.Start.IsZero() || w.End.Before(w.Start) || (source == report.SourceClient && w.Index != "") {
		c.err = errors.Join(c.err, fmt.Errorf("%w: report %d: table %q, index %q, source %q, window %v to %v",
			ErrInvalidReport, i, w.Table, w.Index, source, w.Start, w.End))
		return group{}, false
	}
	// The window's start, not its end, stamps its metrics: windows are
	// aligned to multiples of their length, so with a period equal to the
	// window each window is exactly one datapoint in the period it describes,
	// while its end would fall in the next period. A window published again
	// also lands on the same datapoint.
	ts := w.Start.UTC()
	age := c.now.Sub(ts)
	outside := age > maxAge || age < -maxAhead

	// An index's window carries IndexName after TableName, on its table
	// metrics and on its keys' (catalogue: IndexDimensions).
	dims := []dimension{{DimensionTableName, DimensionValue(w.Table)}}
	index := w.Index != ""
	if index {
		dims = append(dims, dimension{DimensionIndexName, DimensionValue(w.Index)})
	}
	return group{timestamp: ts, dims: dims, outside: outside, index: index}, true
}

// keyGroup returns the group of a key's metrics in the window of table
// group g: g's dimensions and PartitionKey.
func keyGroup(g group, k *report.KeyFigures) group {
	g.dims = append(slices.Clip(g.dims), dimension{DimensionPartitionKey, DimensionValue(k.Key)})
	g.values = nil
	return g
}

// tableValues puts the table metrics of r into g, in catalogue order (for
// an index's window, those the catalogue gives IndexDimensions).
func (c *collector) tableValues(g *group, r *report.Report) {
	var maxShare, maxPeak, maxShardPeak float64
	for _, ks := range [][]report.KeyReport{r.HotKeys, r.TopKeys} {
		for k := range ks {
			maxShare = maxFinite(maxShare, ks[k].Share)
			maxPeak = maxFinite(maxPeak, ks[k].PeakWCUPerSecond)
		}
	}
	critical := 0
	for k := range r.HotKeys {
		if r.HotKeys[k].Severity == report.Critical {
			critical++
		}
	}
	for s := range r.Shards {
		maxShardPeak = maxFinite(maxShardPeak, r.Shards[s].PeakWCUPerSecond)
	}
	lowerBound := 0.0
	if r.WCUIsLowerBound {
		lowerBound = 1
	}
	c.put(g, MetricWriteCapacityUnits, float64(r.WCU))
	c.put(g, MetricStreamRecords, float64(r.Records))
	c.put(g, MetricDistinctPartitionKeys, float64(r.DistinctKeys))
	c.put(g, MetricMaxKeyWCUShare, maxShare)
	c.put(g, MetricMaxKeyPeakWCUPerSecond, maxPeak)
	c.put(g, MetricHotKeys, float64(len(r.HotKeys)))
	c.put(g, MetricCriticalHotKeys, float64(critical))
	c.put(g, MetricMalformedRecords, float64(r.Malformed))
	c.put(g, MetricInternalErrors, float64(r.InternalErrors))
	c.put(g, MetricTTLDeletes, float64(r.TTLDeletes))
	c.put(g, MetricWCUIsLowerBound, lowerBound)
	c.put(g, MetricMaxShardPeakWCUPerSecond, maxShardPeak)
}

// put appends a value unless CloudWatch would reject it, or g is an index's
// window and the catalogue does not publish the metric for indexes.
func (c *collector) put(g *group, name string, v float64) {
	d := definitionOf(name)
	if g.index && d.IndexDimensions == nil {
		return
	}
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || a > maxMagnitude:
		c.nonFinite++
		return
	case a < minMagnitude:
		v = 0
	}
	g.values = append(g.values, value{name, d.Unit, v})
}

func maxFinite(m, v float64) float64 {
	if v > m && v <= maxMagnitude {
		return v
	}
	return m
}

// publishedKeys returns which of n flagged keys (key(i) is the i-th) get
// key metrics: the most severe first, then the heaviest, at most top of
// them.
func publishedKeys(n int, key func(i int) *report.KeyFigures, top int) []int {
	if top <= 0 || n == 0 {
		return nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := key(i), key(j)
		return cmp.Or(
			cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
			cmp.Compare(b.WCU, a.WCU),
			cmp.Compare(a.Key, b.Key),
		)
	})
	return order[:min(top, n)]
}
