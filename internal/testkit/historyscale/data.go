package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/store"
)

// config is what the served table holds.
type config struct {
	table       string
	shards      int       // stream shards
	records     int       // records per shard and minute
	days        int       // of hour rollups, up to end
	end         time.Time // on a minute; the last two minutes are not rolled up
	writeShards int
	shapes      int // distinct workloads, taken in turn minute by minute
	shardHours  int // hours before end whose shards' windows are stored
	// heavy is issue 35's workload (heavyWindow) instead of the light one
	// (shardWindow).
	heavy bool
	// legacy stores the shards' windows as builds before write sharding
	// did (partition key the day), which every build reads.
	legacy bool
}

// build makes every item the table serves: the shards' windows of the
// last shardHours hours, the window rollups of the last day, the hour
// rollups of days days, and the coverage that says so, as the Lambda and
// the rollup job store them.
func build(cfg config, progress func(string)) (*served, error) {
	table, err := store.New(nil, cfg.table, store.Options{WriteShards: cfg.writeShards, Retention: 30 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	b := &builder{cfg: cfg, st: newServed(), table: table, progress: progress, cov: map[int64]*coverage{}}
	if err := b.makeShapes(); err != nil {
		return nil, err
	}
	if err := b.putShardWindows(); err != nil {
		return nil, err
	}
	minuteRollups, err := b.putWindowRollups()
	if err != nil {
		return nil, err
	}
	if err := b.putHourRollups(minuteRollups); err != nil {
		return nil, err
	}
	for _, c := range b.cov {
		b.st.put(c.item(cfg.writeShards))
	}
	b.st.sort()
	return b.st, nil
}

// builder is a build under way.
type builder struct {
	cfg      config
	st       *served
	table    *store.Table
	progress func(string)
	// shapes: each is every shard's window of one minute, as of minute 0.
	shapes [][]*history.Summary
	cov    map[int64]*coverage // by hour
}

// makeShapes makes the shards' windows of each shape.
func (b *builder) makeShapes() error {
	ids := shardIDs(b.cfg.shards, 7)
	for sh := range b.cfg.shapes {
		var sums []*history.Summary
		for i, id := range ids {
			window := shardWindow
			if b.cfg.heavy {
				window = heavyWindow
			}
			s, err := window(b.cfg.table, id, i, time.Unix(0, 0).UTC(), b.cfg.records, uint64(sh))
			if err != nil {
				return err
			}
			sums = append(sums, s)
		}
		b.shapes = append(b.shapes, sums)
		b.progress(fmt.Sprintf("shape %d: %d shard windows", sh, len(sums)))
	}
	return nil
}

// putShardWindows stores the shards' windows of the last shardHours
// hours, a shape a minute, in turn.
func (b *builder) putShardWindows() error {
	var shardItems, shardBytes int
	for t := b.cfg.end.Add(-time.Duration(b.cfg.shardHours) * time.Hour); t.Before(b.cfg.end); t = t.Add(time.Minute) {
		for _, s := range b.shapes[int(t.Unix()/60)%len(b.shapes)] {
			item, err := b.table.Item(b.minute(restamp(s, t)))
			if err != nil {
				return err
			}
			if b.cfg.legacy {
				item[store.AttrDay] = &types.AttributeValueMemberS{Value: t.Format(time.DateOnly)}
				delete(item, store.AttrWriteShards)
			}
			shardBytes += b.st.put(item)
			shardItems++
		}
	}
	b.progress(fmt.Sprintf("%d shard windows, %d MB", shardItems, shardBytes>>20))
	return nil
}

// putWindowRollups stores the window rollups of the last day but its last
// two minutes, one per shape restamped, settled up to 70 minutes before
// the end, and returns the shapes' rollups.
func (b *builder) putWindowRollups() ([]*history.Summary, error) {
	var minuteRollups []*history.Summary
	for _, sums := range b.shapes {
		r, err := rollupOf(b.cfg.table, time.Minute, sums)
		if err != nil {
			return nil, err
		}
		minuteRollups = append(minuteRollups, r)
	}
	var rollupBytes, rollupItems int
	rolledUntil, settledUntil := b.cfg.end.Add(-2*time.Minute), b.cfg.end.Add(-70*time.Minute)
	for t := b.cfg.end.Add(-24 * time.Hour); t.Before(rolledUntil); t = t.Add(time.Minute) {
		r := b.minute(restamp(minuteRollups[int(t.Unix()/60)%len(b.shapes)], t))
		item, err := b.table.RollupItem(store.Windows, r, t.Add(2*time.Minute), t.Before(settledUntil))
		if err != nil {
			return nil, err
		}
		rollupBytes += b.st.put(item)
		rollupItems++
		c := b.coverage(t)
		c.rolled = append(c.rolled, t.Unix())
		if t.Before(settledUntil) {
			c.settled = append(c.settled, t.Unix())
		}
	}
	b.progress(fmt.Sprintf("%d window rollups, %d MB (%d KB each)", rollupItems, rollupBytes>>20, rollupBytes/max(1, rollupItems)>>10))
	return minuteRollups, nil
}

// putHourRollups stores the hour rollups of days days but the last two
// hours: each merges an hour of the shapes' window rollups.
func (b *builder) putHourRollups(minuteRollups []*history.Summary) error {
	var hourRollups []*history.Summary
	for sh := range b.shapes {
		var hour []*history.Summary
		for m := range 60 {
			hour = append(hour, b.minute(restamp(minuteRollups[(m+sh)%len(b.shapes)], time.Unix(int64(m*60), 0).UTC())))
		}
		r, err := rollupOf(b.cfg.table, time.Hour, hour)
		if err != nil {
			return err
		}
		hourRollups = append(hourRollups, r)
	}
	var rollupBytes, rollupItems int
	for t := b.cfg.end.Add(-time.Duration(b.cfg.days) * 24 * time.Hour); t.Before(b.cfg.end.Add(-2 * time.Hour)); t = t.Add(time.Hour) {
		r := restamp(hourRollups[int(t.Unix()/3600)%len(b.shapes)], t)
		if b.cfg.heavy {
			r = rename(r, uint32(t.Unix()/3600), true)
		}
		item, err := b.table.RollupItem(store.Hours, r, t.Add(130*time.Minute), true)
		if err != nil {
			return err
		}
		rollupBytes += b.st.put(item)
		rollupItems++
		b.coverage(t).hourly = true
	}
	b.progress(fmt.Sprintf("%d hour rollups, %d MB (%d KB each)", rollupItems, rollupBytes>>20, rollupBytes/max(1, rollupItems)>>10))
	return nil
}

// minute gives the heavy workload's window s (a shard's or a rollup) the
// keys of its minute: every minute's differ.
func (b *builder) minute(s *history.Summary) *history.Summary {
	if !b.cfg.heavy {
		return s
	}
	return rename(s, uint32(s.Start.Unix()/60), false)
}

// coverage returns the coverage item of t's hour.
func (b *builder) coverage(t time.Time) *coverage {
	h := t.Truncate(time.Hour).Unix()
	if b.cov[h] == nil {
		b.cov[h] = &coverage{hour: h}
	}
	return b.cov[h]
}

// coverage is the rollup job's coverage item of an hour.
type coverage struct {
	hour            int64
	rolled, settled []int64
	hourly          bool
}

func (c *coverage) item(writeShards int) map[string]types.AttributeValue {
	ns := func(v []int64) *types.AttributeValueMemberNS {
		out := &types.AttributeValueMemberNS{}
		for _, x := range v {
			out.Value = append(out.Value, strconv.FormatInt(x, 10))
		}
		return out
	}
	t := time.Unix(c.hour, 0).UTC()
	item := map[string]types.AttributeValue{
		store.AttrDay:           &types.AttributeValueMemberS{Value: t.Format(time.DateOnly) + "#c"},
		store.AttrWindow:        &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d", c.hour)},
		store.AttrWriteShards:   &types.AttributeValueMemberN{Value: strconv.Itoa(writeShards)},
		store.AttrWindowSeconds: &types.AttributeValueMemberN{Value: "60"},
		store.AttrHourly:        &types.AttributeValueMemberBOOL{Value: c.hourly},
	}
	if len(c.rolled) > 0 {
		item[store.AttrRolled] = ns(c.rolled)
	}
	if len(c.settled) > 0 {
		item[store.AttrSettledWindow] = ns(slices.Clone(c.settled))
	}
	return item
}
