package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/report"
)

// clientTable prints a client's window, to width: reads, writes, throttles
// and latency per key, as the application saw them.
func clientTable(b *strings.Builder, r *report.ClientReport, width int) {
	writeTitle(b, windowName(r.Table, r.Index), r.Window, "· from the client ", width)
	fields(b, []string{"calls " + count(r.Requests), "RCU " + units(r.RCU), "WCU " + count(r.WCU), "throttled attempts " + count(r.ThrottledAttempts),
		"failed conditions " + count(r.ConditionalCheckFailures), "distinct keys " + approx(r.DistinctKeys) + count(r.DistinctKeys)}, width)
	if r.UnattributedRequests > 0 || r.Dropped > 0 {
		fields(b, []string{fmt.Sprintf("unattributed calls %s (RCU %s, WCU %s: no key visible, or the key schema not known yet)",
			count(r.UnattributedRequests), units(r.UnattributedRCU), count(r.UnattributedWCU)), "dropped " + count(r.Dropped)}, width)
	}
	if r.UnprocessedItems > 0 || r.InternalErrors > 0 {
		fields(b, []string{fmt.Sprintf("unprocessed batch items %s (DynamoDB throttling part of a batch)", count(r.UnprocessedItems)),
			"internal errors " + count(r.InternalErrors)}, width)
	}
	if r.CapacityEstimated {
		wrap(b, "", "  ", "RCU and WCU estimated from item sizes (lower bounds): the client did not ask DynamoDB for ConsumedCapacity", width)
	}
	var cut keyNotes
	if len(r.HotKeys) == 0 {
		b.WriteString("\nno hot keys\n")
	} else {
		clientKeys(b, "HOT KEYS", r.HotKeys, true, r.CapacityEstimated, width, &cut)
	}
	if len(r.TopKeys) > 0 {
		clientKeys(b, "TOP KEYS", r.TopKeys, false, r.CapacityEstimated, width, &cut)
	}
	cut.writeFull(b)
	b.WriteString("\n")
}

// clientKeys writes a table of a client's keys, and with withDiagnosis
// what each one's diagnosis says; estimated capacity says so instead of
// its bounds.
func clientKeys(b *strings.Builder, title string, ks []report.ClientKeyReport, withDiagnosis, estimated bool, width int, cut *keyNotes) {
	b.WriteString("\n" + title + "\n")
	t := table{indent: "  ", cols: []column{{head: "SEVERITY"}, {head: "KEY", key: true}, {head: "HOT FOR", drop: 3}, {head: "CALLS", drop: 1},
		{head: "RCU"}, {head: "PEAK RCU/s", drop: 4}, {head: "WCU"}, {head: "PEAK WCU/s", drop: 5}, {head: "THROTTLED", drop: 6}, {head: "P99 ms", drop: 2}}}
	for _, k := range ks {
		sev := severityCell(&k.KeyFigures)
		if sev == "" {
			sev = "-"
		}
		apportioned := ""
		if k.Apportioned {
			apportioned = " (apportioned)"
		}
		p99 := "-"
		if k.LatencySamples > 0 {
			p99 = strconv.FormatFloat(k.LatencyP99Ms, 'f', 1, 64)
		}
		hotFor := make([]string, len(k.HotFor))
		for i, c := range k.HotFor {
			hotFor[i] = string(c)
		}
		rcu, wcu := rcuBounds(&k), wcuCell(&k.KeyFigures)
		if estimated {
			rcu, wcu = units(k.RCU)+" (estimated)", count(k.WCU)+" (estimated)"
		}
		t.add(text(sev), keyCell(k.Key), text(strings.Join(hotFor, ",")), text(count(k.Requests)), text(rcu+apportioned), text(units(k.PeakRCUPerSecond)),
			text(wcu), text(count(uint64(k.PeakWCUPerSecond+0.5))), text(count(k.ThrottledAttempts)), text(p99))
	}
	t.write(b, width, cut)
	if withDiagnosis {
		for _, k := range ks {
			wrap(b, "  ▸ "+cut.cell(k.Key, keyWidths[0])+": ", "    ", k.Diagnosis, width)
		}
	}
}

// units writes capacity units, which come in halves.
func units(v float64) string {
	whole := count(uint64(v))
	if v-float64(uint64(v)) >= 0.5 {
		return whole + ".5"
	}
	return whole
}

// rcuBounds is a key's RCU: the figure when exact, else its bounds.
func rcuBounds(k *report.ClientKeyReport) string {
	if k.RCULower == k.RCUUpper {
		return units(k.RCU)
	}
	return units(k.RCULower) + "–" + units(k.RCUUpper)
}
