package history

import (
	"slices"

	"github.com/hotkeys-dev/hotkeys/report"
)

// What a rollup keeps (Compact): at 1,000 stream shards a minute lists
// some 10,000 keys and 1,000 shards, and a day of rollups is read back in
// one go, so each keeps the heaviest. The bounds stay honest: a key left
// out is under OtherKeysWCUUpper.
const (
	// RollupKeys is how many physical keys a rollup keeps beside its
	// flagged ones: `hotkeys history --top` lists at most 1,000.
	RollupKeys = 1000
	// RollupShards is how many stream shards' loads a rollup keeps; the
	// others are summed as OtherShards.
	RollupShards = 100
)

// OtherShards names the load of the stream shards a rollup did not list
// one by one: their records and WCU summed, the highest of their peaks.
// Stream shard ids never start with "(".
const OtherShards = "(other shards)"

// Compact keeps s's keys of at least 1 % of its WCU by lower bound
// (Significant), its flagged keys and its keys heaviest other keys, and
// its shards busiest stream shards, summing the others' loads as
// OtherShards. A physical key it drops raises OtherKeysWCUUpper to its
// upper bound, so that bound still covers every key s leaves out.
func (s *Summary) Compact(keys, shards int) {
	kept := s.Keys[:0:0]
	others := 0
	for _, k := range s.Keys {
		switch {
		case k.Severity != report.None || Significant(k.WCULower, s.WCU):
		case others < keys:
			others++
		default:
			if len(k.Shards) == 0 {
				s.OtherKeysWCUUpper = max(s.OtherKeysWCUUpper, k.WCUUpper)
			}
			continue
		}
		kept = append(kept, k)
	}
	s.Keys = kept

	rest := report.ShardReport{Shard: OtherShards}
	folded := false
	fold := func(sh report.ShardReport) {
		folded = true
		rest.Records, rest.WCU = rest.Records+sh.Records, rest.WCU+sh.WCU
		rest.PeakWCUPerSecond = max(rest.PeakWCUPerSecond, sh.PeakWCUPerSecond)
	}
	loads := make([]report.ShardReport, 0, min(len(s.Shards), shards+1))
	for _, sh := range s.Shards {
		if sh.Shard == OtherShards {
			fold(sh)
			continue
		}
		loads = append(loads, sh)
	}
	slices.SortFunc(loads, byLoad)
	for _, sh := range loads[min(len(loads), shards):] {
		fold(sh)
	}
	loads = loads[:min(len(loads), shards)]
	if folded {
		i, _ := slices.BinarySearchFunc(loads, rest, byLoad)
		loads = slices.Insert(loads, i, rest)
	}
	s.Shards = loads
}
