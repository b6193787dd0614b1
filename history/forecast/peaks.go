package forecast

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/report"
)

// seriesID names one key's series: its table, index and key.
type seriesID struct{ table, index, key, typ string }

// Peaks gathers windows' keys into daily peaks, per table, index and key:
// the one rule of "a key's daily peak" that the CLI (hotkeys forecast)
// and the rollup function's daily forecast share. Its Write takes
// reports, so that history's reader and replay's pipeline feed it as
// they feed a table.
type Peaks struct {
	days map[seriesID]map[Date]*Day
}

// NewPeaks returns empty Peaks.
func NewPeaks() *Peaks {
	return &Peaks{days: map[seriesID]map[Date]*Day{}}
}

// Write takes each physical key of each window (a logical sharded key's
// shards are keys of their own) at the window's day.
func (d *Peaks) Write(reps []report.Report) error {
	for i := range reps {
		r := &reps[i]
		date := DateOf(r.Start)
		for _, keys := range [][]report.KeyReport{r.TopKeys, r.HotKeys} {
			for j := range keys {
				if len(keys[j].Shards) > 0 {
					continue
				}
				d.add(seriesID{r.Table, r.Index, keys[j].Key, keys[j].Type}, date, &keys[j].KeyFigures)
			}
		}
	}
	return nil
}

func (d *Peaks) add(id seriesID, date Date, k *report.KeyFigures) {
	byDate := d.days[id]
	if byDate == nil {
		byDate = map[Date]*Day{}
		d.days[id] = byDate
	}
	day := byDate[date]
	if day == nil {
		day = &Day{Date: date}
		byDate[date] = day
	}
	// A window's peak second is a lower bound of the key's: the day's
	// peak has no tighter bounds to give than itself.
	day.Peak = max(day.Peak, k.PeakWCUPerSecond)
	day.Lower, day.Upper = day.Peak, day.Peak
	day.Saturated = day.Saturated || k.Saturated
}

// Close does nothing: Peaks is a report writer.
func (d *Peaks) Close() error { return nil }

// Forecasts forecasts the keys worth it: every key whose last daily peak
// is at least minShare of the limit, or among the top heaviest of its
// table's (or index's) last day. They come soonest first, then by
// headroom.
func (d *Peaks) Forecasts(opt Options, minShare float64, top int) ([]Result, error) {
	type source struct{ table, index string }
	lastDay := map[source]Date{}
	lastPeak := map[seriesID]Day{}
	for id, byDate := range d.days {
		var last Date
		for date := range byDate {
			last = max(last, date)
		}
		lastPeak[id] = *byDate[last]
		s := source{id.table, id.index}
		lastDay[s] = max(lastDay[s], last)
	}
	// The top keys of each source's last day, by peak.
	onLast := map[source][]seriesID{}
	for id, day := range lastPeak {
		if s := (source{id.table, id.index}); day.Date == lastDay[s] {
			onLast[s] = append(onLast[s], id)
		}
	}
	chosen := map[seriesID]bool{}
	for _, ids := range onLast {
		slices.SortFunc(ids, func(a, b seriesID) int {
			return cmp.Or(cmp.Compare(lastPeak[b].Peak, lastPeak[a].Peak), cmp.Compare(a.key, b.key), cmp.Compare(a.typ, b.typ))
		})
		for _, id := range ids[:min(top, len(ids))] {
			chosen[id] = true
		}
	}
	var out []Result
	for id, byDate := range d.days {
		if !chosen[id] && lastPeak[id].Peak < minShare*cmp.Or(opt.PartitionLimit, ddb.PartitionWriteUnits) {
			continue
		}
		s := Series{Table: id.table, Index: id.index, Key: id.key, Type: id.typ}
		for _, day := range byDate {
			s.Days = append(s.Days, *day)
		}
		r, err := Forecast(s, opt)
		if err != nil {
			return nil, fmt.Errorf("forecast of %s, key %s: %w", id.table, id.key, err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Result) int {
		return cmp.Or(cmp.Compare(daysOr(a.DaysToLimit), daysOr(b.DaysToLimit)), cmp.Compare(a.Headroom, b.Headroom),
			cmp.Compare(a.Table, b.Table), cmp.Compare(a.Index, b.Index), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Type, b.Type))
	})
	return out, nil
}

// daysOr orders forecasts: a date first, soonest first; none after.
func daysOr(d *int) int {
	if d == nil {
		return MaxHorizon + 1
	}
	return *d
}
