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
	// legacy stores the shards' windows as builds before write sharding
	// did (partition key the day), which every build reads.
	legacy bool
}

// build makes every item the table serves: the shards' windows of the
// last shardHours hours, the window rollups of the last day, the hour
// rollups of days days, and the coverage that says so, as the Lambda and
// the rollup job store them.
func build(cfg config, progress func(string)) (*served, error) {
	st := newServed()
	table, err := store.New(nil, cfg.table, store.Options{WriteShards: cfg.writeShards, Retention: 30 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	ids := shardIDs(cfg.shards, 7)
	// Each shape: every shard's window of one minute, as of minute 0.
	var shapes [][]*history.Summary
	for sh := range cfg.shapes {
		var sums []*history.Summary
		for i, id := range ids {
			s, err := shardWindow(cfg.table, id, i, time.Unix(0, 0).UTC(), cfg.records, uint64(sh))
			if err != nil {
				return nil, err
			}
			sums = append(sums, s)
		}
		shapes = append(shapes, sums)
		progress(fmt.Sprintf("shape %d: %d shard windows", sh, len(sums)))
	}
	shapeAt := func(t time.Time) []*history.Summary { return shapes[int(t.Unix()/60)%len(shapes)] }

	// The shards' windows.
	rolledUntil := cfg.end.Add(-2 * time.Minute)
	var shardItems, shardBytes int
	for t := cfg.end.Add(-time.Duration(cfg.shardHours) * time.Hour); t.Before(cfg.end); t = t.Add(time.Minute) {
		for _, s := range shapeAt(t) {
			item, err := table.Item(restamp(s, t))
			if err != nil {
				return nil, err
			}
			if cfg.legacy {
				item[store.AttrDay] = &types.AttributeValueMemberS{Value: t.Format(time.DateOnly)}
				delete(item, store.AttrWriteShards)
			}
			shardBytes += st.put(item)
			shardItems++
		}
	}
	progress(fmt.Sprintf("%d shard windows, %d MB", shardItems, shardBytes>>20))

	// Window rollups of the last day, one per shape restamped.
	var minuteRollups []*history.Summary
	for _, sums := range shapes {
		r, err := rollupOf(cfg.table, time.Minute, sums)
		if err != nil {
			return nil, err
		}
		minuteRollups = append(minuteRollups, r)
	}
	var rollupBytes, rollupItems int
	cov := map[int64]*coverage{}
	covAt := func(t time.Time) *coverage {
		h := t.Truncate(time.Hour).Unix()
		if cov[h] == nil {
			cov[h] = &coverage{hour: h}
		}
		return cov[h]
	}
	settledUntil := cfg.end.Add(-70 * time.Minute)
	for t := cfg.end.Add(-24 * time.Hour); t.Before(rolledUntil); t = t.Add(time.Minute) {
		r := restamp(minuteRollups[int(t.Unix()/60)%len(shapes)], t)
		item, err := table.RollupItem(store.Windows, r, t.Add(2*time.Minute), t.Before(settledUntil))
		if err != nil {
			return nil, err
		}
		rollupBytes += st.put(item)
		rollupItems++
		c := covAt(t)
		c.rolled = append(c.rolled, t.Unix())
		if t.Before(settledUntil) {
			c.settled = append(c.settled, t.Unix())
		}
	}
	progress(fmt.Sprintf("%d window rollups, %d MB (%d KB each)", rollupItems, rollupBytes>>20, rollupBytes/max(1, rollupItems)>>10))

	// Hour rollups: each merges an hour of window rollups.
	var hourRollups []*history.Summary
	for sh := range shapes {
		var hour []*history.Summary
		for m := range 60 {
			hour = append(hour, restamp(minuteRollups[(m+sh)%len(shapes)], time.Unix(int64(m*60), 0).UTC()))
		}
		r, err := rollupOf(cfg.table, time.Hour, hour)
		if err != nil {
			return nil, err
		}
		hourRollups = append(hourRollups, r)
	}
	rollupBytes, rollupItems = 0, 0
	for t := cfg.end.Add(-time.Duration(cfg.days) * 24 * time.Hour); t.Before(cfg.end.Add(-2 * time.Hour)); t = t.Add(time.Hour) {
		r := restamp(hourRollups[int(t.Unix()/3600)%len(shapes)], t)
		item, err := table.RollupItem(store.Hours, r, t.Add(130*time.Minute), true)
		if err != nil {
			return nil, err
		}
		rollupBytes += st.put(item)
		rollupItems++
		covAt(t).hourly = true
	}
	progress(fmt.Sprintf("%d hour rollups, %d MB (%d KB each)", rollupItems, rollupBytes>>20, rollupBytes/max(1, rollupItems)>>10))
	for _, c := range cov {
		st.put(c.item(cfg.writeShards))
	}
	st.sort()
	return st, nil
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
