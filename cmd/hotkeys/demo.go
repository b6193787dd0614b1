package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

const demoAbout = `Runs simulated traffic through the same pipeline as replay and the Lambda:
raw stream-event JSON, decoded, sized, windowed and judged. The table "Shop"
has a long tail of USER#<uuid> keys; each minute one anti-pattern erupts on
top of it: a single key (OPS_LOG), a low-cardinality value (STATUS#ACTIVE), a
time bucket (DATE#2026-11-22), a counter rewritten in place, uneven write
shards, too few write shards, a throttled key (CART#checkout: 2,500 WCU/s
demanded, 1,000 admitted by its partition), and a hot global secondary
index: OPS_LOG moved to daily keys OPS_LOG#<date>, which cures the table,
with GSI1PK = "OPS_LOG" on every line for cross-day queries, which puts them
all on one partition of the index GSI1 (GSI1PK, SK; ALL). It is seeded: every run prints the same.
No AWS account or network is needed. The demo table's indexes can be given
with --describe-table, or left out with --indexes off.

Examples:
  hotkeys demo
  hotkeys demo --format json --heatmap demo.html
`

// demoIndexes is the demo table's one global secondary index.
var demoIndexes = []ddb.Index{{Name: "GSI1", PartitionKey: "GSI1PK", SortKey: "SK", Projection: ddb.ProjectAll}}

// demoPhase is one minute of the scenario: its hot key generator on top of
// the long tail.
type demoPhase struct {
	name string
	// hot writes the phase's extra records for one second.
	hot func(g *demoGen, sec int64)
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("demo", "[flags]", demoAbout, stderr)
	o.registerStreamFlags(fs)
	seed := fs.Uint64("seed", 2026, "random `seed` of the simulated traffic")
	tailRate := new(int)
	intFlag(fs, tailRate, "tail-rate", 800, "writes per second (`rate`) spread over the long tail of USER#<uuid> keys")
	if err := o.parse(fs, args); err != nil {
		return err
	}
	if o.partitionKey == "" {
		o.partitionKey = "PK"
	}
	if o.describeTable == "" && o.indexes != "off" {
		o.indexDefs = demoIndexes
	}
	if *tailRate < 0 || *tailRate > 20000 {
		return usageError{fmt.Errorf("--tail-rate %d: want 0 to 20000", *tailRate)}
	}
	// The simulation writes every record in time order: no record comes
	// late, so a window is reported as soon as record time leaves it, and
	// each minute's narration, onsets and report come together.
	o.cfg.Lateness = 0
	out := o.output(stdout, false, true)
	p, err := newPipeline("demo", o, out, stdout, stderr, time.Now, true)
	if err != nil {
		return err
	}
	g := newDemoGen(*seed, *tailRate)
	if err := playDemo(ctx, p, g, o, out.table.width, stderr); err != nil {
		return err
	}
	if err := p.finish(); err != nil {
		return err
	}
	if p.malformed > 0 && o.format == "table" {
		fmt.Fprintf(stderr, "hotkeys demo: the scenario includes %d deliberately malformed record(s), skipped and counted above\n", p.malformed)
	}
	return nil
}

// playDemo feeds the scenario's minutes to p in time order, telling each
// minute on stderr (table output) after the windows before it are reported.
// It stops early, without error, when ctx is done: the run's summary still
// follows.
func playDemo(ctx context.Context, p *pipeline, g *demoGen, o *options, width int, stderr io.Writer) error {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Unix()
	phaseLen := int64(o.cfg.Window / time.Second)
	if phaseLen < 60 {
		phaseLen = 60 // each anti-pattern needs a minute of traffic to show
	}
	for i, ph := range demoPhases {
		// The windows the last minute filled close before this minute is
		// told, so that its narration comes after their reports.
		p.det.Advance(time.Unix(start+int64(i)*phaseLen, 0))
		if err := p.emit(p.det.Onsets(nil), p.det.Flush()); err != nil {
			return err
		}
		if o.format == "table" {
			name := ph.name
			if o.cfg.Redactor != nil {
				name = "(names the keys: hidden by --key-redaction)"
			}
			var b strings.Builder
			wrap(&b, fmt.Sprintf("hotkeys demo: minute %d: ", i+1), "    ", name, width)
			fmt.Fprint(stderr, b.String())
		}
		for s := int64(0); s < phaseLen; s++ {
			if ctx.Err() != nil {
				return nil
			}
			sec := start + int64(i)*phaseLen + s
			g.second(sec, ph.hot)
			for shard, payload := range g.payloads() {
				if err := p.feed("demo", payload, demoShards[shard]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var demoShards = []string{
	"shardId-00000001763769600000-a1b2c3d4",
	"shardId-00000001763769600000-b2c3d4e5",
	"shardId-00000001763769600000-c3d4e5f6",
	"shardId-00000001763769600000-d4e5f6a7",
}

// demoPhases is the scenario, one anti-pattern per minute. Rates are WCU/s.
var demoPhases = []demoPhase{
	{"a single key: every service appends to OPS_LOG (2 WCU log lines, ~400 WCU/s)", func(g *demoGen, sec int64) {
		for i := range g.jitter(200) {
			g.write("OPS_LOG", fmt.Sprintf("%d.%03d#%d", sec, i%1000, g.seq), 1500, "INSERT", 0)
		}
	}},
	{"a low-cardinality value: orders keyed by STATUS#ACTIVE (~300 WCU/s)", func(g *demoGen, sec int64) {
		for range g.jitter(300) {
			g.write("STATUS#ACTIVE", "ORDER#"+g.id(), 200, "INSERT", 0)
		}
	}},
	{"a time bucket: today's events under DATE#2026-11-22 (~900 WCU/s)", func(g *demoGen, sec int64) {
		for range g.jitter(450) {
			g.write("DATE#2026-11-22", "EVENT#"+g.id(), 1200, "INSERT", 0)
		}
		if sec%60 == 30 {
			g.malformed()
		}
	}},
	{"a global counter: COUNTER#page_views rewritten in place (~500 WCU/s)", func(g *demoGen, sec int64) {
		for range g.jitter(500) {
			g.write("COUNTER#page_views", "TOTAL", 120, "MODIFY", 120)
		}
	}},
	{"uneven write shards: ORDERS#SHARD_0 takes 350 of 770 WCU/s over 8 shards", func(g *demoGen, sec int64) {
		for range g.jitter(350) {
			g.write("ORDERS#SHARD_0", "ORDER#"+g.id(), 300, "INSERT", 0)
		}
		for s := 1; s < 8; s++ {
			for range g.jitter(60) {
				g.write("ORDERS#SHARD_"+strconv.Itoa(s), "ORDER#"+g.id(), 300, "INSERT", 0)
			}
		}
	}},
	{"too few write shards: EVENTS#SHARD_0 and _1 at ~850 WCU/s each", func(g *demoGen, sec int64) {
		for s := range 2 {
			for range g.jitter(850) {
				g.write("EVENTS#SHARD_"+strconv.Itoa(s), "EVENT#"+g.id(), 400, "INSERT", 0)
			}
		}
	}},
	{"a throttled key: checkout writes demand 2,500 WCU/s of CART#checkout, its partition admits 1,000 WCU/s (the stream shows what was admitted)", func(g *demoGen, sec int64) {
		g.admitted("CART#checkout", "ITEM#", g.jitter(500), 5000)
	}},
	{"a hot index: log lines under daily keys OPS_LOG#<date> (30 days, a healthy table), all with GSI1PK = OPS_LOG (~900 WCU/s on one index key)", func(g *demoGen, sec int64) {
		for i := range g.jitter(450) {
			day := time.Unix(sec, 0).UTC().AddDate(0, 0, -g.rng.IntN(30)).Format("2006-01-02")
			g.writeIndexed("OPS_LOG#"+day, fmt.Sprintf("%d.%03d#%d", sec, i%1000, g.seq), "OPS_LOG", 1500)
		}
	}},
}
