package streams

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// StartPosition says where reading starts in the shards that are open when
// Run begins. Shards found later (children of a split or of a rollover)
// are always read from their start, or their first records would be lost.
type StartPosition string

// The start positions, named after GetShardIterator's iterator types.
const (
	// TrimHorizon reads everything the stream still holds (up to 24 h),
	// closed shards included, parents before children.
	TrimHorizon StartPosition = "trim_horizon"
	// Latest reads only records written after Run begins.
	Latest StartPosition = "latest"
)

// MaxLimit is GetRecords' largest page, in records.
const MaxLimit = 1000

// Config configures a Reader.
type Config struct {
	StreamARN string
	From      StartPosition

	// MinPoll and MaxPoll bound the pause between two GetRecords calls on a
	// shard that has no new records: it starts at MinPoll and doubles on every
	// empty page up to MaxPoll. A full page is followed at once.
	MinPoll, MaxPoll time.Duration

	// Limit is GetRecords' page size, at most MaxLimit records.
	Limit int32

	// DescribeInterval is how often DescribeStream is called to find new
	// shards. A shard that closes triggers one at once as well, since its
	// children must be read next.
	DescribeInterval time.Duration
}

// DefaultConfig returns the configuration `hotkeys watch` starts from: read
// new records only, poll an active shard 4 times a second (as Lambda does)
// and an idle one every 2 s.
func DefaultConfig() Config {
	return Config{
		From:             Latest,
		MinPoll:          250 * time.Millisecond,
		MaxPoll:          2 * time.Second,
		Limit:            MaxLimit,
		DescribeInterval: 30 * time.Second,
	}
}

// ErrConfig is wrapped by Validate's errors.
var ErrConfig = errors.New("streams: invalid config")

// Validate reports the first invalid field.
func (c Config) Validate() error {
	switch {
	case !strings.Contains(c.StreamARN, ":table/") || !strings.Contains(c.StreamARN, "/stream/"):
		return fmt.Errorf("%w: StreamARN %q is not a DynamoDB stream ARN (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL)", ErrConfig, c.StreamARN)
	case c.From != TrimHorizon && c.From != Latest:
		return fmt.Errorf("%w: From %q: want %q or %q", ErrConfig, c.From, TrimHorizon, Latest)
	case c.MinPoll <= 0:
		return fmt.Errorf("%w: MinPoll %v must be positive", ErrConfig, c.MinPoll)
	case c.MaxPoll < c.MinPoll:
		return fmt.Errorf("%w: MaxPoll %v is below MinPoll %v", ErrConfig, c.MaxPoll, c.MinPoll)
	case c.Limit < 1 || c.Limit > MaxLimit:
		return fmt.Errorf("%w: Limit %d: want 1 to %d", ErrConfig, c.Limit, MaxLimit)
	case c.DescribeInterval <= 0:
		return fmt.Errorf("%w: DescribeInterval %v must be positive", ErrConfig, c.DescribeInterval)
	}
	return nil
}
