package detector

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

// Config holds the detector's thresholds. The CLI flags and the Lambda's
// environment variables are named after its fields (--share-threshold,
// HOTKEYS_SHARE_THRESHOLD, ...).
type Config struct {
	// Window is the length of the tumbling windows, aligned to multiples of
	// itself in Unix time: 1 s to 15 min, whole seconds.
	Window time.Duration
	// ShareThreshold flags a key whose share of the window's WCU is at
	// least this fraction (0 < x ≤ 1) ...
	ShareThreshold float64
	// ... and whose peak WCU within one second is at least MinWCUPerSecond.
	MinWCUPerSecond float64
	// CriticalWCUPerSecond makes a key critical: by default 80 % of the
	// per-partition limit.
	CriticalWCUPerSecond float64
	// PartitionLimit is DynamoDB's per-partition write cap, 1,000 WCU/s.
	PartitionLimit float64
	// A key, or a stream shard, is saturated when its WCU within one second
	// stayed at SaturationFraction of PartitionLimit or more for at least
	// SaturationSeconds seconds of a window: its successful writes are
	// pinned at the limit, so it is most likely throttled. Zero means the
	// default (0.9 and DefaultSaturationSeconds, 3 seconds). The
	// client engine (package clientwatch/clientwindow) applies the same
	// rule to a key's RCU against ReadPartitionLimit as well.
	SaturationFraction float64
	SaturationSeconds  int
	// The client engine also judges reads: a key is a warning when its
	// share of the window's RCU is at least ShareThreshold and its peak is
	// at least MinRCUPerSecond, and critical at CriticalRCUPerSecond;
	// ReadPartitionLimit is DynamoDB's per-partition read cap, 3,000 RCU/s.
	// Zero means the client engine's default (clientwindow's
	// DefaultMinRCUPerSecond, ...): the stream side never reads them.
	MinRCUPerSecond      float64
	CriticalRCUPerSecond float64
	ReadPartitionLimit   float64
	// Top is how many of the heaviest keys a report lists whatever the
	// thresholds.
	Top int
	// Lateness is how long after a window's end, in record time, the
	// Detector waits for stragglers before it closes the window.
	Lateness time.Duration

	// Redactor, when not nil, replaces every key in every report with its
	// keyed hash. Partition keys are often user ids or e-mail addresses;
	// redaction happens here, where reports are built, so nothing
	// downstream (table, JSON, metrics, logs, alarms) ever sees a raw key.
	// redact.New refuses to build one without a secret.
	Redactor *redact.Hasher

	Sketch sketch.Config
	// IndexSketch sizes the windows of global secondary indexes; zero means
	// DefaultIndexSketch.
	IndexSketch sketch.Config
}

// saturation returns the level (whole WCU in one second) and the seconds
// that make a key saturated, defaults filled in.
func (c Config) saturation() (level uint64, seconds int) {
	return c.SaturationLevel(c.PartitionLimit)
}

// SaturationLevel returns the level (whole units in one second) at which
// a key's load against a partition limit of limit units a second counts a
// saturated second, and the seconds at it that make the key saturated:
// SaturationFraction of limit, defaults filled in. It is the one rule for
// writes and reads, the stream side's and the client engine's (package
// clientwatch/clientwindow, which counts reads in half RCU and so passes
// twice ReadPartitionLimit).
func (c Config) SaturationLevel(limit float64) (level uint64, seconds int) {
	f, n := c.saturationRule()
	return levelOf(f * limit), n
}

// saturationRule is the fraction of a partition's limit and the seconds at
// it that make a key saturated, defaults filled in: one rule for reads and
// writes, the stream side and the client's.
func (c Config) saturationRule() (fraction float64, seconds int) {
	f, n := c.SaturationFraction, c.SaturationSeconds
	if f == 0 {
		f = defaultSaturationFraction
	}
	if n == 0 {
		n = DefaultSaturationSeconds
	}
	return f, n
}

// IndexSketchConfig returns the sketch configuration of index windows.
func (c Config) IndexSketchConfig() sketch.Config {
	if c.IndexSketch == (sketch.Config{}) {
		return DefaultIndexSketch()
	}
	return c.IndexSketch
}

// DefaultIndexSketch sizes the windows of global secondary indexes, in
// the Lambda and the CLI alike, so that replaying captured records gives
// the figures the Lambda published: 64 heavy-hitter counters (no key over
// 1/64 of the index's WCU is missed, and every listed key's bounds are at
// most that far apart) and a 256 × 4 count-min (e/256 ≈ 1.1 % of the
// index's WCU with probability 1 - e^-4 ≈ 98 %). They are smaller than a
// table's so that a table's window and 20 index windows travel together
// in one tumbling window's state (see StateBudget), and so that the
// index windows cost the pipeline less (docs/performance.md, "With global
// secondary indexes", has what three indexes cost).
func DefaultIndexSketch() sketch.Config { return sketch.Config{Counters: 64, Width: 256, Depth: 4} }

// Defaults, as documented in docs/cli.md (the flags) and docs/lambda.md
// (the function's variables).
const (
	defaultWindow               = 60 * time.Second
	defaultShareThreshold       = 0.10
	defaultMinWCUPerSecond      = 100
	defaultCriticalWCUPerSecond = 800
	DefaultPartitionLimit       = ddb.PartitionWriteUnits
	DefaultTop                  = 10
	defaultSaturationFraction   = 0.9
	DefaultSaturationSeconds    = 3
	MaxWindow                   = 15 * time.Minute
)

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Window:               defaultWindow,
		ShareThreshold:       defaultShareThreshold,
		MinWCUPerSecond:      defaultMinWCUPerSecond,
		CriticalWCUPerSecond: defaultCriticalWCUPerSecond,
		PartitionLimit:       DefaultPartitionLimit,
		SaturationFraction:   defaultSaturationFraction,
		SaturationSeconds:    DefaultSaturationSeconds,
		Top:                  DefaultTop,
		Lateness:             defaultWindow,
		Sketch:               sketch.DefaultConfig(),
		IndexSketch:          DefaultIndexSketch(),
	}
}

// ErrConfig is wrapped by every validation error.
var ErrConfig = errors.New("detector: invalid configuration")

// A FieldError says which field of a Config is invalid and what it may
// hold. It wraps ErrConfig (and Err, when set). Its message names fields as
// Go does (ShareThreshold); the CLI and the Lambda, which know what their
// users set, name them with Message, by the fields' addresses.
type FieldError struct {
	Field string // the invalid field: "ShareThreshold"
	Value any    // what it held
	Want  string // what it may hold: "a fraction in (0, 1], e.g. 0.10"
	// Below, when set, is the field that Field may not be below, with its
	// value; Want is empty then.
	Below      string
	BelowValue any
	// Err is the cause, for a field checked by another package (Sketch).
	Err error
}

func (e *FieldError) Error() string {
	return ErrConfig.Error() + ": " + e.Message(nil, nil)
}

// Unwrap returns ErrConfig and the cause, if any.
func (e *FieldError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfig, e.Err}
	}
	return []error{ErrConfig}
}

// Message says what is wrong, each field named as names has it, or by its
// Go name: "--share-threshold 2: want a fraction in (0, 1], e.g. 0.10" with
// the CLI's flags. names maps fields of c, by address (&c.ShareThreshold),
// to the names users set them by ("--share-threshold"), so that a caller's
// table of names stops compiling when a field is renamed.
func (e *FieldError) Message(c *Config, names map[any]string) string {
	name := func(field string) string {
		if c == nil {
			return field
		}
		if f := reflect.ValueOf(c).Elem().FieldByName(field); f.IsValid() {
			if n, ok := names[f.Addr().Interface()]; ok {
				return n
			}
		}
		return field
	}
	switch {
	case e.Err != nil:
		return fmt.Sprintf("%s: %v", name(e.Field), e.Err)
	case e.Below != "":
		return fmt.Sprintf("%s %v is below %s %v", name(e.Field), e.Value, name(e.Below), e.BelowValue)
	}
	return fmt.Sprintf("%s %v: want %s", name(e.Field), e.Value, e.Want)
}

// Validate reports the first invalid field, as a *FieldError.
func (c Config) Validate() error {
	bad := func(field string, value any, want string) error {
		return &FieldError{Field: field, Value: value, Want: want}
	}
	finite := func(x float64) bool { return x >= 0 && x <= 1e9 } // false for NaN
	switch {
	case c.Window < time.Second || c.Window > MaxWindow:
		return bad("Window", c.Window, "1s to 15m")
	case c.Window%time.Second != 0:
		return bad("Window", c.Window, "whole seconds")
	case !(c.ShareThreshold > 0 && c.ShareThreshold <= 1):
		return bad("ShareThreshold", c.ShareThreshold, "a fraction in (0, 1], e.g. 0.10")
	case !finite(c.MinWCUPerSecond):
		return bad("MinWCUPerSecond", c.MinWCUPerSecond, "≥ 0")
	case !(c.PartitionLimit > 0) || c.PartitionLimit > 1e9:
		return bad("PartitionLimit", c.PartitionLimit, "> 0 (DynamoDB's is "+report.Count(ddb.PartitionWriteUnits)+")")
	case !(c.CriticalWCUPerSecond > 0) || c.CriticalWCUPerSecond > 1e9:
		return bad("CriticalWCUPerSecond", c.CriticalWCUPerSecond, "> 0")
	case c.CriticalWCUPerSecond < c.MinWCUPerSecond:
		return &FieldError{Field: "CriticalWCUPerSecond", Value: c.CriticalWCUPerSecond, Below: "MinWCUPerSecond", BelowValue: c.MinWCUPerSecond}
	case !finite(c.MinRCUPerSecond):
		return bad("MinRCUPerSecond", c.MinRCUPerSecond, "≥ 0 (0: the default)")
	case !finite(c.CriticalRCUPerSecond):
		return bad("CriticalRCUPerSecond", c.CriticalRCUPerSecond, "≥ 0 (0: the default)")
	case !finite(c.ReadPartitionLimit):
		return bad("ReadPartitionLimit", c.ReadPartitionLimit, "≥ 0 (0: the default)")
	case !(c.SaturationFraction >= 0 && c.SaturationFraction <= 1):
		return bad("SaturationFraction", c.SaturationFraction, fmt.Sprintf("a fraction above 0 and at most 1, e.g. %g (or 0 for that default)", defaultSaturationFraction))
	case c.SaturationSeconds < 0 || c.SaturationSeconds > int(MaxWindow/time.Second):
		return bad("SaturationSeconds", c.SaturationSeconds, fmt.Sprintf("1 to 900 seconds, e.g. %d (or 0 for that default)", DefaultSaturationSeconds))
	case c.Top < 0 || c.Top > 1000:
		return bad("Top", c.Top, "0 to 1000")
	case c.Lateness < 0 || c.Lateness > time.Hour:
		return bad("Lateness", c.Lateness, "0 to 1h")
	}
	if err := c.Sketch.Validate(); err != nil {
		return &FieldError{Field: "Sketch", Value: c.Sketch, Err: err}
	}
	if err := c.IndexSketchConfig().Validate(); err != nil {
		return &FieldError{Field: "IndexSketch", Value: c.IndexSketch, Err: err}
	}
	return nil
}
