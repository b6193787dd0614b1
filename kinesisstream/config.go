package kinesisstream

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// StartPosition says where reading starts in the shards that are open when
// Run begins. Shards found later (children of a split or a merge) are
// always read from their start, or their first records would be lost.
type StartPosition string

// The start positions, named after GetShardIterator's iterator types.
const (
	// TrimHorizon reads everything the stream still holds (its retention
	// period, 24 hours to 365 days), closed shards included, parents before
	// children.
	TrimHorizon StartPosition = "trim_horizon"
	// Latest reads only records written after Run begins.
	Latest StartPosition = "latest"
)

// MaxLimit is GetRecords' largest page, in records.
const MaxLimit = 10000

// Config configures a Reader.
type Config struct {
	// StreamARN is the Kinesis data stream's ARN,
	// arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME. The Reader calls the
	// API with the stream's name, which every implementation accepts
	// (kinesalite knows no StreamARN parameter), so the stream must be in
	// the client's account and region.
	StreamARN string
	From      StartPosition

	// MinPoll and MaxPoll bound the pause between two GetRecords calls on a
	// shard: MinPoll after a page with records, doubling on every empty page
	// up to MaxPoll. A full page is followed at once. A shard allows 5
	// GetRecords a second, shared by all its shared-throughput consumers.
	MinPoll, MaxPoll time.Duration

	// Limit is GetRecords' page size, at most MaxLimit records.
	Limit int32

	// ListInterval is how often ListShards is called to find new shards. A
	// shard that closes triggers one at once as well, since its children
	// must be read next.
	ListInterval time.Duration

	// UntilCaughtUp makes Run return ErrCaughtUp once every shard listed
	// has been read to its end (closed shards) or to an empty page at its
	// tip (open shards: MillisBehindLatest 0), and no shard is waiting for
	// its parents: reading what the stream holds, and stopping, as `replay`
	// reads files.
	UntilCaughtUp bool
}

// DefaultConfig returns the configuration `hotkeys watch --kinesis-stream`
// starts from: read new records only, poll a shard once a second (Lambda's
// rate for a shared-throughput consumer) and an idle one every 5 s.
func DefaultConfig() Config {
	return Config{
		From:         Latest,
		MinPoll:      time.Second,
		MaxPoll:      5 * time.Second,
		Limit:        MaxLimit,
		ListInterval: 30 * time.Second,
	}
}

// ErrConfig is wrapped by Validate's errors.
var ErrConfig = errors.New("kinesisstream: invalid config")

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch region, name := parseARN(c.StreamARN); {
	case name == "" || region == "":
		return fmt.Errorf("%w: StreamARN %q is not a Kinesis stream ARN (arn:aws:kinesis:REGION:ACCOUNT:stream/NAME)", ErrConfig, c.StreamARN)
	case c.From != TrimHorizon && c.From != Latest:
		return fmt.Errorf("%w: From %q: want %q or %q", ErrConfig, c.From, TrimHorizon, Latest)
	case c.MinPoll <= 0:
		return fmt.Errorf("%w: MinPoll %v must be positive", ErrConfig, c.MinPoll)
	case c.MaxPoll < c.MinPoll:
		return fmt.Errorf("%w: MaxPoll %v is below MinPoll %v", ErrConfig, c.MaxPoll, c.MinPoll)
	case c.Limit < 1 || c.Limit > MaxLimit:
		return fmt.Errorf("%w: Limit %d: want 1 to %d", ErrConfig, c.Limit, MaxLimit)
	case c.ListInterval <= 0:
		return fmt.Errorf("%w: ListInterval %v must be positive", ErrConfig, c.ListInterval)
	}
	return nil
}

// parseARN returns the region and stream name of a Kinesis stream ARN, or
// "" for both when arn is not one. A consumer's ARN (…/consumer/NAME:TIME)
// is not a stream's.
func parseARN(arn string) (region, name string) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "kinesis" || parts[3] == "" || parts[4] == "" {
		return "", ""
	}
	name, ok := strings.CutPrefix(parts[5], "stream/")
	if !ok || name == "" || strings.ContainsAny(name, "/:") {
		return "", ""
	}
	return parts[3], name
}
