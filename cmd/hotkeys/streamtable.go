package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hotkeys-dev/hotkeys/report"
)

// A stream window's report for people: its title, then its sections, in
// order, findings first. A section writes nothing when it has nothing to
// say. A new part of the report (a key's headroom, say) is a section added
// to streamSections.

// tableOptions are how table output draws a window.
type tableOptions struct {
	width int  // the columns every line fits (see defaultWidth)
	all   bool // --all: every listed key and stream shard, none folded
	top   bool // --top was given: the top keys listed, none folded
	// keyDoubt, when not "", says why the partition key may be the wrong
	// attribute: a window without hot keys then says so, rather than a
	// confident "no hot keys".
	keyDoubt func() string
	// limit is the per-partition write limit the figures are read against.
	limit float64
}

// tailFloor is the share of a window's WCU under which a key that is not
// flagged is folded into one line, unless --top or --all asks for it.
const tailFloor = 0.001

// maxShards is how many stream shards a window lists, unless --all asks
// for every one: the heaviest, and every saturated one.
const maxShards = 8

// windowPage is one window's report being written.
type windowPage struct {
	b   *strings.Builder
	opt *tableOptions
	cut keyNotes
}

// streamSection writes one part of a window's report.
type streamSection func(p *windowPage, r *report.Report)

// streamSections are the parts of a window's report, in order.
var streamSections = []streamSection{streamTotals, hotKeys, topKeys, streamShards}

// writeStreamWindow writes a stream window's report.
func writeStreamWindow(b *strings.Builder, r *report.Report, opt *tableOptions) {
	p := &windowPage{b: b, opt: opt}
	writeTitle(b, windowName(r.Table, r.Index), r.Window, "", opt.width)
	for _, s := range streamSections {
		s(p, r)
	}
	p.cut.writeFull(b)
	b.WriteString("\n")
}

// windowName is how a window's table, and index, are named in titles.
func windowName(table, index string) string {
	name := printable(table, 60)
	if table == "" {
		name = "(table not named)"
	}
	if index != "" {
		name += " · index " + printable(index, 60)
	}
	return name
}

// writeTitle writes a window's title line, ruled to width. When it does
// not fit, the day goes (the run's summary has it), then the name is cut.
func writeTitle(b *strings.Builder, name string, w report.Window, suffix string, width int) {
	when := fmt.Sprintf(" · %s – %s UTC %s", w.Start.Format("2006-01-02 15:04:05"), w.End.Format("15:04:05"), suffix)
	if runes(name)+runes(when)+4 > width {
		when = fmt.Sprintf(" · %s – %s %s", w.Start.Format("15:04:05"), w.End.Format("15:04:05"), suffix)
	}
	if room := width - runes(when) - 4; runes(name) > room && room > 1 {
		name = string([]rune(name)[:room-1]) + "…"
	}
	rule(b, "── "+name+when, width)
}

// streamTotals writes what the window counted, and what makes its figures
// incomplete.
func streamTotals(p *windowPage, r *report.Report) {
	items := []string{"records " + count(r.Records), "WCU " + count(r.WCU) + lowerBoundNote(r.WCUIsLowerBound),
		"distinct keys " + approx(r.DistinctKeys) + count(r.DistinctKeys), "TTL deletes " + count(r.TTLDeletes), "malformed " + count(r.Malformed)}
	if r.Late > 0 {
		items = append(items, "late "+count(r.Late))
	}
	// Only a stored window (history) can have some: the CLI itself stops
	// at its first internal error (exit status 3).
	if r.InternalErrors > 0 {
		items = append(items, "internal errors "+count(r.InternalErrors))
	}
	if r.TTLWCU > 0 {
		items = append(items, "entries removed by TTL "+count(r.TTLWCU)+" WCU (free)")
	}
	fields(p.b, items, p.opt.width)
	if r.TerminatedEarly {
		wrap(p.b, "! ", "  ", "Lambda ended this window early: the figures cover only part of it.", p.opt.width)
	}
	if r.InternalErrors > 0 {
		wrap(p.b, "! ", "  ", fmt.Sprintf("hotkeys skipped %s record(s) for a bug of its own (the function's log has an ERROR \"internal error\" with the stack): the figures undercount.",
			count(r.InternalErrors)), p.opt.width)
	}
}

// approx is "≈ " before a count of distinct keys that is an estimate:
// above the 4,096 that the HyperLogLog counts exactly.
func approx(distinct uint64) string {
	if distinct > 4096 {
		return "≈ "
	}
	return ""
}

// hotKeys writes the flagged keys, and what each one's diagnosis says.
func hotKeys(p *windowPage, r *report.Report) {
	if len(r.HotKeys) == 0 {
		if doubt := p.opt.keyDoubt(); doubt != "" {
			p.b.WriteString("\n")
			wrap(p.b, "", "  ", "no hot keys by "+doubt, p.opt.width)
			return
		}
		p.b.WriteString("\nno hot keys\n")
		return
	}
	p.b.WriteString("\nHOT KEYS\n")
	// At a narrow width the figures go before the key is cut: the
	// diagnosis below says them.
	t := table{indent: "  ", cols: []column{{head: "SEVERITY"}, {head: "KEY", key: true}, {head: "PATTERN", drop: 3}, {head: "WCU", drop: 1},
		{head: "SHARE", bar: true}, {head: "PEAK WCU/s", drop: 2}, {head: "FIX: SHARDS"}}}
	for _, k := range r.HotKeys {
		t.add(text(string(k.Severity)), keyCell(k.Key), text(string(k.Pattern)), text(wcuCell(&k.KeyFigures)),
			cell{share: k.Share, text: shareText(k.Share)}, text(peakCell(k.PeakWCUPerSecond, k.Saturated)), text(shardsCell(&k.KeyFigures)))
	}
	t.write(p.b, p.opt.width, &p.cut)
	for _, k := range r.HotKeys {
		wrap(p.b, "  ▸ "+p.cut.cell(k.Key, keyWidths[0])+": ", "    ", k.Diagnosis, p.opt.width)
	}
}

// topKeys writes the heaviest keys that are not flagged. Those under
// tailFloor of the window's WCU are folded into one line, unless --top
// or --all asks for them: then the --top heaviest are listed as JSON
// lists them, flagged or not.
func topKeys(p *windowPage, r *report.Report) {
	flagged := map[string]bool{}
	physical := uint64(0)
	for _, k := range r.HotKeys {
		flagged[k.Type+k.Key] = true
		if len(k.Shards) == 0 {
			physical++
		}
	}
	var listed []report.KeyReport
	maxFolded := r.OtherKeysWCUUpper
	unfold := p.opt.all || p.opt.top
	for _, k := range r.TopKeys {
		switch {
		case unfold:
			listed = append(listed, k)
		case flagged[k.Type+k.Key]:
		case k.Share >= tailFloor:
			listed = append(listed, k)
		default:
			maxFolded = max(maxFolded, k.WCUUpper)
		}
	}
	shown := physical + uint64(len(listed))
	if unfold {
		shown = uint64(len(listed))
	}
	if len(listed) > 0 {
		p.b.WriteString("\nTOP KEYS\n")
		t := table{indent: "  ", cols: []column{{head: "KEY", key: true}, {head: "TYPE", drop: 2}, {head: "WCU"}, {head: "SHARE", bar: true},
			{head: "AVG WCU/s", drop: 1}, {head: "PEAK WCU/s"}}}
		for _, k := range listed {
			t.add(keyCell(k.Key), text(k.Type), text(wcuCell(&k.KeyFigures)), cell{share: k.Share, text: shareText(k.Share)},
				text(fmt.Sprintf("%.1f", k.AvgWCUPerSecond)), text(count(uint64(k.PeakWCUPerSecond+0.5))))
		}
		t.write(p.b, p.opt.width, &p.cut)
	}
	if r.DistinctKeys <= shown {
		return
	}
	rest := r.DistinctKeys - shown
	each := "each under 0.1% of the window's WCU"
	if r.WCU == 0 || float64(maxFolded)/float64(r.WCU) >= tailFloor {
		each = fmt.Sprintf("each at most %s WCU (%s of the window's)", count(maxFolded), shareText(float64(maxFolded)/float64(max(r.WCU, 1))))
	}
	switch {
	case len(listed) > 0:
		wrap(p.b, "  ", "  ", fmt.Sprintf("and %s%s, %s", approx(r.DistinctKeys), plural(int(rest), "more key"), each), p.opt.width)
	case unfold:
		p.b.WriteString("\n")
		wrap(p.b, "", "  ", fmt.Sprintf("other keys: %s%s, %s", approx(r.DistinctKeys), count(rest), each), p.opt.width)
	default:
		p.b.WriteString("\n")
		wrap(p.b, "", "  ", fmt.Sprintf("other keys: %s%s, %s (--top N or --all lists the heaviest)", approx(r.DistinctKeys), count(rest), each), p.opt.width)
	}
}

// streamShards writes the stream shards' load: the heaviest maxShards and
// every saturated one, unless --all asks for all.
func streamShards(p *windowPage, r *report.Report) {
	if len(r.Shards) == 0 {
		return
	}
	p.b.WriteString("\nSTREAM SHARDS (each follows roughly one table partition)\n")
	t := table{indent: "  ", cols: []column{{head: "SHARD", key: true}, {head: "RECORDS", drop: 1}, {head: "WCU"}, {head: "SHARE", bar: true}, {head: "PEAK WCU/s"}}}
	var folded []report.ShardReport
	for i, s := range r.Shards {
		if !p.opt.all && i >= maxShards && !s.Saturated {
			folded = append(folded, s)
			continue
		}
		share := 0.0
		if r.WCU > 0 {
			share = float64(s.WCU) / float64(r.WCU)
		}
		t.add(keyCell(s.Shard), text(count(s.Records)), text(count(s.WCU)), cell{share: share, text: shareText(share)},
			text(peakCell(s.PeakWCUPerSecond, s.Saturated)))
	}
	t.write(p.b, p.opt.width, &p.cut)
	if len(folded) > 0 {
		wrap(p.b, "  ", "  ", fmt.Sprintf("and %s more shards, each at most %s WCU (--all lists them)", count(uint64(len(folded))), count(folded[0].WCU)), p.opt.width)
	}
	if slices.ContainsFunc(r.Shards, func(s report.ShardReport) bool { return s.PeakWCUPerSecond > p.opt.limit }) {
		wrap(p.b, "! ", "  ", fmt.Sprintf("A peak over %s WCU/s, a partition's limit, is the writes of more than one partition: a stream shard follows a partition only roughly, and may span several. What throttles is a key's own peak, above.",
			report.Rate(p.opt.limit)), p.opt.width)
	}
	for _, s := range r.Shards {
		if s.Saturated {
			wrap(p.b, "! ", "  ", fmt.Sprintf("%s saturated for %d s: its partition's successful writes were pinned at the limit, so its writes were most likely throttled, whichever keys share it.",
				p.cut.cell(s.Shard, -1), s.SaturatedSeconds), p.opt.width)
		}
	}
}

// wcuCell is a key's WCU: the figure when exact, else the bounds that
// bracket it.
func wcuCell(k *report.KeyFigures) string {
	if k.WCULower == k.WCUUpper {
		return count(k.WCU)
	}
	return count(k.WCULower) + "–" + count(k.WCUUpper)
}

// shareText writes a share as a percentage, one decimal.
func shareText(share float64) string { return fmt.Sprintf("%.1f%%", share*100) }

// peakCell is a peak WCU/s, "pinned" when saturated: at the partition
// limit long enough to be most likely throttled.
func peakCell(peak float64, saturated bool) string {
	if saturated {
		return count(uint64(peak+0.5)) + " pinned"
	}
	return count(uint64(peak + 0.5))
}
