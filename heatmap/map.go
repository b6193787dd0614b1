package heatmap

import (
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Options size the map. Zero fields take their defaults.
type Options struct {
	// PartitionLimit is the per-partition write cap in WCU/s that the colour
	// scale is drawn against: by default DynamoDB's, 1,000.
	PartitionLimit float64
	// MaxKeys is how many key rows the map shows: the heaviest of the run,
	// 32 by default. The rest are added up in the row "all other keys".
	MaxKeys int
	// MaxColumns caps the columns, 240 by default: a run with more windows
	// than this has consecutive windows bucketed into one column.
	MaxColumns int
	// MaxShards caps the stream-shard rows, 16 by default: the busiest
	// shards are shown.
	MaxShards int
	// MinShare leaves out of the key rows the keys that certainly wrote
	// less than this fraction of the run's WCU (they stay in "all other
	// keys"), so a long tail listed in quiet windows does not crowd out the
	// picture: 0.001 by default. Negative shows every key up to MaxKeys.
	MinShare float64
}

// Defaults. 24 h of 1-minute windows (1,440) become 240 columns of 6
// minutes; with every cell drawn the page stays under 3 MB (a test holds
// it to that).
const (
	defaultPartitionLimit = ddb.PartitionWriteUnits // DynamoDB's per-partition write cap, WCU/s
	defaultMaxKeys        = 32
	defaultMaxColumns     = 240
	defaultMaxShards      = 16
	defaultMinShare       = 0.001
)

func (o Options) withDefaults() Options {
	if !(o.PartitionLimit > 0) {
		o.PartitionLimit = defaultPartitionLimit
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = defaultMaxKeys
	}
	if o.MaxColumns <= 0 {
		o.MaxColumns = defaultMaxColumns
	}
	if o.MaxShards <= 0 {
		o.MaxShards = defaultMaxShards
	}
	if o.MinShare == 0 {
		o.MinShare = defaultMinShare
	}
	return o
}

// Map is the laid-out heatmap of one table: what WriteHTML draws, in a form
// tests can compare whole.
type Map struct {
	Table string
	// Index is the global secondary index the map is of; "" for the table
	// itself. An index's partitions are apart from the table's, so it gets
	// a map of its own.
	Index string
	// Window is the reports' window length; Bucket how many windows one
	// column spans (1 unless the run has more than Options.MaxColumns).
	Window time.Duration
	Bucket int
	Limit  float64 // the partition limit, WCU/s

	Columns []Column
	Rows    []Row // key rows (heaviest first), "all other keys", shard rows

	// HiddenKeys counts the keys the reports listed that have no row (by
	// MaxKeys or MinShare: they are inside "all other keys"); HiddenShards
	// the shards left out by MaxShards.
	HiddenKeys, HiddenShards int
}

// Column is one span of time: one window, or Bucket of them.
type Column struct {
	Start, End time.Time
	Windows    int    // windows that had a report (0: no records at all)
	WCU        uint64 // the table's WCU in it, exact
}

// RowKind says what a row shows.
type RowKind string

// The kinds of rows, top to bottom.
const (
	KeyRow    RowKind = "key"    // one partition key, as the reports name it (redacted when they are)
	othersRow RowKind = "others" // every key not shown as a row, added up
	shardRow  RowKind = "shard"  // one stream shard (roughly one table partition)
)

// Row is one line of the map.
type Row struct {
	Kind RowKind
	Name string // the key (as reports print it) or the shard id; "" for OthersRow
	Type string // the key's type, S, N or B; "" for other rows

	// WCULower and WCUUpper bracket the row's true WCU over the run.
	WCULower, WCUUpper uint64
	Flagged            int // cells with a flagged window

	Cells []Cell // one per column
}

// Cell is one row in one column.
type Cell struct {
	// Listed says the reports give the row a figure in this column: the key
	// was among a window's top or hot keys, the shard carried records, or
	// (others) the column had records. An unlisted key cell still has
	// bounds: [0, the windows' other_keys_wcu_upper].
	Listed             bool
	WCULower, WCUUpper uint64  // bracket the true WCU
	Share              float64 // WCUUpper over the column's WCU (others: WCULower)
	Peak               float64 // highest WCU within one second, a lower bound (0 for others)

	// The worst verdict of the column's windows, with that window's pattern
	// and diagnosis.
	Severity  report.Severity
	Pattern   report.Pattern
	Diagnosis string
}
