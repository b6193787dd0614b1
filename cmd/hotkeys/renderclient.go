package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hotkeys-dev/hotkeys/report"
)

// clientTable prints a client's window: reads, writes, throttles and
// latency per key, as the application saw them.
func clientTable(b *strings.Builder, r *report.ClientReport) {
	name := printable(r.Table, 60)
	if r.Index != "" {
		name += " · index " + printable(r.Index, 60)
	}
	writeTitle(b, name, r.Window, "· from the client ")
	fmt.Fprintf(b, "calls %s   RCU %s   WCU %s   throttled attempts %s   failed conditions %s   distinct keys ≈ %s\n",
		count(r.Requests), units(r.RCU), count(r.WCU), count(r.ThrottledAttempts), count(r.ConditionalCheckFailures), count(r.DistinctKeys))
	if r.UnattributedRequests > 0 || r.Dropped > 0 {
		fmt.Fprintf(b, "unattributed calls %s (RCU %s, WCU %s: no key visible, or the key schema not known yet)   dropped %s\n",
			count(r.UnattributedRequests), units(r.UnattributedRCU), count(r.UnattributedWCU), count(r.Dropped))
	}
	if r.UnprocessedItems > 0 || r.InternalErrors > 0 {
		fmt.Fprintf(b, "unprocessed batch items %s (DynamoDB throttling part of a batch)   internal errors %s\n",
			count(r.UnprocessedItems), count(r.InternalErrors))
	}
	if r.CapacityEstimated {
		b.WriteString("RCU and WCU estimated from item sizes (lower bounds): the client did not ask DynamoDB for ConsumedCapacity\n")
	}
	if len(r.HotKeys) == 0 {
		b.WriteString("\nno hot keys\n")
	} else {
		clientKeys(b, "HOT KEYS", r.HotKeys, true, r.CapacityEstimated)
	}
	if len(r.TopKeys) > 0 {
		clientKeys(b, "TOP KEYS", r.TopKeys, false, r.CapacityEstimated)
	}
	b.WriteString("\n")
}

// clientKeys writes a table of a client's keys, and with withDiagnosis
// what each one's diagnosis says; estimated capacity says so instead of
// its bounds.
func clientKeys(b *strings.Builder, title string, ks []report.ClientKeyReport, withDiagnosis, estimated bool) {
	b.WriteString("\n" + title + "\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SEVERITY\tKEY\tHOT FOR\tCALLS\tRCU [bounds]\tPEAK RCU/s\tWCU [bounds]\tPEAK WCU/s\tHEADROOM\tTHROTTLED\tP99 ms\t")
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
		rcu, wcu := rcuBounds(&k), bounds(&k.KeyFigures)
		if estimated {
			rcu, wcu = units(k.RCU)+" [estimated]", count(k.WCU)+" [estimated]"
		}
		headroom := headroomCell(&k.KeyFigures)
		if k.HeadroomSide != "" {
			headroom += " " + k.HeadroomSide
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", sev, printable(k.Key, 40), strings.Join(hotFor, ","), count(k.Requests),
			rcu, apportioned, units(k.PeakRCUPerSecond), wcu, count(uint64(k.PeakWCUPerSecond+0.5)), headroom, count(k.ThrottledAttempts), p99)
	}
	tw.Flush()
	if withDiagnosis {
		for _, k := range ks {
			fmt.Fprintf(b, "  ▸ %s: %s%s\n", printable(k.Key, 40), headroomText(&k.KeyFigures, k.HeadroomSide), k.Diagnosis)
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

func rcuBounds(k *report.ClientKeyReport) string {
	if k.RCULower == k.RCUUpper {
		return units(k.RCU) + " [exact]"
	}
	return fmt.Sprintf("%s [%s–%s]", units(k.RCU), units(k.RCULower), units(k.RCUUpper))
}
